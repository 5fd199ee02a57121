package envstream

import (
	"bytes"
	"io"

	"github.com/mcptest/mcptest/baseline"
)

// compareJSON is CompareJSON into memory: the comparison's JSON, and the
// comparison it returned. The output cannot be started over (again
// false), as stdout cannot.
func compareJSONBytes(basePath, curPath, failOn string) ([]byte, *baseline.Comparison, error) {
	var buf bytes.Buffer
	out := func(fill func(io.Writer) error) error { return fill(&buf) }
	cmp, err := CompareJSON(out, false, basePath, "--compare", curPath, failOn)
	return buf.Bytes(), cmp, err
}
