package yamlpos

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestChunkCount: a list of n items is parsed in ceil(n/size) chunks of
// size items (32 when the option gives none), on min(GOMAXPROCS, chunks)
// worker goroutines, none when that is 1; each item parses, in order,
// and chunk k holds its own items only, whether the text is held whole
// or packed chunk by chunk (pack.go).
func TestChunkCount(t *testing.T) {
	for _, tc := range []struct {
		procs, items, size int
		chunks             int // 0: no workers
	}{
		{2, 1, 1, 0},
		{2, 2, 1, 2},
		{2, 3, 2, 2},
		{2, 4, 2, 2},
		{2, 5, 2, 3},
		{2, 32, 0, 0},
		{2, 33, 0, 2},
		{2, 63, 32, 2},
		{2, 64, 32, 2},
		{2, 65, 32, 3},
		{3, 65, 32, 3},
		{1, 65, 32, 0},
	} {
		prev := runtime.GOMAXPROCS(tc.procs)
		var b strings.Builder
		b.WriteString("tests:\n")
		for i := range tc.items {
			b.WriteString("  - n" + strings.Repeat("x", i%3) + "\n")
		}
		data := []byte(b.String())
		lists := cutLists(data)
		if len(lists) != 1 || len(lists[0].items) != tc.items {
			t.Fatalf("%d items: cut %+v", tc.items, lists)
		}
		size := tc.size
		if size == 0 {
			size = chunkItems
		}
		for _, src := range []*splitDoc{{data: data}, {packed: pack(data, &lists[0], size)}} {
			c := newChunks(src, &lists[0], tc.size)
			if got := len(c.done); got != tc.chunks {
				t.Errorf("%d items in chunks of %d on %d cores: %d chunks on workers, want %d", tc.items, tc.size, tc.procs, got, tc.chunks)
			}
			for i := range tc.items {
				it := c.item(i)
				if it.n == nil || it.n.Value != "n"+strings.Repeat("x", i%3) {
					t.Errorf("%d items in chunks of %d (packed: %t): item %d is %+v", tc.items, tc.size, src.packed != nil, i, it.n)
					break
				}
			}
			c.stop()
			for k := 0; k*size < tc.items; k++ {
				items, _ := c.parse(k)
				if got, want := len(items), min(size, tc.items-k*size); got != want {
					t.Errorf("%d items in chunks of %d: chunk %d holds %d items, want %d", tc.items, size, k, got, want)
				}
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

// TestChunksAheadBounded: the workers parse at most chunkWindow chunks
// each ahead of the conversion: once the first item is taken, two workers
// have taken 4 chunks of a list of 20, and no more until the conversion
// gives one back by moving to the next chunk.
func TestChunksAheadBounded(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	data := []byte("tests:\n" + strings.Repeat("  - a\n", 20))
	lists := cutLists(data)
	c := newChunks(&splitDoc{data: data}, &lists[0], 1)
	defer c.stop()
	if it := c.item(0); it.n == nil || it.n.Value != "a" {
		t.Fatalf("item 0: %+v", it.n)
	}
	for deadline := time.Now().Add(10 * time.Second); c.taken.Load() < 2*chunkWindow && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if got := c.taken.Load(); got != 2*chunkWindow {
		t.Errorf("%d chunks taken by the workers with the first item converted, want %d", got, 2*chunkWindow)
	}
	c.item(1)
	for deadline := time.Now().Add(10 * time.Second); c.taken.Load() < 2*chunkWindow+1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if got := c.taken.Load(); got != 2*chunkWindow+1 {
		t.Errorf("%d chunks taken by the workers with the second chunk converted, want %d", got, 2*chunkWindow+1)
	}
}

// TestFastItemRefuses: texts fastItem leaves to yaml.v3 (nil), at the
// edges of what it reads: a first line that is not the entry's dash and
// space at the indentation (a line break first, a dash alone, a dash at
// another column, no text at all), a line ending with a space (the last
// one too, without a line break), a nested list's dash alone or without
// its space, a flow collection whose line ends after its bracket.
func TestFastItemRefuses(t *testing.T) {
	for _, tc := range []struct {
		text   string
		indent int
	}{
		{"", 0},
		{"- a ", 0},
		{"- a:\n    b: c ", 0},
		{"\n- a\n", 0},
		{"- k:\n    -\n", 0},
		{"- k:\n    - a\n    -\n", 0},
		{"- k:\n    - a\n    -xy\n", 0},
		{"- k:\n    -xy: 1\n", 0},
		{"- [\n", 0},
		{"- {\n", 0},
		{"- a: [\n", 0},
		{"- a: {\n", 0},
		{"\n\n", 0},
		{"\n", 0},
		{"-\n", 0},
		{"- a\n", 2},
		{"  - a\n", 0},
		{"  -a\n", 2},
		{" x- a\n", 1},
		{"- a: b \n", 0},
		{"- a \n", 0},
		{"- a:\n    b: c \n", 0},
	} {
		if n := fastItem([]byte(tc.text), tc.indent); n != nil {
			t.Errorf("fastItem(%q, %d) read %s, want nil", tc.text, tc.indent, dump(n))
		}
	}
}

// TestFastItemDepth: fastItem reads collections nested MaxDepth deep, as
// yaml.v3 builds them, and leaves one level deeper to yaml.v3.
func TestFastItemDepth(t *testing.T) {
	for _, tc := range []struct {
		depth int
		read  bool
	}{
		{MaxDepth - 1, true},
		{MaxDepth, true},
		{MaxDepth + 1, false},
	} {
		text := "- " + strings.Repeat("[", tc.depth) + strings.Repeat("]", tc.depth) + "\n"
		if got := sameFast(t, []byte(text), 0); got != tc.read {
			t.Errorf("flow lists %d deep: read %v, want %v", tc.depth, got, tc.read)
		}
		text = "- k: " + strings.Repeat("{a: ", tc.depth-2) + "{}" + strings.Repeat("}", tc.depth-2) + "\n"
		if got := sameFast(t, []byte(text), 0); got != tc.read {
			t.Errorf("a mapping and flow mappings %d deep: read %v, want %v", tc.depth, got, tc.read)
		}
	}
}

// TestFastItemSiblingDepth: the depth fastItem counts is the nesting, not
// the number of collections read: MaxDepth+10 sibling mappings, lists and
// flow lists, each one level below the item, are read.
func TestFastItemSiblingDepth(t *testing.T) {
	var mappings, lists, flows strings.Builder
	mappings.WriteString("- ")
	lists.WriteString("- ")
	flows.WriteString("- [")
	for i := range MaxDepth + 10 {
		if i > 0 {
			mappings.WriteString("  ")
			lists.WriteString("  ")
			flows.WriteString(", ")
		}
		fmt.Fprintf(&mappings, "k%d:\n    a: 1\n", i)
		fmt.Fprintf(&lists, "k%d:\n    - a\n", i)
		flows.WriteString("[a]")
	}
	flows.WriteString("]\n")
	for name, text := range map[string]string{"mappings": mappings.String(), "lists": lists.String(), "flow lists": flows.String()} {
		if !sameFast(t, []byte(text), 0) {
			t.Errorf("%d sibling %s: not read", MaxDepth+10, name)
		}
	}
}

// TestFastItemReads: shapes fastItem reads itself, as yaml.v3 builds them,
// at the edges of the rules of its readers: a nested key with a space as
// its second character.
func TestFastItemReads(t *testing.T) {
	for _, text := range []string{
		"- k:\n    a b: c\n",
		"- k:\n    a: b\n    c d: e\n",
	} {
		if !sameFast(t, []byte(text), 0) {
			t.Errorf("%q: not read", text)
		}
	}
}

// TestFastItemKeyLength: fastItem reads a key of maxFastKey bytes, as a
// plain and as a quoted key, and leaves one byte longer to yaml.v3.
func TestFastItemKeyLength(t *testing.T) {
	for _, tc := range []struct {
		text string
		read bool
	}{
		{"- " + strings.Repeat("k", maxFastKey) + ": 1\n", true},
		{"- " + strings.Repeat("k", maxFastKey+1) + ": 1\n", false},
		{"- a: 1\n  " + strings.Repeat("k", maxFastKey) + ": 1\n", true},
		{"- a: 1\n  " + strings.Repeat("k", maxFastKey+1) + ": 1\n", false},
		{"- '" + strings.Repeat("k", maxFastKey-2) + "': 1\n", true},
		{"- '" + strings.Repeat("k", maxFastKey-1) + "': 1\n", false},
	} {
		if got := sameFast(t, []byte(tc.text), 0); got != tc.read {
			t.Errorf("a key of %d bytes: read %v, want %v", len(tc.text)-7, got, tc.read)
		}
	}
}

// TestItemsRootChanged: a held list whose value in Root no longer has one
// slot per item (the caller replaced it) is not handed over.
func TestItemsRootChanged(t *testing.T) {
	for _, replace := range []any{[]any{nil}, []any{nil, nil, nil, nil}, nil, "x"} {
		d := Read("s.yml", []byte("tests:\n  - a\n  - b\n  - c\n"), itemOpts)
		if !d.Held() {
			t.Fatal("the list is not held")
		}
		d.Root.(map[string]any)["tests"] = replace
		if d.Items(func(int, any) bool { t.Error("an item handed over"); return true }) || d.Held() {
			t.Errorf("tests replaced by %v: handed over, or still held", replace)
		}
	}
}

// TestValueAt: a pointer's index is a decimal from 0 to the list's length
// less one; anything else, or a pointer through a scalar, is nil.
func TestValueAt(t *testing.T) {
	root := map[string]any{"l": []any{"a", "b"}, "m": map[string]any{"a/b": 1, "~": 2}, "s": "x"}
	for ptr, want := range map[string]any{
		"": nil, "/l/0": "a", "/l/1": "b", "/l/2": nil, "/l/-1": nil, "/l/x": nil, "/l/": nil,
		"/m/a~1b": 1, "/m/~0": 2, "/s/0": nil, "/nope": nil,
	} {
		got := ValueAt(root, ptr)
		if ptr == "" {
			if _, ok := got.(map[string]any); !ok {
				t.Errorf("ValueAt(root, %q) = %v, want the root", ptr, got)
			}
			continue
		}
		if got != want {
			t.Errorf("ValueAt(root, %q) = %v, want %v", ptr, got, want)
		}
	}
}

// TestDeepLongItem: an item of deepText bytes or more that nests deeper
// than MaxDepth-2 levels is left to the whole-file parse (yaml.v3's own
// depth limit words its error there); one byte shorter, or one level
// less deep, it is read item by item.
func TestDeepLongItem(t *testing.T) {
	for _, tc := range []struct {
		size, depth int
		cut         bool
	}{
		{deepText - 1, 205, true},
		{deepText, 205, false},
		{deepText + 1, 205, false},
		{deepText, MaxDepth - 1, true},
		{deepText, MaxDepth, false},
	} {
		item := "  - " + strings.Repeat("[", tc.depth) + strings.Repeat("]", tc.depth) + "\n"
		pad := "    #" + strings.Repeat("x", tc.size-len(item)-len("    #\n")) + "\n"
		text := "tests:\n" + item + pad
		if got := len(item + pad); got != tc.size {
			t.Fatalf("item of %d bytes, want %d", got, tc.size)
		}
		if cut := sameSplit(t, []byte(text)); cut != tc.cut {
			t.Errorf("an item of %d bytes nested %d deep: cut %v, want %v", tc.size, tc.depth, cut, tc.cut)
		}
	}
}

// TestSplitPlainText: the texts read whole because yaml.v3 breaks their
// lines where the cut does not, or reads them in another encoding: a byte
// order mark before a list, a lone CR first or last; CRLF line ends are
// cut.
func TestSplitPlainText(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		cut        bool
	}{
		{"byte order mark, then a list", "\ufeffa: 1\ntests:\n  - a\n", false},
		{"lone CR first", "\rtests:\n  - a\n", false},
		{"lone CR last", "tests:\n  - a\r", false},
		{"CRLF first", "\r\ntests:\n  - a\n", true},
		{"CRLF, then a lone CR", "\r\ntests:\n  - a\r  - b\n", false},
	} {
		if cut := sameSplit(t, []byte(tc.text)); cut != tc.cut {
			t.Errorf("%s: cut %v, want %v", tc.name, cut, tc.cut)
		}
	}
}

// TestKeyLine: a line at column 1 opens a list only when it is a key and
// nothing else: letters, digits and `_`, with `.` and `-` after the first
// byte, a colon, then only spaces and a comment.
func TestKeyLine(t *testing.T) {
	for line, want := range map[string]bool{
		"tests:": true, "tests: # c": true, "tests:  ": true, "a.b-c:": true, "a_9Z:": true,
		"0:": true, "9:": true, "a:": true, "z:": true, "A:": true, "Z:": true, "_:": true,
		"tests:x": false, "tests: x": false, "a:#": false, ".a:": false, "-a:": false, ":": false,
		"tests": false, "": false, "/:": false, "@:": false, "[:": false, "`:": false, "{:": false,
		"a b:": false, "a/b:": false, ":a": false,
	} {
		if got := keyLine([]byte(line)); got != want {
			t.Errorf("keyLine(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestSplitCutRules: only the lists under a key at column 1 are cut; a
// list under a nested key stays in the skeleton, and the root's list
// after it is cut all the same.
func TestSplitCutRules(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		cut        bool
	}{
		{"a nested key's list, then the root's", "a:\n  x: 1\n  b:\n    - 1\ntests:\n  - x\n", true},
		{"a nested key's list only", "a:\n  x: 1\n  b:\n    - 1\n", false},
	} {
		if cut := sameSplit(t, []byte(tc.text)); cut != tc.cut {
			t.Errorf("%s: cut %v, want %v", tc.name, cut, tc.cut)
		}
	}
}

// TestSplitPlacedRules: a list is cut only when the skeleton reads its key
// line as a key at column 1 of the root mapping; a key line that is text
// of the value before it (a quoted scalar across lines, closed after the
// list) is no key there, however many keys the root has before or after,
// and the text is read whole.
func TestSplitPlacedRules(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		cut        bool
	}{
		{"the key last of the root", "a: x\ntests:\n- y\n", true},
		{"the key between two", "a: x\ntests:\n- y\nz: 1\n", true},
		{"in a quoted value, the only key", "a: \"x\ntests:\n- y\nz\"\n", false},
		{"in a quoted value, after a list found", "tests:\n- 1\nb: \"x\nmore:\n- y\nz\"\n", false},
		{"in a quoted value, before a key", "a: \"x\ntests:\n- y\nz\"\nb: 1\n", false},
	} {
		if cut := sameSplit(t, []byte(tc.text)); cut != tc.cut {
			t.Errorf("%s: cut %v, want %v", tc.name, cut, tc.cut)
		}
		sameRead(t, []byte(tc.text))
	}
}
