package baseline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mcptest/mcptest/report"
)

// The comparison's JSON is indented by two spaces, but for its cases:
// each element of the top-level "cases" array is one line of compact JSON
// at an indent of four (as the run envelope writes its cases), so a case
// costs its bytes and no indentation, and a reader can take it line by
// line. The members before the cases (comparison_version, baseline,
// current, not_comparable) are known before any case is compared; those
// after them (warnings, summary, gate, reliability, floors) once every
// case is: a comparison that streams its cases (report/envstream) writes
// the head, then each case as it is compared (AppendCaseJSON's bytes
// after CaseSep), then the tail, and the bytes are WriteJSON's.
//
// CasePrefix is what precedes each case's line: a line break and the
// indent of an element of the cases.
const CasePrefix = "\n" + report.CaseIndent

// JSONParts encodes c without its cases and cuts the encoding where its
// cases go: head ends with the cases' opening bracket, tail starts with
// their closing one. Head depends on the members before the cases alone,
// tail on those after them alone. The comparison's JSON is head, each
// case after CaseSep, CasesEnd where there is a case, then tail.
func (c *Comparison) JSONParts() (head, tail []byte, err error) {
	empty := *c
	empty.Cases = []CaseDelta{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", report.JSONIndent)
	if err := enc.Encode(&empty); err != nil {
		return nil, nil, fmt.Errorf("encode comparison: %w", err)
	}
	head, tail, ok := report.CutAtCases(buf.Bytes())
	if !ok {
		return nil, nil, errors.New("encode comparison: no empty cases array to fill")
	}
	return head, tail, nil
}

// CaseSep is what precedes the i-th case's JSON in the comparison's.
func CaseSep(i int) string {
	if i == 0 {
		return CasePrefix
	}
	return "," + CasePrefix
}

// CasesEnd is what follows the last case, where there is one: the cases'
// closing bracket then stands on a line of its own.
const CasesEnd = "\n" + report.JSONIndent

// AppendCaseJSON appends d's JSON as it stands in the comparison's cases:
// compact, HTML characters as themselves, no line break.
func AppendCaseJSON(b []byte, d *CaseDelta) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return b, fmt.Errorf("encode comparison: case %q: %w", d.Name, err)
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// WriteJSON writes c's JSON: indented by two spaces, each case one line
// of compact JSON (see JSONParts). Nothing is written when a case cannot
// be encoded (a figure that is not finite).
func (c *Comparison) WriteJSON(w io.Writer) error {
	head, tail, err := c.JSONParts()
	if err != nil {
		return err
	}
	var cases []byte
	for i := range c.Cases {
		cases = append(cases, CaseSep(i)...)
		if cases, err = AppendCaseJSON(cases, &c.Cases[i]); err != nil {
			return err
		}
	}
	if len(c.Cases) > 0 {
		cases = append(cases, CasesEnd...)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	bw.Write(cases)
	bw.Write(tail)
	return bw.Flush()
}
