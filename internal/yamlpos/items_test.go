package yamlpos

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// itemOpts hold the tests: of a text of any size for Doc.Items.
var itemOpts = Options{Noun: "suite", Empty: "empty", Release: true, Items: "tests", SplitMin: 1}

// sameItems fails unless handing the tests: of text over item by item
// gives what the whole-file parse gives: each item's value and every
// position within it while it is handed over, the rest of the document,
// the count and the errors (in the order of the file: the held list is
// converted last). It reports whether the list was held and every item
// handed over; when an item could not be read on its own, Read without
// Items does not cut the text either.
func sameItems(t testing.TB, text []byte) bool {
	t.Helper()
	held := make([]bool, len(chunkSizes))
	for i, size := range chunkSizes {
		o := itemOpts
		o.chunk = size
		if held[i] = sameItemsIn(t, text, o); held[i] != held[0] {
			t.Fatalf("handed over %v in chunks of %d items, %v in chunks of %d", held[i], size, held[0], chunkSizes[0])
		}
	}
	if held[0] {
		sameUnpacked(t, text)
	}
	return held[0]
}

// sameUnpacked fails unless the held list of text, read with the
// thresholds of Options.UnpackedItems and UnpackedBytes on either side
// of its item count and its length, is kept as it is exactly when both
// allow it (Data the text, nothing to hand over again) and packed
// otherwise, and hands over the same items, positions and errors either
// way.
func sameUnpacked(t testing.TB, text []byte) {
	t.Helper()
	whole := readWhole("s.yml", text, releaseOpts)
	items := len(Read("s.yml", text, itemOpts).split.held.l.items)
	for _, c := range []struct{ items, bytes int }{
		{items, len(text) + 1}, {items - 1, len(text) + 1}, {items, len(text)}, {items + 1, 1 << 30}, {0, 0},
	} {
		o := itemOpts
		o.UnpackedItems, o.UnpackedBytes = c.items, c.bytes
		unpacked := items <= c.items && len(text) < c.bytes
		d := Read("s.yml", text, o)
		if !d.Held() {
			t.Fatalf("thresholds %d items %d bytes: not held", c.items, c.bytes)
		}
		if got := d.Packed() == nil && d.Again() == nil && bytes.Equal(d.Data, text); got != unpacked {
			t.Fatalf("thresholds %d items %d bytes, %d items of %d bytes: kept as it is %v, want %v", c.items, c.bytes, items, len(text), got, unpacked)
		}
		if !bytes.Equal(d.Text(), text) {
			t.Fatalf("thresholds %d items %d bytes: Text differs from the text read", c.items, c.bytes)
		}
		if !sameHandedOver(t, whole, d, text) {
			t.Fatalf("thresholds %d items %d bytes: the items were not handed over", c.items, c.bytes)
		}
	}
}

// sameItemsIn is sameItems reading with o.
func sameItemsIn(t testing.TB, text []byte, o Options) bool {
	t.Helper()
	whole := readWhole("s.yml", text, releaseOpts)
	d := Read("s.yml", text, o)
	if !d.Held() {
		if !reflect.DeepEqual(whole.Root, d.Root) || d.split != nil {
			t.Fatalf("not held, and the values differ:\nwhole %v\nread  %v", whole.Root, d.Root)
		}
		return false
	}
	if d.Data != nil || !bytes.Equal(d.Text(), text) {
		t.Fatalf("held: Data %d bytes, Text %q, want nil and the text", len(d.Data), d.Text())
	}
	again := d.Again()
	if !sameHandedOver(t, whole, d, text) {
		return false
	}
	// The reader hands the items over again, from the text it keeps
	// packed, taken before the first pass and after it.
	if !sameHandedOver(t, whole, again, text) || !sameHandedOver(t, whole, d.Again(), text) {
		t.Fatal("Again: the items were not handed over again")
	}
	return true
}

// sameHandedOver fails unless the items d hands over, the rest of its
// values, their positions and its errors are those of whole; it reports
// false when Items could not hand them over.
func sameHandedOver(t testing.TB, whole, d *Doc, text []byte) bool {
	t.Helper()
	wroot, _ := whole.Root.(map[string]any)
	wtests, _ := wroot["tests"].([]any)
	ptrs := pointers(whole)
	n := 0
	ok := d.Items(func(i int, v any) bool {
		if i != n {
			t.Fatalf("item %d handed over as %d", n, i)
		}
		n++
		if whole.Root == nil {
			return true // a syntax error: Items must fail
		}
		if i >= len(wtests) || !reflect.DeepEqual(wtests[i], v) {
			t.Fatalf("item %d: %v, whole %v", i, v, wtests)
		}
		item := "/tests/" + strconv.Itoa(i)
		for _, p := range ptrs {
			if p == item || strings.HasPrefix(p, item+"/") {
				samePlace(t, whole, d, p)
			}
		}
		return true
	})
	if !ok {
		if readSplit("s.yml", text, releaseOpts) != nil {
			t.Fatal("Items failed on a text Read cuts into items")
		}
		return false
	}
	if n != len(wtests) || d.Held() {
		t.Fatalf("%d items handed over of %d; held after: %v", n, len(wtests), d.Held())
	}
	rest, wrest := without(d.Root), without(whole.Root)
	if !reflect.DeepEqual(rest, wrest) {
		t.Fatalf("values differ:\nwhole %v\nitems %v", wrest, rest)
	}
	for _, p := range ptrs {
		if !strings.HasPrefix(p, "/tests/") || strings.Count(p, "/") == 2 {
			samePlace(t, whole, d, p)
		}
	}
	if d.Len() != whole.Len() || d.Empty != whole.Empty || d.Node != nil {
		t.Fatalf("Len %d and %d", whole.Len(), d.Len())
	}
	sameErrs(t, whole.Errs, d.Errs)
	return true
}

// samePlace fails unless d and whole agree on what they know of the
// value at ptr.
func samePlace(t testing.TB, whole, d *Doc, ptr string) {
	t.Helper()
	wn, wok := whole.Number(ptr)
	dn, dok := d.Number(ptr)
	wi, wexact := whole.Int(ptr)
	di, dexact := d.Int(ptr)
	if whole.At(ptr) != d.At(ptr) || whole.KeyAt(ptr) != d.KeyAt(ptr) || whole.IsKey(ptr) != d.IsKey(ptr) ||
		whole.Quoted(ptr) != d.Quoted(ptr) || whole.QuotedKey(ptr) != d.QuotedKey(ptr) {
		t.Fatalf("%s: at %v (key %v), whole at %v (key %v)", ptr, d.At(ptr), d.KeyAt(ptr), whole.At(ptr), whole.KeyAt(ptr))
	}
	if strings.Count(ptr, "/") == 2 && strings.HasPrefix(ptr, "/tests/") {
		return // an item handed over: its number is dropped with it
	}
	if wn != dn || wok != dok || wi != di || wexact != dexact {
		t.Fatalf("%s: number %q %v %d %v, whole %q %v %d %v", ptr, dn, dok, di, dexact, wn, wok, wi, wexact)
	}
}

// without is the root mapping v without tests:.
func without(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, x := range m {
		if k != "tests" {
			out[k] = x
		}
	}
	return out
}

// sameErrs fails unless a and b hold the same errors, in the order of
// the file; when the aliases expand past the limit, the alias named may
// differ (the values are converted in another order), not the count.
func sameErrs(t testing.TB, a, b diag.List) {
	t.Helper()
	render := func(l diag.List) string {
		var out []string
		for _, e := range l.Sorted() {
			msg := e.Error() + " @" + e.Pointer
			if strings.Contains(e.Message, "alias bomb") {
				msg = "alias bomb"
			}
			out = append(out, msg)
		}
		return strings.Join(out, "\n")
	}
	if ra, rb := render(a), render(b); ra != rb || len(a) != len(b) {
		t.Fatalf("errors differ:\nwhole %s\nitems %s", ra, rb)
	}
}

// TestItems: the tests: of texts that are cut into items are handed over
// one by one, exactly as they read whole; texts the cut is not sure of,
// and other values of tests:, are read as without Items.
func TestItems(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		held       bool
	}{
		{"tests", "servers: {a: {command: x}}\ntests:\n  - name: a\n    expect: [1, 2.5]\n  - name: b\n\n    n: 0x10\nafter: 1\n", true},
		{"tests first, numbers after", "tests:\n- 1\n- {b: 2}\n-\n  - 3\nx: [4, 5]\nagents:\n  - 6\n", true},
		{"other lists", "agents:\n  - 1\n  - [&a x, *a]\ntests:\n  - 2\nz:\n  - 3\n", true},
		{"value errors", "tests:\n  - a: 1\n    a: 2\n  - <<: {x: 1}\n  - .inf\n  - [k]: v\nz: .nan\n", true},
		{"anchors in an item", "tests:\n  - &a {x: 1}\n  - [&b y, *b]\n", true},
		{"empty values at the ends of items", "tests:\n  - name:\n  - ? x\n  -\n  - a:\n\n  # c\n  - b: \n# d\nz: 1\nl:\n- k:\n-", true},
		{"repeated list key", "tests:\n  - 1\ntests:\n  - 2\n", false},
		{"tests not a list", "tests: {a: 1}\nagents:\n  - 1\n", false},
		{"tests a flow list", "tests: [1, 2]\nagents:\n  - 1\n", false},
		{"alias to another item", "tests:\n  - &a x\n  - *a\n", false},
		{"syntax error in an item", "tests:\n  - a: b: c\n", false},
		{"quoted across items", "tests:\n  - \"a\n  - b\"\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if held := sameItems(t, []byte(tt.text)); held != tt.held {
				t.Errorf("held and handed over %v, want %v", held, tt.held)
			}
		})
	}
}

// TestItemsOnce: Items hands the list over once, and a hand that stops
// leaves the document incomplete; Read under the size that cuts holds
// nothing.
func TestItemsOnce(t *testing.T) {
	text := []byte("tests:\n  - a\n  - b\n  - c\n")
	d := Read("s.yml", text, itemOpts)
	var got []any
	if d.Items(func(i int, v any) bool { got = append(got, v); return i < 1 }) || fmt.Sprint(got) != "[a b]" {
		t.Errorf("stopped after %v", got)
	}
	if d.Held() || d.Items(func(int, any) bool { return true }) {
		t.Error("handed over twice")
	}
	o := itemOpts
	o.SplitMin = 0
	if d := Read("s.yml", text, o); d.Held() || fmt.Sprint(d.Root) != "map[tests:[a b c]]" {
		t.Errorf("a small text held: %v", d.Root)
	}
}

// TestItemsCorpus: every suite, catalog and spec of the repository hands
// its tests: over as it reads whole.
func TestItemsCorpus(t *testing.T) {
	held := 0
	for _, file := range corpusFiles() {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(file, func(t *testing.T) {
			if sameItems(t, data) {
				held++
			}
		})
	}
	t.Logf("%d of %d files handed over their tests: item by item", held, len(corpusFiles()))
	if held < 5 {
		t.Errorf("only %d files were", held)
	}
}

// FuzzItems holds handing tests: over item by item to the whole-file
// parse for any text.
func FuzzItems(f *testing.F) {
	for _, file := range corpusFiles() {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("agents:\n  - [&a x, *a]\ntests:\n  - [1, 2]\n  - n: 0x1F\n    m: .inf\nz: [3]\n"))
	f.Add([]byte("tests:\n  - name:\n  - ? x\n  -\n  - a:\n\n  # c\n  - b: \n# d\nz: 1\nl:\n- k:\n-"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameItems(t, data)
	})
}

// TestPackedText: a document whose list Read holds lets its text go and
// keeps it compressed chunk by chunk, a small part of it for items written
// alike (under a fifth here), and puts it back together byte for byte:
// Text, Packed, and the items handed over again.
func TestPackedText(t *testing.T) {
	var b strings.Builder
	b.WriteString("servers:\n  s: {command: [x]}\ntests:\n")
	for i := range 1200 {
		fmt.Fprintf(&b, "  - name: test %d\n    type: agent\n    cassette: cassettes/c-%05d.json\n    expect:\n      - tool_names: { contains: s.tool_%d }\n", i, i, i%7)
	}
	b.WriteString("# the end\nz: 1\n")
	text := []byte(b.String())
	d := Read("s.yml", text, itemOpts)
	if !d.Held() || d.Data != nil {
		t.Fatalf("held %v, Data %d bytes", d.Held(), len(d.Data))
	}
	p := d.packed
	size := len(p.head) + len(p.tail) + len(p.dict)
	for _, c := range p.chunks {
		size += len(c)
	}
	if size > len(text)/5 || len(p.chunks) != 1200/chunkItems+1 {
		t.Errorf("%d bytes of text kept in %d bytes, %d chunks", len(text), size, len(p.chunks))
	}
	if !bytes.Equal(d.Text(), text) || !bytes.Equal(d.Packed().Bytes(), text) {
		t.Error("the text put back together differs from the text read")
	}
	if !sameHandedOver(t, readWhole("s.yml", text, releaseOpts), d.Again(), text) {
		t.Error("the items were not handed over again")
	}
	short := itemOpts
	short.SplitMin = 0 // a text under 64 KiB is read whole
	if plain := Read("s.yml", []byte("tests:\n  - a\n"), short); plain.Packed() != nil || plain.Again() != nil || string(plain.Text()) != "tests:\n  - a\n" {
		t.Error("a short text is kept as it is, with nothing to hand over again")
	}
}

// TestPackSameOnEveryCore: the packed text of drawn lists (1 to 400
// items of drawn lengths and words, chunks of 1 to 40 items) is the same,
// byte for byte, packed on one core and on four (its chunks compressed on
// several goroutines), and puts the text back together.
func TestPackSameOnEveryCore(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 29))
	words := []string{"name", "type: agent", "cassette: c/x.json", "expect:", "- tool_names: { contains: s.t }", "é ü", "# note"}
	for d := range 40 {
		var b strings.Builder
		b.WriteString("servers:\n  s: {command: [x]}\ntests:\n")
		items := 1 + rng.IntN(400)
		for i := range items {
			fmt.Fprintf(&b, "  - name: test %d\n", i)
			for range rng.IntN(6) {
				fmt.Fprintf(&b, "    %s\n", words[rng.IntN(len(words))])
			}
		}
		if rng.IntN(2) == 0 {
			b.WriteString("z: 1\n")
		}
		text := []byte(b.String())
		lists := cutLists(text)
		if len(lists) == 0 {
			continue
		}
		l := &lists[len(lists)-1]
		size := 1 + rng.IntN(40)
		packed := func(procs int) *packedText {
			prev := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(prev)
			return pack(text, l, size)
		}
		one, four := packed(1), packed(4)
		same := bytes.Equal(one.head, four.head) && bytes.Equal(one.tail, four.tail) && bytes.Equal(one.dict, four.dict) && len(one.chunks) == len(four.chunks)
		for k := range one.chunks {
			same = same && bytes.Equal(one.chunks[k], four.chunks[k])
		}
		if !same {
			t.Fatalf("draw %d (%d items, chunks of %d): packed on four cores differs from one", d, items, size)
		}
		if got := four.text(); !bytes.Equal(got, text) {
			t.Fatalf("draw %d: the text put back together differs", d)
		}
	}
}
