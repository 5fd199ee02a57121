package cassette

import (
	"strings"
	"testing"
)

// TestProblemsBound: a file with exactly maxProblems problems shows them
// all, one more shows the first maxProblems and a line counting the rest;
// so does a JSON Lines file, whose lines each hold a problem placed on
// its line.
func TestProblemsBound(t *testing.T) {
	doc := func(n int) string {
		return `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [` + strings.TrimSuffix(strings.Repeat(`{"tool":1},`, n), ",") + `]}]}]}`
	}
	event := `{"type":"assistant","session_id":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"u","name":7,"input":{}}]}}`
	session := func(n int) string {
		return `{"type":"system","subtype":"init","session_id":"s","tools":[]}` + "\n" + strings.Repeat(event+"\n", n)
	}
	for _, tc := range []struct {
		name, doc string
		errs      int
		more      string
	}{
		{"100 problems", doc(maxProblems), maxProblems, ""},
		{"101 problems", doc(maxProblems + 1), maxProblems + 1, "1 more problems not shown: the file has 101, these are the first 100"},
		{"100 lines", session(maxProblems), maxProblems, ""},
		{"101 lines", session(maxProblems + 1), maxProblems + 1, "1 more problems not shown: the file has 101, these are the first 100"},
	} {
		_, err := Read("f.json", []byte(tc.doc))
		l := diagErrors(t, err)
		last := l[len(l)-1].Error()
		if len(l) != tc.errs || strings.Contains(last, "more problems") != (tc.more != "") || !strings.Contains(last, tc.more) {
			t.Errorf("%s: %d errors, the last %q; want %d, the last counting %q", tc.name, len(l), last, tc.errs, tc.more)
		}
		if strings.HasPrefix(tc.name, "10") && strings.HasSuffix(tc.name, "lines") && !strings.HasPrefix(l[0].Error(), "f.json:2:") {
			t.Errorf("%s: the first error %q is not on line 2", tc.name, l[0].Error())
		}
	}
}
