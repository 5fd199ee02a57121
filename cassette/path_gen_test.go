package cassette

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// TestDeepDuplicateBoundedGenerated is a generator test over cassettes
// whose call arguments nest objects and arrays (under plain, escaped,
// non-ASCII and 400-byte keys) on both sides of diag.PathBytes, down to
// an object that repeats a key: each message the reader gives is bounded
// whatever the depth and the keys' length (humanPath goes through
// diag.Path), so refusing the file costs at most maxProblems bounded
// messages. Before, each message named the whole path: 4,000 levels wrote
// 810 KB of errors for a 26 KB file, and a long key repeated in each.
func TestDeepDuplicateBoundedGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 5))
	keys := []string{`p`, `properties`, `we\"ird\\key`, `\u00e9t\u00e9`, `x-1`, strings.Repeat("long", 100)}
	const maxStep = 4 + 6*diag.KeyRunes + 3
	const maxMsg = diag.PathBytes + 2*maxStep + 200
	for n := range 60 {
		depth := []int{r.IntN(6), r.IntN(200), r.IntN(3000)}[n%3]
		dups := 1 + r.IntN(150)
		var b strings.Builder
		var closers []byte
		for range depth {
			if r.IntN(3) == 0 {
				b.WriteString("[1, ")
				closers = append(closers, ']')
				continue
			}
			b.WriteString(`{"` + keys[r.IntN(len(keys))] + `": `)
			closers = append(closers, '}')
		}
		dup := []string{"a", strings.Repeat("k", 5000)}[r.IntN(2)] // a repeated key is cut in its message too
		b.WriteString(`{"` + dup + `": 1`)
		for range dups {
			b.WriteString(`, "` + dup + `": 1`)
		}
		b.WriteString("}")
		for i := len(closers) - 1; i >= 0; i-- {
			b.WriteByte(closers[i])
		}
		doc := `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [{"server": "s", "tool": "t", "arguments": {"q": ` +
			b.String() + `}}], "final_response": "x"}]}]}`
		_, err := Read("c.json", []byte(doc))
		var list diag.List
		var one *diag.Error
		switch {
		case errors.As(err, &list):
		case errors.As(err, &one):
			list = diag.List{one}
		default:
			t.Fatalf("depth %d, %d repeated: err %v, want the repetitions", depth, dups, err)
		}
		shown := 0
		for _, e := range list {
			if len(e.Message) > maxMsg {
				t.Fatalf("depth %d: a message of %d bytes, want at most %d: %.300s", depth, len(e.Message), maxMsg, e.Message)
			}
			if strings.Contains(e.Message, `duplicate key "`) {
				shown++
			}
		}
		if want := min(dups, maxProblems); shown != want {
			t.Fatalf("depth %d: %d repetitions shown, want %d", depth, shown, want)
		}
	}
}
