package report

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestResumeRefuses: Resume takes a part only when every one of its rules
// holds (the part read by CasesFrom, to the cases' end; the reader still
// in its cases, past one of them, at the offset the part started from),
// and refuses a part that breaks any one of them alone. A part starting
// so near MaxStreamBytes that its cases run past it is cut there, not read
// on.
func TestResumeRefuses(t *testing.T) {
	data := []byte(`{"schema_version":1,"cases":[{"name":"a"},{"name":"b"},{"name":"c"}],"verdict":"pass"}`)
	reader := func(cases int) *CaseReader {
		cr, err := NewCaseReader(bytes.NewReader(data), "e.json")
		if err != nil {
			t.Fatal(err)
		}
		for range cases {
			if _, err := cr.NextRaw(); err != nil {
				t.Fatal(err)
			}
		}
		return cr
	}
	from := reader(1).Offset()
	part := func(read bool) *CaseReader {
		p := CasesFrom(bytes.NewReader(data[from:]), "e.json", from)
		if read {
			if _, _, err := readAll(p); !errors.Is(err, io.EOF) {
				t.Fatalf("the part: %v", err)
			}
		}
		return p
	}
	cr := reader(1)
	if err := cr.Resume(part(true), from); !errors.Is(err, io.EOF) || cr.Cases() != 3 {
		t.Fatalf("a part by the rules: %v, %d cases", err, cr.Cases())
	}
	whole := reader(0)
	if _, _, err := readAll(whole); !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		cr   *CaseReader
		part *CaseReader
		from int64
	}{
		"a part not read by CasesFrom":   {reader(1), whole, from},
		"a part not read to its end":     {reader(1), part(false), from},
		"a reader past its cases":        {whole, part(true), whole.Offset()},
		"a reader before its first case": {reader(0), part(true), from},
		"another offset":                 {reader(1), part(true), from + 1},
	} {
		if err := tc.cr.Resume(tc.part, tc.from); err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "resume the cases' read") {
			t.Errorf("%s: %v", name, err)
		}
	}
	rest := data[from:]
	near := CasesFrom(bytes.NewReader(rest), "e.json", MaxStreamBytes-12)
	if raws, _, err := readAll(near); errors.Is(err, io.EOF) || len(raws) == 2 {
		t.Errorf("cases past MaxStreamBytes: %d read, %v", len(raws), err)
	}
}
