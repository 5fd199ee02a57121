package annotate_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/annotate/htmltest"
	"github.com/mcptest/mcptest/report"
)

// TestHTMLStructure renders the sample and reliability fixtures as HTML
// and checks each page against its envelope (htmltest.CheckStructure): the
// summary strip, the cases in order with their verdicts, Review first, the
// failing figures and the audit block. The one full HTML golden is the
// hostile fixture's (cmd/mcptest TestReportGolden).
func TestHTMLStructure(t *testing.T) {
	for name, env := range map[string]func() *report.Envelope{"sample": annotate.SampleEnvelope, "reliability": annotate.ReliabilityEnvelope} {
		var buf bytes.Buffer
		if err := (annotate.HTML{}).Report(&buf, env()); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		if strings.Contains(page, "\x1b") {
			t.Errorf("%s: a terminal escape reached the page", name)
		}
		htmltest.CheckStructure(t, name, env(), page)
	}
}
