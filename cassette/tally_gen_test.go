package cassette_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/cassette/gen"
)

// TestTallyIsStreamWithoutArguments holds Tally to Stream over generated
// recordings nobody wrote by hand (drawn seeds and counts, cassettes
// indented and on one line, transcripts in every generated format),
// each also cut short and with a problem put into a call's arguments (a
// repeated key, a number out of range, a string not closed).
func TestTallyIsStreamWithoutArguments(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 1))
	var files []string
	for d := range 4 {
		dir := t.TempDir()
		seed := rng.Uint64()
		paths, err := gen.Write(filepath.Join(dir, "c"), 2+rng.IntN(6), seed)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, paths...)
		format := []string{gen.OpenAI, gen.V1, gen.OpenAI, gen.V1}[d]
		paths, err = gen.WriteTranscripts(filepath.Join(dir, "t"), 2+rng.IntN(10), seed, format)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, paths...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d generated recordings", len(files))
	}
	for _, f := range files {
		if filepath.Ext(f) != ".json" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if kept := cassette.SameAsStreamWithoutArguments(t, f, data); kept > 0 {
			t.Fatalf("%s: Tally kept the arguments of %d calls", f, kept)
		}
		var one bytes.Buffer
		for i := 0; i < len(data); i++ {
			if c := data[i]; c == '"' {
				end := bytes.IndexByte(data[i+1:], '"')
				for end >= 0 && data[i+end] == '\\' {
					next := bytes.IndexByte(data[i+end+2:], '"')
					if next < 0 {
						end = -1
						break
					}
					end += next + 1
				}
				if end < 0 {
					one.Write(data[i:])
					break
				}
				one.Write(data[i : i+end+2])
				i += end + 1
			} else if c != '\n' && c != ' ' {
				one.WriteByte(c)
			}
		}
		cassette.SameAsStreamWithoutArguments(t, f+" on one line", one.Bytes())
		cassette.SameAsStreamWithoutArguments(t, f+" cut short", data[:rng.IntN(len(data))])
		for _, bad := range [][2]string{
			{`"arguments": {`, `"arguments": {"k": 1, "k": 2, `},
			{`"arguments": {`, `"arguments": {"k": 1e999, `},
			{`"arguments":"{`, `"arguments":"{\"k\": 1, \"k\": 2, `},
			{`"arguments": "{`, `"arguments": "{\"k\": 1e999, `},
			{`"arguments": {`, `"arguments": {"k": "open, `},
		} {
			if bytes.Contains(data, []byte(bad[0])) {
				cassette.SameAsStreamWithoutArguments(t, f+" with "+bad[1], bytes.Replace(data, []byte(bad[0]), []byte(bad[1]), 1))
			}
		}
	}
}
