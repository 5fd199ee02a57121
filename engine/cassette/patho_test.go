package cassette

import (
	"strings"
	"testing"
	"time"
)

// TestProblemsAreBounded: a file of many broken values is refused with the
// first maxProblems problems and a count of the rest, in time linear in its
// size; an object that repeats one key 200,000 times is too (each repeat
// names the first occurrence without searching the object again).
func TestProblemsAreBounded(t *testing.T) {
	const n = 200_000
	for name, doc := range map[string]string{
		"broken calls":  `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [` + strings.Repeat(`{"tool":1},`, n-1) + `{"tool":1}]}]}]}`,
		"repeated keys": `{"mcptest_cassette": 1, "runs": [], "x-a": {` + strings.Repeat(`"a":1,`, n) + `"a":1}}`,
	} {
		start := time.Now()
		_, err := Read("f.json", []byte(doc))
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: %v to refuse %d bytes", name, d, len(doc))
		}
		l := diagErrors(t, err)
		last := l[len(l)-1].Error()
		want := "f.json:1:1: 199900 more problems not shown: the file has 200000, these are the first 100 [cassette]"
		if len(l) != maxProblems+1 || last != want {
			t.Errorf("%s: %d errors, the last %q, want %d and %q", name, len(l), last, maxProblems+1, want)
		}
	}
}
