package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/engine/yamlpos"
)

// TestAppendCanonical: the encoding is json.Marshal's, byte for byte, for
// the values where a hand-written encoder could slip.
func TestAppendCanonical(t *testing.T) {
	for _, v := range []any{
		nil, true, "", "plain", "<a & b>", "quote \" and \\", "tab\t", "é", "\u2028", "\xff",
		0.0, math.Copysign(0, -1), 1.0, -7.0, 1e17, 1e18, -1e18, 1e21, 1e-7, 0.5, 123456789.125,
		[]any{}, map[string]any{}, map[string]any{"b": []any{1.0, "x"}, "a": nil, "é": true, "A": map[string]any{"<": 2.5}},
	} {
		want, _ := json.Marshal(v)
		got, ok := appendCanonical(nil, v)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("%#v: got %s (%v), want %s", v, got, ok, want)
		}
	}
	if _, ok := appendCanonical(nil, map[string]any{"a": 1}); ok {
		t.Error("an int (not a decoded value) should be left to encoding/json")
	}
}

// FuzzAppendCanonical: for every document, the canonical encoding of its
// values is json.Marshal's.
func FuzzAppendCanonical(f *testing.F) {
	f.Add([]byte("a: [1, -0.0, 1e300, 0.1, '<&>', \"\\u2028\", {z: ~, y: true}]\n"))
	files, _ := filepath.Glob("testdata/*/*.yml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := yamlpos.Read("f.yml", data, suiteYAML)
		want, err := json.Marshal(d.Root)
		got, ok := appendCanonical(nil, d.Root)
		if err != nil {
			return
		}
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("got %s (%v), want %s", got, ok, want)
		}
	})
}
