package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCutAtCasesGenerated encodes drawn documents whose members, before
// and after an empty top-level "cases" array, hold strings that spell the
// cases key (with its line break and indent, which the encoder escapes)
// and nested "cases" arrays: the cut is at the top-level array alone,
// head and tail put together are the document, and a document without
// the array is not cut.
func TestCutAtCasesGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	decoys := []any{"\n  \"cases\": [", `"cases": []`, map[string]any{"cases": []any{}}, []any{map[string]any{"cases": []any{1}}}, 7}
	for i := range 2000 {
		doc := map[string]any{}
		for k := range r.IntN(6) {
			doc[fmt.Sprintf("m%d", k)] = decoys[r.IntN(len(decoys))]
		}
		withCases := r.IntN(4) > 0
		if withCases {
			doc["cases"] = []any{}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", JSONIndent)
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
		head, tail, ok := CutAtCases(buf.Bytes())
		if ok != withCases {
			t.Fatalf("draw %d: cut %v, cases %v:\n%s", i, ok, withCases, buf.Bytes())
		}
		if !ok {
			continue
		}
		if !bytes.HasSuffix(head, []byte("\n"+JSONIndent+`"cases": [`)) || tail[0] != ']' || !bytes.Equal(append(head, tail...), buf.Bytes()) {
			t.Fatalf("draw %d: cut at the wrong place:\n%s\n---\n%s", i, head, tail)
		}
	}
}
