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

// TestPassThroughEmptyObjects: a member whose object is empty (a struct's
// or a map's: position, cassettes, counts, labels), written {} or with
// white space inside, is passed through, read as decoding reads it, and
// the scan goes on after it (a name or a member after the empty object is
// read where it is).
func TestPassThroughEmptyObjects(t *testing.T) {
	var byCase, byScan report.Counter
	n := 0
	for _, data := range ruleCases(t) {
		for _, k := range topKeys(t, data) {
			v := k[1] + bytes.IndexByte(data[k[1]:], ':') + 1
			if data[v] != '{' {
				continue
			}
			end := v + len(valueAt(t, data[v:]))
			for _, empty := range []string{"{}", "{ }", "{\n\t}"} {
				text := append(append(bytes.Clone(data[:v]), empty...), data[end:]...)
				var lc leanCase
				if !passThrough(text, &lc) {
					t.Fatalf("member %s written %s: left to the decoder, want it passed through", data[k[0]:k[1]], empty)
				}
				passThroughHolds(t, text, &byCase, &byScan)
				n++
			}
		}
	}
	if n < 12 {
		t.Fatalf("only %d empty objects drawn", n)
	}
}

// valueAt is the JSON value data starts with.
func valueAt(t *testing.T, data []byte) json.RawMessage {
	t.Helper()
	var v json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestPassThroughEscapedMapKeys: the keys of the counts and labels maps
// are read by name (reliability.runs, reliability.passed_runs,
// reliability.class), and encoding/json unescapes a key before it is the
// map's: a case with a key of either map spelt with an escape is left to
// the decoder. Every character of every key of the two maps of the rule
// cases is written in turn as a \u escape.
func TestPassThroughEscapedMapKeys(t *testing.T) {
	var byCase, byScan report.Counter
	n := 0
	for _, data := range ruleCases(t) {
		for _, k := range topKeys(t, data) {
			name := string(data[k[0]+1 : k[1]-1])
			if name != "counts" && name != "labels" {
				continue
			}
			v := k[1] + bytes.IndexByte(data[k[1]:], ':') + 1
			obj := valueAt(t, data[v:])
			for _, mk := range topKeys(t, obj) {
				for at := v + mk[0] + 1; at < v+mk[1]-1; at++ {
					text := append(bytes.Clone(data[:at]), fmt.Appendf([]byte(`\u`), "%04x", data[at])...)
					text = append(text, data[at+1:]...)
					var lc leanCase
					if passThrough(text, &lc) {
						t.Fatalf("%s key %s written with an escape: passed through, want it left to the decoder", name, obj[mk[0]:mk[1]])
					}
					passThroughHolds(t, text, &byCase, &byScan)
					n++
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d map keys drawn", n)
	}
}

// TestPassThroughToolsCutShort: a case with tools entries, cut short at
// every byte (inside the list, after a comma, after its opening bracket),
// is left to the decoder without a read past its end; whole, it is passed
// through.
func TestPassThroughToolsCutShort(t *testing.T) {
	tools := []byte(`"tools":[{"tool":"a","calls":2}, {"tool":"b","calls":0} ],`)
	for _, data := range ruleCases(t) {
		text := append(append([]byte{'{'}, tools...), data[1:]...)
		var lc leanCase
		if !passThrough(text, &lc) {
			t.Fatalf("a case with tools entries left to the decoder: %s", text)
		}
		for cut := 1; cut < 1+len(tools); cut++ {
			if passThrough(bytes.Clone(text[:cut]), &lc) {
				t.Fatalf("cut at %d (%s): passed through", cut, text[:cut])
			}
		}
	}
}
