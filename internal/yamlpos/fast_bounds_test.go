package yamlpos

import (
	"strings"
	"testing"
)

// TestFastItemBounds: the characters at each end of the ranges fastItem
// reads itself, and the spellings it must leave to yaml.v3: every
// capitalisation YAML reads as a boolean or null, an integer of 19
// digits or with a leading zero. What it reads gives yaml.v3's nodes.
func TestFastItemBounds(t *testing.T) {
	for _, tt := range []struct {
		text string
		read bool
	}{
		{"- [aA0zZ9, a_b.c/d-e f]\n", true},
		{"- aa: zz\n  AA: ZZ\n  _x: /y\n", true},
		{"- a: 1\n  b: 9\n  c: 0\n  d: 10\n", true},
		{"- a: " + strings.Repeat("9", 18) + "\n", true},
		{"- a: " + strings.Repeat("9", 19) + "\n", false},
		{"- a: 00\n", false},
		{"- a: 09\n", false},
		{"- a: tRUE\n", true},
		{"- a: yes\n", true},
		{"- a: True\n", false},
		{"- a: TRUE\n", false},
		{"- a: False\n", false},
		{"- a: FALSE\n", false},
		{"- a: false\n", false},
		{"- a: Null\n", false},
		{"- a: NULL\n", false},
		{"- a: null\n", false},
		{"- [True]\n", false},
		{"- {a: NULL}\n", false},
		{"- a: ~\n", false},
		{"- a: @b\n", false},
		{"- a: `b\n", false},
		{"- a: [b`c]\n", false},
		{"- a: [b@c]\n", false},
		{"- a: [b{c]\n", false},
		{"- a: [b+c]\n", false},
		{"- a: -b\n", false},
		{"- a: .b\n", false},
	} {
		if got := sameFast(t, []byte(tt.text), 0); got != tt.read {
			t.Errorf("%q: read %v, want %v", tt.text, got, tt.read)
		}
	}
}
