package cassette_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
)

// TestValidJSONEveryByte holds validJSON to encoding/json's Valid with
// every byte in every place of the grammar: a value's first byte, after a
// number's minus, digit, point and exponent, in a string and an escape, in
// each hex digit of a \u escape, between the tokens of arrays and objects,
// in the literals, and alone, first and last in a container.
func TestValidJSONEveryByte(t *testing.T) {
	templates := []string{
		"X", "X ", " X", "1X", "0X", "-X", "-0X", "1.X", "1.5X", "1eX", "1e+X", "1E-X", "1e5X", "12X3",
		`"X"`, `"aXb"`, `"\X"`, `"\uX000"`, `"\u0X00"`, `"\u00X0"`, `"\u000X"`, `"\u00eX"`,
		"[X]", "[1X]", "[1X2]", "[1,X]", "[X1]", "{X}", `{"a"X1}`, `{"a":X}`, `{"a":1X}`, `{"a":1,X}`, `{X"a":1}`,
		"tXue", "trXe", "truX", "fXlse", "falsX", "nXll", "nulX", "trueX", "[[X]]", "[{}X]", "{\"a\":[X]}",
	}
	for _, tmpl := range templates {
		for c := range 256 {
			doc := []byte(strings.Replace(tmpl, "X", string([]byte{byte(c)}), 1))
			if got, want := cassette.ValidJSON(doc), json.Valid(doc); got != want {
				t.Errorf("%q: validJSON %v, json.Valid %v", doc, got, want)
			}
		}
	}
}

// TestValidJSONCutEverywhere: a document holding every construct, cut at
// every byte and with every byte left out, is judged as json.Valid judges
// it (an escape, a number or a literal cut short at the end included).
func TestValidJSONCutEverywhere(t *testing.T) {
	doc := `{"a\u00e9\n\"": [1.5e-3, -0, 0.25E+2, true, false, null, "\uD83D\uDE00", {}, []], "b": {"c": "\\"}}`
	for i := range len(doc) + 1 {
		for _, d := range []string{doc[:i], doc[:i] + doc[min(i+1, len(doc)):]} {
			if got, want := cassette.ValidJSON([]byte(d)), json.Valid([]byte(d)); got != want {
				t.Errorf("%q: validJSON %v, json.Valid %v", d, got, want)
			}
		}
	}
}
