package cassette

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"testing"
)

// FuzzRead feeds arbitrary bytes to Read. It must never panic; a cassette
// it accepts has only calls that name their tool; an error is a list of
// positioned diag errors; two reads agree; and on a v1 cassette the reader
// and the published schema give the same verdict.
//
//	go test ./engine/cassette -run '^$' -fuzz FuzzRead -fuzztime 60s
func FuzzRead(f *testing.F) {
	for _, dir := range []string{"ok", "err"} {
		for _, file := range corpus(f, dir) {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	for _, tt := range append(errorCases, agreeCases...) {
		f.Add([]byte(tt.json))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read("fuzz.json", data)
		if err != nil {
			if c != nil {
				t.Fatal("a cassette and an error")
			}
			for _, e := range diagErrors(t, err) {
				if e.Kind != "cassette" || e.Pos.File != "fuzz.json" || e.Pos.Line < 1 || e.Pos.Col < 1 || e.Message == "" {
					t.Fatalf("badly formed error %#v", e)
				}
			}
		} else {
			if c.Format == "" || c.Path != "fuzz.json" || len(c.Runs) < 0 {
				t.Fatalf("badly formed cassette %+v", c)
			}
			for _, r := range c.Runs {
				for _, call := range r.Calls() {
					if call.Tool == "" {
						t.Fatalf("a call without a tool: %+v", call)
					}
				}
			}
		}
		_, again := Read("fuzz.json", data)
		if (err == nil) != (again == nil) || err != nil && err.Error() != again.Error() {
			t.Fatalf("two reads disagree:\n%v\n---\n%v", err, again)
		}
		if valid, ok, serr := schemaVerdict(t, data); ok && exactNumbers(data) && valid != (err == nil) {
			t.Fatalf("the schema says valid=%v (%v), the reader says %v", valid, serr, err)
		}
	})
}

// exactNumbers reports whether every number of data is exactly a float64:
// the reader decodes numbers as float64 and the schema library as exact
// decimals, so they may judge 1.0000000000000000001 or 2^53+1 differently.
func exactNumbers(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		n, ok := tok.(json.Number)
		if !ok {
			continue
		}
		exact, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return false
		}
		f, err := n.Float64()
		if err != nil {
			return false
		}
		if exact.Cmp(new(big.Rat).SetFloat64(f)) != 0 {
			return false
		}
	}
}
