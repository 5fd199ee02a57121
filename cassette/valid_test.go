package cassette_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/cassette/gen"
)

// TestValidJSONIsJSONValid holds validJSON to encoding/json's Valid over
// documents nobody wrote: drawn values (nested objects and lists, strings
// with escapes, control characters and bytes that are not UTF-8, numbers
// of every shape) written compact and indented, each also cut short at a
// drawn byte, with a drawn byte replaced, inserted or deleted; the
// generated cassettes and transcripts and the corpus, whole and cut; and
// nesting at and past the limit of 10,000.
func TestValidJSONIsJSONValid(t *testing.T) {
	check := func(what string, data []byte) {
		t.Helper()
		if got, want := cassette.ValidJSON(data), json.Valid(data); got != want {
			t.Fatalf("%s: validJSON %v, json.Valid %v, on %q", what, got, want, clip(data))
		}
	}
	r := rand.New(rand.NewPCG(40, 1))
	var docs [][]byte
	for range 400 {
		var b bytes.Buffer
		drawJSON(r, &b, 0)
		docs = append(docs, b.Bytes())
		var ind bytes.Buffer
		if json.Indent(&ind, b.Bytes(), " ", "\t") == nil {
			docs = append(docs, ind.Bytes())
		}
	}
	for i := range 20 {
		docs = append(docs, gen.Cassette(gen.DefaultSeed, i))
		docs = append(docs, gen.Transcript(gen.DefaultSeed, i, gen.OpenAI))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, data)
	}
	valid := 0
	for k, doc := range docs {
		check("drawn", doc)
		if json.Valid(doc) {
			valid++
		}
		for range 12 {
			check("mutated", mutateByte(r, doc))
		}
		for range 4 {
			check("cut", doc[:r.IntN(len(doc)+1)])
		}
		if k%50 == 0 {
			for cut := range len(doc) + 1 {
				check("cut", doc[:cut])
			}
		}
	}
	if valid < len(docs)/2 {
		t.Fatalf("only %d of %d drawn documents are valid JSON: the generator draws too little valid input", valid, len(docs))
	}
	for _, depth := range []int{9999, 10000, 10001} {
		for _, pair := range []string{"[]", "{}"} {
			var b strings.Builder
			for i := range depth {
				if pair == "{}" || i%2 == 1 {
					b.WriteString(`{"k":`)
				} else {
					b.WriteString("[")
				}
			}
			b.WriteString("0")
			for i := depth - 1; i >= 0; i-- {
				if pair == "{}" || i%2 == 1 {
					b.WriteString("}")
				} else {
					b.WriteString("]")
				}
			}
			check("deep", []byte(b.String()))
		}
	}
	for _, s := range []string{"", " ", "0", "-", "-0", "01", "1.", "1.e5", "1e", "1e+", "1E-7", "-0.0e0", "tru", "true ", "nul",
		"nullx", `"\u12"`, `"\u12g4"`, `"\uABCD"`, `"\x"`, "\"\x01\"", "\"\xff\"", `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`,
		`[1 2]`, `{}x`, "\t[\n]\r", "[]]", "{]", `"`, `"\`, "\xef\xbb\xbf{}"} {
		check("fixed", []byte(s))
	}
}

// drawJSON writes a drawn JSON value, mostly valid: a few strings hold a
// control character or a bad escape, a few numbers are malformed.
func drawJSON(r *rand.Rand, b *bytes.Buffer, depth int) {
	ws := func() {
		if r.IntN(8) == 0 {
			b.WriteString([]string{" ", "\n", "\t", "\r\n  "}[r.IntN(4)])
		}
	}
	k := r.IntN(10)
	if depth > 5 {
		k = 4 + r.IntN(6)
	}
	switch k {
	case 0, 1:
		b.WriteByte('{')
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			drawString(r, b)
			ws()
			b.WriteByte(':')
			ws()
			drawJSON(r, b, depth+1)
			ws()
		}
		b.WriteByte('}')
	case 2, 3:
		b.WriteByte('[')
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			drawJSON(r, b, depth+1)
			ws()
		}
		b.WriteByte(']')
	case 4, 5:
		drawString(r, b)
	case 6, 7:
		nums := []string{"0", "-0", "12", "-3.25", "1e9", "2E-3", "0.5e+10", "123456789012345678901234567890", "-1.0E0"}
		bad := []string{"01", "1.", "-", "+1", ".5", "1e", "0x10", "NaN"}
		if r.IntN(30) == 0 {
			b.WriteString(bad[r.IntN(len(bad))])
		} else {
			b.WriteString(nums[r.IntN(len(nums))])
		}
	default:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	}
}

func drawString(r *rand.Rand, b *bytes.Buffer) {
	parts := []string{"a", "key", "é", "日本", `\"`, `\\`, `\/`, `\n`, `\t`, `\b`, `\f`, `\r`, `\u00e9`, `\uD83D\uDE00`, " ", "\xff", "\xc3"}
	bad := []string{"\x00", "\x1f", "\n", `\x`, `\u12`, `\`, `\U0041`}
	b.WriteByte('"')
	for range r.IntN(6) {
		if r.IntN(40) == 0 {
			b.WriteString(bad[r.IntN(len(bad))])
		} else {
			b.WriteString(parts[r.IntN(len(parts))])
		}
	}
	b.WriteByte('"')
}

// mutateByte returns doc with one drawn byte replaced, inserted or deleted.
func mutateByte(r *rand.Rand, doc []byte) []byte {
	bytesOf := []byte("{}[],:\"\\ \t\n\r\f\v0123456789-+.eEtrufalsn\x00\x1f\x7f\xff")
	out := bytes.Clone(doc)
	if len(out) == 0 {
		return append(out, bytesOf[r.IntN(len(bytesOf))])
	}
	i := r.IntN(len(out))
	switch r.IntN(3) {
	case 0:
		out[i] = bytesOf[r.IntN(len(bytesOf))]
	case 1:
		out = append(out[:i], append([]byte{bytesOf[r.IntN(len(bytesOf))]}, out[i:]...)...)
	default:
		out = append(out[:i], out[i+1:]...)
	}
	return out
}

func clip(b []byte) []byte {
	if len(b) > 300 {
		return b[:300]
	}
	return b
}

// FuzzValidJSON: validJSON says what encoding/json's Valid says, on every
// input.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{"{}", `{"a":[1,-2.5e3,"x\u00e9",true,null]}`, "[", `"\u12`, "01", " 0 ", "\xef\xbb\xbf[]"} {
		f.Add([]byte(s))
	}
	f.Add(gen.Transcript(gen.DefaultSeed, 0, gen.OpenAI))
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := cassette.ValidJSON(data), json.Valid(data); got != want {
			t.Fatalf("validJSON %v, json.Valid %v", got, want)
		}
	})
}

// BenchmarkValidJSON checks 200 generated OpenAI transcripts whole, as
// every recording is checked before it is decoded, with validJSON and
// with encoding/json's Valid:
//
//	go test -run '^$' -bench ValidJSON ./cassette
func BenchmarkValidJSON(b *testing.B) {
	var docs [][]byte
	size := 0
	for i := range 200 {
		docs = append(docs, gen.Transcript(gen.DefaultSeed, i, gen.OpenAI))
		size += len(docs[i])
	}
	for _, v := range []struct {
		name  string
		valid func([]byte) bool
	}{{"validJSON", cassette.ValidJSON}, {"json.Valid", json.Valid}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, d := range docs {
					if !v.valid(d) {
						b.Fatal("a generated transcript is not valid JSON")
					}
				}
			}
		})
	}
}

// TestKeySetsReused: the key sets a decoder gives back at the end of its
// document are the next decoder's, emptied. Generated cassettes and
// transcripts, each also with a key repeated in its first object (at the
// top, and deeper after an object of more than 16 keys, where a set turns
// into a map), read one after the other and then four at a time in
// another order, each read gives the same cassette or the same error.
func TestKeySetsReused(t *testing.T) {
	var docs [][]byte
	for i := range 30 {
		for _, d := range [][]byte{gen.Cassette(gen.DefaultSeed, i), gen.Transcript(gen.DefaultSeed, i, gen.OpenAI)} {
			docs = append(docs, d)
			k := bytes.IndexByte(d, '{')
			var wide strings.Builder
			for j := range 20 + i {
				fmt.Fprintf(&wide, `"k%d": %d, `, j, j)
			}
			docs = append(docs, append(append(bytes.Clone(d[:k+1]), `"dup": 1, "dup": 2, `...), d[k+1:]...))
			docs = append(docs, append(append(bytes.Clone(d[:k+1]), `"x": {`+wide.String()+`"k3": 0}, `...), d[k+1:]...))
		}
	}
	read := func(d []byte) string {
		c, err := cassette.Read("f.json", d)
		if err != nil {
			return "error: " + err.Error()
		}
		b, err := json.Marshal(c)
		if err != nil {
			return "marshal: " + err.Error()
		}
		return string(b)
	}
	want := make([]string, len(docs))
	errs := 0
	for i, d := range docs {
		want[i] = read(d)
		if strings.HasPrefix(want[i], "error: ") {
			errs++
		}
	}
	if errs < len(docs)/3 {
		t.Fatalf("only %d of %d documents have a repeated key refused", errs, len(docs))
	}
	var wg sync.WaitGroup
	got := make([]string, len(docs))
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := len(docs) - 1 - g; i >= 0; i -= 4 {
				got[i] = read(docs[i])
			}
		}()
	}
	wg.Wait()
	for i := range docs {
		if got[i] != want[i] {
			t.Fatalf("document %d read %q, and read again %q", i, clip([]byte(want[i])), clip([]byte(got[i])))
		}
	}
}
