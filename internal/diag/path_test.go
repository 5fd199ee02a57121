package diag

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// refPath is the path written whole, step by step, as the readers wrote
// it before Path (childPath and an index), each key cut to KeyRunes
// characters: what Path must give when it fits its budget, and whose
// first and last bytes it keeps when it does not.
func refPath(root string, steps []Step) (string, []int) {
	var path strings.Builder
	path.WriteString(root)
	ends := make([]int, 0, len(steps)) // where each step's text ends
	for i, s := range steps {
		if s.Item {
			fmt.Fprintf(&path, "[%d]", s.Index)
			ends = append(ends, path.Len())
			continue
		}
		key := s.Key
		if r := []rune(key); len(r) > KeyRunes {
			key = string(r[:KeyRunes]) + "…"
		}
		plain := key != ""
		for k, c := range []byte(key) {
			if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || k > 0 && c >= '0' && c <= '9') {
				plain = false
			}
		}
		switch {
		case !plain:
			path.WriteString("[" + strconv.Quote(key) + "]")
		case i == 0 && root == "":
			path.WriteString(key)
		default:
			path.WriteString("." + key)
		}
		ends = append(ends, path.Len())
	}
	return path.String(), ends
}

// drawKey draws a key: plain, with escapes and quotes, non-ASCII, empty,
// bytes that are not UTF-8, or longer than KeyRunes (on both sides of it).
func drawKey(r *rand.Rand) string {
	switch r.IntN(8) {
	case 0:
		return ""
	case 1:
		return `we"ird\key` + "\n\t"
	case 2:
		return "ключ-" + strconv.Itoa(r.IntN(100))
	case 3:
		return "bad\xff\xfe"
	case 4:
		return strings.Repeat("k", KeyRunes-1+r.IntN(3))
	case 5:
		return strings.Repeat("é\x01", 1+r.IntN(4*KeyRunes))
	case 6:
		return "9lives"
	}
	return []string{"p", "properties", "type", "items", "a_b", "x-1"}[r.IntN(6)]
}

// TestPathGenerated is a generator test: paths drawn at every depth
// around the budget (a few steps to thousands, keys of every kind and
// length, indexes) are written whole when they fit PathBytes, and else as
// the whole path's first steps, the count of the steps left out and its
// last steps, within a bound that does not grow with the depth; and
// Path asks for no more steps than it shows, however deep the path.
func TestPathGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 2))
	for n := range 600 {
		depth := r.IntN(8)
		switch n % 3 {
		case 1:
			depth = r.IntN(3 * PathBytes)
		case 2:
			depth = r.IntN(20000)
		}
		steps := make([]Step, depth)
		for i := range steps {
			if r.IntN(3) == 0 {
				steps[i] = Step{Index: r.IntN(1000), Item: true}
			} else {
				steps[i] = Step{Key: drawKey(r)}
			}
		}
		root := []string{"", "tools", `x["y"]`}[r.IntN(3)]
		calls := 0
		got := Path(root, depth, func(i int) Step { calls++; return steps[i] })
		want, ends := refPath(root, steps)
		// The longest a step is written: a key of KeyRunes control
		// characters and "…", quoted.
		const maxStep = len(`[""]`) + 6*KeyRunes + len("…")
		if calls > 3*(PathBytes+2) {
			t.Fatalf("%d steps: Path asked for %d steps, want at most %d", depth, calls, 3*(PathBytes+2))
		}
		if len(want) <= PathBytes {
			if got != want {
				t.Fatalf("%d steps that fit: Path = %q, want %q", depth, got, want)
			}
			continue
		}
		if len(got) > PathBytes+2*maxStep+32 {
			t.Fatalf("%d steps: Path is %d bytes, want at most %d", depth, len(got), PathBytes+2*maxStep+32)
		}
		open := strings.Index(got, "<…")
		if open < 0 {
			// Too few steps to leave one out: the whole path, when its
			// steps are long.
			if got != want {
				t.Fatalf("%d steps, %d bytes: Path = %.200q, want the whole path or an elision", depth, len(want), got)
			}
			continue
		}
		closeAt := strings.Index(got[open:], " levels…>") + open
		left, err := strconv.Atoi(got[open+len("<…") : closeAt])
		if err != nil || left < 1 {
			t.Fatalf("%d steps: bad count in %.300q", depth, got)
		}
		head, tail := got[:open], got[closeAt+len(" levels…>"):]
		if !strings.HasPrefix(want, head) || !strings.HasSuffix(want, tail) {
			t.Fatalf("%d steps: Path = %.300q is not the whole path's head and tail", depth, got)
		}
		// The head ends at a step's end, and the steps between head and
		// tail are the ones counted.
		headSteps := 0
		for headSteps < depth && ends[headSteps] <= len(head) {
			headSteps++
		}
		if headSteps == 0 || ends[headSteps-1] != len(head) {
			t.Fatalf("%d steps: head %q does not end at a step", depth, head)
		}
		tailFrom := len(want) - len(tail)
		tailSteps := -1
		for k := 1; k < depth; k++ {
			if ends[k-1] == tailFrom {
				tailSteps = depth - k
			}
		}
		if tailSteps < 1 {
			t.Fatalf("%d steps: tail %q does not start at a step", depth, tail)
		}
		if headSteps+left+tailSteps != depth {
			t.Fatalf("%d steps: head %d + left %d + tail %d steps, want %d", depth, headSteps, left, tailSteps, depth)
		}
	}
}

// TestPathEdges: a path of exactly PathBytes is whole, one byte more is
// cut; one step of a long key alone is written whole (its key cut).
func TestPathEdges(t *testing.T) {
	steps := func(n int) func(int) Step { return func(int) Step { return Step{Key: "p"} } }
	// "tools" + n*".p": 5 + 2n bytes.
	n := (PathBytes - 5) / 2
	at := Path("tools", n, steps(n))
	if len(at) > PathBytes || strings.Contains(at, "<…") {
		t.Errorf("%d bytes: %q, want the whole path", len(at), at)
	}
	over := Path("tools", n+1, steps(n+1))
	if !strings.Contains(over, "<…") {
		t.Errorf("%d steps over the budget: %q, want an elision", n+1, over)
	}
	long := strings.Repeat("é", 10*KeyRunes)
	if got, want := Path("", 1, func(int) Step { return Step{Key: long} }), `["`+strings.Repeat("é", KeyRunes)+`…"]`; got != want {
		t.Errorf("one long key: %q, want %q", got, want)
	}
}

// TestKeyPrefixGenerated: KeyPrefix decodes a bounded prefix of a key as
// written, never splitting an escape, and it is the decoded key's first
// characters (the whole key when short); Path cuts it as it cuts the
// whole key.
func TestKeyPrefixGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 3))
	parts := []string{`a`, `\"`, `\\`, `\n`, `\u00e9`, `\ud83d\ude80`, `é`, `\ud83d`, "\xff", `\/`}
	for range 2000 {
		var b strings.Builder
		b.WriteByte('"')
		for range r.IntN(400) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		b.WriteByte('"')
		raw := []byte(b.String())
		whole := unquoteRef(t, raw)
		read := 0
		got := KeyPrefix(raw, func(p []byte) string { read = len(p); return unquoteRef(t, p) })
		if read > 12*(KeyRunes+1)+12+2 {
			t.Fatalf("KeyPrefix decoded %d bytes of a %d-byte key", read, len(raw))
		}
		if !strings.HasPrefix(whole, strings.TrimSuffix(got, "\ufffd")) {
			t.Fatalf("KeyPrefix(%q) = %q, not a prefix of %q", raw, got, whole)
		}
		if ClipKey(got) != ClipKey(whole) && !(len([]rune(whole)) > KeyRunes && strings.HasSuffix(ClipKey(got), "…")) {
			t.Fatalf("KeyPrefix(%q) clips to %q, the whole key to %q", raw, ClipKey(got), ClipKey(whole))
		}
	}
}

// unquoteRef decodes a JSON string as written, as encoding/json does.
func unquoteRef(t *testing.T, raw []byte) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	return s
}
