package envstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
)

// decodeOne is decodeCase as report.CaseReader calls it: nil for null.
func decodeOne(data []byte) (*report.CaseResult, error) {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil, nil
	}
	var c report.CaseResult
	if err := decodeCase(data, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// benchCase is a passing case of the generator corpus as the JSON
// reporter writes it (TestMillionCaseMergeAndCompare's).
func benchCase(b *testing.B) []byte {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	writeCaseJSON(w, 1, prCase(1))
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzDecodeCase holds decodeCase to encoding/json's Unmarshal: it
// refuses what Unmarshal refuses, and decodes what Unmarshal decodes to
// the same value.
func FuzzDecodeCase(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 40 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, r.IntN(2) == 0)
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"targets":{"a":1},"targets":{"b":2},"cassettes":{"files":1},"cassettes":{"sha256":"x"}}`))
	f.Add([]byte(`{"NAME":"x","Name":"y","runs":-0,"assertions":[{"matcher":{"x":1e400}}]}`))
	f.Add([]byte("{\"name\":\"a\xffb\\ud800\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want report.CaseResult
		werr := json.Unmarshal(data, &want)
		got, gerr := decodeOne(data)
		switch {
		case werr != nil && gerr == nil:
			t.Fatalf("DecodeCase decoded what Unmarshal refuses (%v): %q", werr, data)
		case werr == nil && gerr != nil:
			t.Fatalf("DecodeCase refused what Unmarshal decodes: %v: %q", gerr, data)
		case werr == nil && got != nil && !reflect.DeepEqual(*got, want):
			t.Fatalf("DecodeCase decoded\n%+v\nUnmarshal\n%+v\nfrom %q", *got, want, data)
		case werr == nil && got == nil && !bytes.Equal(bytes.TrimSpace(data), []byte("null")):
			t.Fatalf("DecodeCase gave no case for %q", data)
		}
	})
}

// TestDecodeCaseIsUnmarshal runs FuzzDecodeCase's property over drawn
// cases and their mutations on every test run.
func TestDecodeCaseIsUnmarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	decoded := 0
	for round := range 6000 {
		var b bytes.Buffer
		casedraw.JSON(r, &b, reflect.TypeFor[report.CaseResult](), 0, round%4 < 2)
		data := b.Bytes()
		if round%2 == 1 {
			data = casedraw.Mutate(r, data)
		}
		var want report.CaseResult
		werr := json.Unmarshal(data, &want)
		got, gerr := decodeOne(data)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("round %d: Unmarshal %v, DecodeCase %v: %q", round, werr, gerr, data)
		}
		if werr == nil && got != nil && !reflect.DeepEqual(*got, want) {
			t.Fatalf("round %d: DecodeCase decoded\n%+v\nUnmarshal\n%+v\nfrom %q", round, *got, want, data)
		}
		if werr == nil {
			decoded++
		}
	}
	if decoded < 1000 {
		t.Fatalf("only %d of 6,000 drawn cases decoded: the draw is lopsided", decoded)
	}
}

// BenchmarkDecodeCase: decodeCase against encoding/json's Unmarshal on a
// case of the generator corpus (docs/architecture.md, "Library or copy").
func BenchmarkDecodeCase(b *testing.B) {
	raw := benchCase(b)
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var c report.CaseResult
			if err := json.Unmarshal(raw, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeCase", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var c report.CaseResult
			if err := decodeCase(raw, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
