package envstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// topKeys is where each member name of the case's object starts (its
// opening quote) and ends (past its closing quote).
func topKeys(t *testing.T, data []byte) [][2]int {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %v %v", tok, err)
	}
	var out [][2]int
	for dec.More() {
		from := int(dec.InputOffset())
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		end := int(dec.InputOffset())
		q := bytes.IndexByte(data[from:end], '"')
		out = append(out, [2]int{from + q, end})
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestPassThroughEscapedKeys is a generator test of the scan's member
// names: encoding/json matches a member to its field after unescaping its
// name ("n\u0061me" is the name), so a case with any member name spelt
// with an escape is left to the decoder. Every character of every member
// name of the rule cases is written in turn as a \u escape (its hex digits
// in a drawn case): the case is not passed through, and what the scan
// read otherwise is what decoding gives (passThroughHolds).
func TestPassThroughEscapedKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 612))
	var byCase, byScan report.Counter
	n := 0
	for _, data := range ruleCases(t) {
		var lc leanCase
		if !passThrough(data, &lc) {
			t.Fatalf("the rule case is not passed through: %s", data)
		}
		for _, k := range topKeys(t, data) {
			for at := k[0] + 1; at < k[1]-1; at++ {
				hex := []string{"%04x", "%04X"}[r.IntN(2)]
				text := append(bytes.Clone(data[:at]), fmt.Appendf([]byte(`\u`), hex, data[at])...)
				text = append(text, data[at+1:]...)
				if passThrough(text, &lc) {
					t.Fatalf("member name %s written %s: passed through, want it left to the decoder", data[k[0]:k[1]], text[k[0]:k[1]+5])
				}
				passThroughHolds(t, text, &byCase, &byScan)
				n++
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d names drawn", n)
	}
}
