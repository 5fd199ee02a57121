package live

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// jsonNumberRef is jsonNumber's rule as a regular expression: a number as
// JSON writes it (no leading zero, a fraction and an exponent each with
// digits); an integer of at most 18 digits, not -0.
var (
	jsonFloatRef = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
	jsonIntRef   = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,17})$`)
)

// drawNumberText draws a text near a number: signs, leading zeros, points
// without digits, exponents without digits, 17 to 19 digits, -0.
func drawNumberText(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(3) == 0 {
		b.WriteString([]string{"-", "+", "--"}[r.IntN(3)])
	}
	switch r.IntN(6) {
	case 0:
		b.WriteString("0")
	case 1:
		b.WriteString("0" + strings.Repeat("7", r.IntN(3)))
	case 2:
		b.WriteString("1" + strings.Repeat("0", 16+r.IntN(4))) // 17 to 20 digits
	case 3:
	default:
		b.WriteString(string(rune('1' + r.IntN(9))))
		for range r.IntN(5) {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	if r.IntN(3) == 0 {
		b.WriteString(".")
		for range r.IntN(3) {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	if r.IntN(3) == 0 {
		b.WriteString([]string{"e", "E"}[r.IntN(2)])
		if r.IntN(2) == 0 {
			b.WriteString([]string{"+", "-"}[r.IntN(2)])
		}
		for range r.IntN(3) {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	if r.IntN(8) == 0 {
		b.WriteString([]string{"x", " ", ".", "e"}[r.IntN(4)])
	}
	return b.String()
}

// TestJSONNumberGenerated is a generator test of jsonNumber, the number
// test of a YAML tool's fast way to JSON (appendNodeJSON): on drawn texts
// around the boundaries of the rule (a sign, a leading zero, a point or an
// exponent without digits, 18 digits and 19, -0) it answers the rule's
// regular expression, and every number it takes is valid JSON that
// decodes to the float64 yaml.v3 reads it as, so the text written for it
// is what decoding the tool would write.
func TestJSONNumberGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 147))
	taken := 0
	for i := range 4000 {
		v := drawNumberText(r)
		integer := r.IntN(2) == 0
		want := jsonFloatRef.MatchString(v)
		if integer {
			want = jsonIntRef.MatchString(v) && v != "-0"
		}
		got := jsonNumber(v, integer)
		if got != want {
			t.Fatalf("draw %d: jsonNumber(%q, integer %v) = %v, want %v", i, v, integer, got, want)
		}
		if !got {
			continue
		}
		taken++
		var j float64
		if err := json.Unmarshal([]byte(v), &j); err != nil {
			t.Fatalf("draw %d: jsonNumber took %q, which JSON refuses: %v", i, v, err)
		}
		var y any
		if err := yaml.Unmarshal([]byte(v), &y); err != nil {
			t.Fatalf("draw %d: yaml.v3 refuses %q: %v", i, v, err)
		}
		var yf float64
		switch y := y.(type) {
		case int:
			yf = float64(y)
		case float64:
			yf = y
		default:
			if integer {
				t.Fatalf("draw %d: jsonNumber took %q as an integer, which yaml.v3 reads as %T", i, v, y)
			}
			continue // a !!float tag's text yaml.v3 reads otherwise untagged: not a case here
		}
		if yf != j {
			t.Fatalf("draw %d: %q is %v to JSON and %v to yaml.v3", i, v, j, yf)
		}
	}
	if taken < 400 {
		t.Errorf("only %d of 4000 drawn texts taken: the rule's accepting side is hardly drawn", taken)
	}
}
