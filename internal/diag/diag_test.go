package diag

import (
	"reflect"
	"testing"
)

func TestLineCol(t *testing.T) {
	data := []byte("ab\nçd\n\nx")
	for _, tt := range []struct {
		off       int64
		line, col int
	}{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 2}, {7, 3, 1}, {8, 4, 1}, {100, 4, 2}, {-1, 1, 1},
	} {
		if l, c := LineCol(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}

func TestSuggest(t *testing.T) {
	keys := []string{"servers", "agents", "tests", "scenarios", "tool_quality", "tools"}
	for word, want := range map[string]string{
		"serverz": "servers", "agent": "agents", "tols": "tools", "tool_qualty": "tool_quality", "xyz": "", "": "",
	} {
		if got := Suggest(word, keys); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestSortedDedupes(t *testing.T) {
	a := &Error{Pos: Pos{File: "b.yml", Line: 1, Col: 1}, Message: "x"}
	b := &Error{Pos: Pos{File: "a.yml", Line: 9, Col: 1}, Message: "y"}
	c := &Error{Pos: Pos{File: "a.yml", Line: 2, Col: 4}, Message: "z"}
	dup := &Error{Pos: Pos{File: "a.yml", Line: 2, Col: 4}, Message: "z"}
	got := List{a, b, c, dup}.Sorted()
	if !reflect.DeepEqual(got, List{c, b, a}) {
		t.Errorf("Sorted = %v", got)
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Pos: Pos{File: "suite.yml", Line: 3, Col: 5}, Message: `unexpected key "serverz"`, Hint: "did you mean `servers`?", Kind: "schema"}
	if got, want := e.Error(), "suite.yml:3:5: unexpected key \"serverz\" (did you mean `servers`?) [schema]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (&Error{Pos: Pos{File: "c.json"}, Message: "empty"}).Error(); got != "c.json: empty" {
		t.Errorf("got %q", got)
	}
}
