package yamlpos

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var releaseOpts = Options{Noun: "suite", Empty: "empty", Release: true}

// chunkSizes are the numbers of items a chunk holds that the tests read
// lists with: the default, and chunks of one and two items, so that the
// items of short texts are parsed on several goroutines too.
var chunkSizes = []int{0, 1, 2}

// sameSplit fails unless Read gives for text exactly what the whole-file
// parse gives, whatever the size of its chunks: values, every position,
// flag and number, the count and the errors in order. It reports whether
// Read cut the text into items.
func sameSplit(t testing.TB, text []byte) bool {
	t.Helper()
	whole := readWhole("s.yml", text, releaseOpts)
	cut := make([]bool, len(chunkSizes))
	for i, size := range chunkSizes {
		o := releaseOpts
		o.chunk = size
		cut[i] = sameAsWhole(t, whole, readSplit("s.yml", text, o))
		if cut[i] != cut[0] {
			t.Fatalf("cut %v in chunks of %d items, %v in chunks of %d", cut[i], size, cut[0], chunkSizes[0])
		}
	}
	return cut[0]
}

// sameAsWhole fails unless split, when there is one, is whole; it reports
// whether there is.
func sameAsWhole(t testing.TB, whole, split *Doc) bool {
	t.Helper()
	if split == nil {
		return false
	}
	if !reflect.DeepEqual(whole.Root, split.Root) {
		t.Fatalf("values differ:\nwhole %v\nsplit %v", whole.Root, split.Root)
	}
	if !reflect.DeepEqual(whole.Errs, split.Errs) {
		t.Fatalf("errors differ:\nwhole %s\nsplit %s", errList(whole), errList(split))
	}
	if !reflect.DeepEqual(whole.root, split.root) || !reflect.DeepEqual(whole.nums, split.nums) {
		t.Fatalf("positions differ:\nwhole %+v\nsplit %+v", whole.root, split.root)
	}
	if whole.Len() != split.Len() || whole.Empty != split.Empty || split.Node != nil || split.split != nil {
		t.Fatalf("Len %d and %d, Empty %v and %v", whole.Len(), split.Len(), whole.Empty, split.Empty)
	}
	return true
}

// errList renders the errors of d in order, pointers included.
func errList(d *Doc) string {
	var out []string
	for _, e := range d.Errs {
		out = append(out, e.Error()+" @"+e.Pointer)
	}
	return strings.Join(out, "\n")
}

// TestSplitRead: texts that are cut into items read exactly as they read
// whole, and texts the cut is not sure of are read whole.
func TestSplitRead(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		cut        bool
	}{
		{"tests", "servers: {a: {command: x}}\ntests:\n  - name: a\n    expect: [1, 2.5]\n  - name: b\n\n    n: 0x10\nafter: 1\n", true},
		{"at column 1", "tests:\n- a\n- {b: c}\n-\n  - d\nx: y\n", true},
		{"comments", "# head\ntests: # the list\n  # before\n  - a # one\n# at column 1\n  - b\n  # trailing\nz: 1\n", true},
		{"two lists", "a:\n  - 1\n  - 2\nb: x\nc:\n    - 3\n    -   - 4\n", true},
		{"block scalars", "tests:\n  - |\n    - not an item\n\n    more\n  - >-\n   - folded\n  - k: |2\n      - deep\nz: 1\n", true},
		{"value errors", "tests:\n  - a: 1\n    a: 2\n  - <<: {x: 1}\n  - .inf\n  - [k]: v\n", true},
		{"repeated list key", "tests:\n  - 1\ntests:\n  - 2\n", false},
		{"anchors in an item", "tests:\n  - &a {x: 1}\n  - [&b y, *b]\n", true},
		{"crlf", "tests:\r\n  - a: 1\r\n  - \"b\"\r\nx: 2\r\n", true},
		{"multi-byte", "tests:\n  - é: \"ü\"\n  - '日本': 語\n", true},
		{"tags", "tests:\n  - !!str 1\n  - !x {a: 1}\n", true},
		{"deep item", "tests:\n  - " + strings.Repeat("[", 198) + strings.Repeat("]", 198) + "\n  - " + strings.Repeat("[", 210) + strings.Repeat("]", 210) + "\n", true},
		{"empty values at the ends of items", "tests:\n  - name:\n  - ? x\n  -\n  - a:\n\n  # c\n  - b: \n# d\nz: 1\nl:\n- k:\n-", true},
		{"kept trailing lines", "tests:\n  - a: |+\n      text\n\n  - b: |+\n      more\n\n  # c\n\nz: |+\n  end\n\n", true},
		{"complex keys and anchors", "tests:\n- ? [a, b]\n  : &x {c: 1}\n  d: *x\n- ? |\n    k\n  :\nz: 1\n", true},
		{"last item without a line break", "tests:\n  - a\n  - b: [1,\n     2]", true},
		{"quoted across items", "tests:\n  - \"a\n  - b\"\n", false},
		{"flow across items", "tests:\n  - [a,\n  - b]\n", false},
		{"alias to another item", "tests:\n  - &a x\n  - *a\n", false},
		{"alias in the skeleton", "d: &d {x: 1}\ntests:\n  - 1\nz: *d\n", false},
		{"alias to the list", "tests:\n  - &a 1\nz: *a\n", false},
		{"syntax error in an item", "tests:\n  - a: b: c\n", false},
		{"less indented", "tests:\n    - a\n  - b\n", false},
		{"mapping value", "tests:\n  a: 1\n", false},
		{"flow root", "{\ntests:\n  - a\n}\n", false},
		{"quoted key line", "a: \"x\ntests:\n  - y\"\n", false},
		{"second document", "tests:\n  - a\n---\nb: 1\n", false},
		{"byte order mark", "\ufefftests:\n  - a\n", false},
		{"lone CR", "tests:\n  - a\r  - b\n", false},
		{"tab", "tests:\n\t- a\n", false},
		{"no list", "a: 1\nb: [2]\n", false},
		{"invalid UTF-8", "tests:\n  - \xff\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if cut := sameSplit(t, []byte(tt.text)); cut != tt.cut {
				t.Errorf("cut %v, want %v", cut, tt.cut)
			}
			sameRead(t, []byte(tt.text))
		})
	}
}

// TestSplitCorpus: every suite, catalog and spec of the repository reads
// the same cut into items as whole.
func TestSplitCorpus(t *testing.T) {
	cut := 0
	for _, file := range corpusFiles() {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(file, func(t *testing.T) {
			if sameSplit(t, data) {
				cut++
			}
		})
	}
	t.Logf("%d of %d files cut into items", cut, len(corpusFiles()))
	if cut < 10 {
		t.Errorf("only %d files were cut into items", cut)
	}
}

// corpusFiles lists the YAML files of the repository's test data.
func corpusFiles() []string {
	var out []string
	for _, pattern := range []string{"../../engine/testdata/*/*.yml", "../../examples/*/*.yml", "../../live/testdata/catalogs/*/*", "../../cmd/mcptest/testdata/toolbench/*/*.yml", "../../cmd/mcptest/testdata/*/*.yml"} {
		files, _ := filepath.Glob(pattern)
		out = append(out, files...)
	}
	return out
}

// TestSplitAliasBomb: an alias bomb within an item is refused as whole,
// at the same place.
func TestSplitAliasBomb(t *testing.T) {
	bomb := "tests:\n  - ok\n  - " + strings.ReplaceAll(strings.TrimSuffix(billionLaughs(9), "\n"), "\n", "\n    ") + "\n"
	if !sameSplit(t, []byte(bomb)) {
		t.Fatal("not cut")
	}
	d := Read("s.yml", []byte(bomb), releaseOpts)
	if len(d.Errs) != 1 || !strings.Contains(d.Errs[0].Message, "alias bomb") || d.Errs[0].Pos.String() != "s.yml:7:49" {
		t.Errorf("errors %s", errList(d))
	}
}

// TestSplitLongList: a long list is cut, and its positions are those of
// the lines of the file.
func TestSplitLongList(t *testing.T) {
	var b strings.Builder
	b.WriteString("servers:\n  s: {command: x}\ntests:\n")
	for i := range 500 {
		fmt.Fprintf(&b, "  - name: t%d %s\n    expect:\n      - calls: { \">=\": %d }\n", i, strings.Repeat("x", splitMin/500), i)
	}
	b.WriteString("agents: []\n")
	if b.Len() < splitMin || !sameSplit(t, []byte(b.String())) {
		t.Fatal("not cut")
	}
	d := Read("s.yml", []byte(b.String()), releaseOpts)
	if got := d.At("/tests/499/expect/0/calls/>=").String(); got != "s.yml:1503:24" {
		t.Errorf("At = %s", got)
	}
}

// FuzzSplitRead holds the reading of lists item by item to the whole-file
// parse for any text: the same values, positions and errors.
func FuzzSplitRead(f *testing.F) {
	for _, file := range corpusFiles() {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("tests:\n  - \"a\n  - b\"\n"))
	f.Add([]byte("tests:\n- |\n - x\n- [a,\n - b]\nz: 1\n"))
	f.Add([]byte("a:\n  - &a 1\n  - *a\nb:\n  - 2\n"))
	f.Add([]byte("tests:\r\n  - a: 1\r\n  - b\r\n"))
	f.Add([]byte("tests:\n  - name:\n  - ? x\n  -\n  - a:\n\n  # c\n  - b: \n# d\nz: 1\nl:\n- k:\n-"))
	f.Add([]byte("# c\ntests: # l\n  - name: a # n\n    prompt: |\n      - x\n     # y\n  - name: 'b\n\n    c'\n    expect: {a: [1,\n      2]}\nagents:\n- {name: x}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameSplit(t, data)
	})
}
