package cassette

import "testing"

// TestLocate: a pointer into a cassette gives the line and column of its
// value; an absent member gives the object that should hold it.
func TestLocate(t *testing.T) {
	data := []byte("{\n  \"runs\": [\n    {\"turns\": [{\"calls\": [\n      {\"tool\": \"search\", \"arguments\": {\"limit\": \"many\"}}\n    ]}]}\n  ]\n}\n")
	for _, tc := range []struct {
		ptr       string
		line, col int
		ok        bool
	}{
		{"/runs/0/turns/0/calls/0/arguments/limit", 4, 49, true},
		{"/runs/0/turns/0/calls/0/arguments/query", 4, 39, true},
		{"/runs/0/turns/0/calls/0/arguments", 4, 39, true},
		{"", 1, 1, true},
	} {
		pos, ok := Locate("c.json", data, tc.ptr)
		if ok != tc.ok || pos.Line != tc.line || pos.Col != tc.col || pos.File != "c.json" {
			t.Errorf("Locate(%q) = %v, %v; want %d:%d", tc.ptr, pos, ok, tc.line, tc.col)
		}
	}
	if _, ok := Locate("c.json", []byte("not json"), "/runs"); ok {
		t.Error("located a pointer in text that is not JSON")
	}
	if _, ok := Locate("c.json", []byte(`{"runs": [`), "/runs/0/turns"); !ok {
		t.Error("a truncated document still holds /runs")
	}
}
