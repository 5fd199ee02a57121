package cassette

import (
	"strings"
	"testing"
)

// TestClipBound: clip keeps n characters and cuts n+1 to n and "…".
func TestClipBound(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"ééé", 3, "ééé"},
		{"éééé", 3, "ééé…"},
		{"", 0, ""},
	} {
		if got := clip(tc.s, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestDescribeObjectBound: an object is described by its first six keys
// in order, and the count of the others past six.
func TestDescribeObjectBound(t *testing.T) {
	obj := func(n int) map[string]any {
		m := map[string]any{}
		for i := 0; i < n; i++ {
			m[string(rune('a'+i))] = 1
		}
		return m
	}
	for n, want := range map[int]string{
		6: `an object with keys "a", "b", "c", "d", "e", "f"`,
		7: `an object with keys "a", "b", "c", "d", "e", "f" and 1 more`,
		9: `an object with keys "a", "b", "c", "d", "e", "f" and 3 more`,
	} {
		if got := describeObject(obj(n)); got != want {
			t.Errorf("describeObject(%d keys) = %q, want %q", n, got, want)
		}
	}
	if got := describeObject(obj(0)); !strings.Contains(got, "empty") {
		t.Errorf("describeObject({}) = %q", got)
	}
}
