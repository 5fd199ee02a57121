package yamlpos

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
)

var opts = Options{Noun: "suite", Empty: "empty"}

func errLines(l diag.List) string {
	var out []string
	for _, e := range l.Sorted() {
		out = append(out, e.Error())
	}
	return strings.Join(out, "\n")
}

func TestReadPositions(t *testing.T) {
	d := Read("s.yml", []byte("a:\n  \"b/c\": 'x'\n  n: 0x10\nl: [1, 2.5, true, ~]\n"), opts)
	if len(d.Errs) > 0 {
		t.Fatal(d.Errs)
	}
	for ptr, want := range map[string]string{"/a": "s.yml:2:3", "/a/b~1c": "s.yml:2:10", "/l/1": "s.yml:4:8", "/l/9": "s.yml:4:4", "": "s.yml:1:1"} {
		if got := d.At(ptr).String(); got != want {
			t.Errorf("At(%q) = %s, want %s", ptr, got, want)
		}
	}
	if got := d.KeyAt("/a/b~1c").String(); got != "s.yml:2:3" {
		t.Errorf("KeyAt = %s", got)
	}
	if !d.Quoted("/a/b~1c") || !d.QuotedKey("/a/b~1c") || d.Quoted("/a/n") {
		t.Error("quoting not recorded")
	}
	if n, _ := d.Number("/a/n"); n != "0x10" {
		t.Errorf("Number = %q", n)
	}
	if i, ok := d.Int("/a/n"); !ok || i != 16 {
		t.Errorf("Int = %d, %v", i, ok)
	}
	if got := fmt.Sprint(d.Value("/l")); got != "[1 2.5 true <nil>]" {
		t.Errorf("Value(/l) = %s", got)
	}
	if d.Len() != 9 {
		t.Errorf("Len = %d, want 9", d.Len())
	}
}

// TestReadCollectsEveryError: the problems of the values are all
// reported, each at its place, not only the first.
func TestReadCollectsEveryError(t *testing.T) {
	d := Read("s.yml", []byte("a: 1\na: 2\nb:\n  <<: {x: 1}\n  [k]: v\nc: .inf\nb: 3\n"), opts)
	want := `s.yml:2:1: key "a" is repeated: it was already set at line 1 [syntax]
s.yml:4:3: merge keys (<<) are not supported: write the keys out [syntax]
s.yml:5:3: a mapping key must be a plain string [syntax]
s.yml:6:4: ".inf" is not a finite number [syntax]
s.yml:7:1: key "b" is repeated: it was already set at line 3 [syntax]`
	if got := errLines(d.Errs); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "s.yml:1:1: empty [syntax]"},
		{"a: [1\n", "s.yml:1:1: invalid YAML: did not find expected ',' or ']'"},
		{"a: 1\n---\nb: 2\n", "s.yml:2:1: a second YAML document: a suite is one document, remove the `---` separator [syntax]"},
		{"a: b\x01\n", `s.yml:1:5: invalid YAML: the control character U+0001 is not allowed in YAML`},
		{"a:\n  b: \xff\n", "s.yml:2:6: invalid YAML: invalid UTF-8: the byte 0xff does not start a UTF-8 character; save the suite as UTF-8 [syntax]"},
		{strings.Repeat("[", 20000), ": the suite nests its values deeper than YAML allows [syntax]"},
		// A tab in the indentation was "found character that cannot start
		// any token" at column 1, which does not say what the character is.
		{"agents:\n  \t- name: a\n", "s.yml:2:3: invalid YAML: found character that cannot start any token: a tab in the indentation, and YAML indents with spaces only [syntax]"},
	} {
		_, errs := Parse("s.yml", []byte(tt.in), opts)
		if got := errLines(errs); !strings.Contains(got, tt.want) {
			t.Errorf("%.20q: got %s, want %s", tt.in, got, tt.want)
		}
	}
	o := Options{Noun: "catalog", Kind: "catalog", Syntax: "invalid YAML or JSON", Empty: "empty"}
	if _, errs := Parse("c.yml", []byte("tools: [\n"), o); !strings.HasPrefix(errLines(errs), "c.yml:1:1: invalid YAML or JSON: ") || errs[0].Kind != "catalog" {
		t.Errorf("options not applied: %v", errs)
	}
}

// billionLaughs is a document whose last alias expands to 10^levels
// values.
func billionLaughs(levels int) string {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// TestAliasBomb: a billion-laughs document is refused quickly, with one
// positioned error, and within a bounded number of values.
func TestAliasBomb(t *testing.T) {
	start := time.Now()
	d := Read("bomb.yml", []byte(billionLaughs(9)), opts)
	if el := time.Since(start); el > time.Second {
		t.Errorf("took %v", el)
	}
	got := errLines(d.Errs)
	if !strings.HasPrefix(got, "bomb.yml:") || !strings.Contains(got, "aliases expand the suite to over 100000 values (an alias bomb?)") || strings.Count(got, "\n") != 0 {
		t.Errorf("got %s", got)
	}
	if d.Errs[0].Pos.Line < 1 || d.Errs[0].Pointer == "" {
		t.Errorf("not positioned: %+v", d.Errs[0])
	}
	if d.Len() > MaxAliasValues+1000 {
		t.Errorf("%d values recorded", d.Len())
	}
	// Aliases within the budget expand.
	d = Read("ok.yml", []byte(billionLaughs(3)), opts)
	if len(d.Errs) > 0 || len(d.Value("/l3/9/9/9").([]any)) != 10 {
		t.Errorf("errors %v", d.Errs)
	}
}

// TestPlainValuesUnbounded: plain values do not count against the alias
// budget; only the size of the file bounds them.
func TestPlainValuesUnbounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("shared: &s {calls: 1}\nitems:\n")
	for i := 0; i < MaxAliasValues+10; i++ {
		fmt.Fprintf(&b, "  - %d\n", i)
	}
	b.WriteString("  - *s\n")
	d := Read("big.yml", []byte(b.String()), opts)
	if len(d.Errs) > 0 || d.Len() < MaxAliasValues+10 {
		t.Errorf("%d values, errors %v", d.Len(), d.Errs)
	}
}

func TestRecursiveAlias(t *testing.T) {
	d := Read("r.yml", []byte("a: &a [b, *a]\n"), opts)
	if len(d.Errs) == 0 || d.Errs[0].Pos.Line < 1 {
		t.Errorf("errors %v", d.Errs)
	}
}

func TestUnknownKeys(t *testing.T) {
	d := Read("spec.yml", []byte("catalogue: []\nintents: []\nmutatons: []\nzzz: 1\n"), opts)
	got := errLines(d.UnknownKeys("", "spec", []string{"catalog", "catalog_path", "intents", "mutations"}, "tool-bench"))
	want := `spec.yml:1:1: unexpected key "catalogue" for "spec" section. expected one of "catalog", "catalog_path", "intents", "mutations" (did you mean ` + "`catalog`" + `?) [tool-bench]
spec.yml:3:1: unexpected key "mutatons" for "spec" section. expected one of "catalog", "catalog_path", "intents", "mutations" (did you mean ` + "`mutations`" + `?) [tool-bench]
spec.yml:4:1: unexpected key "zzz" for "spec" section. expected one of "catalog", "catalog_path", "intents", "mutations" [tool-bench]`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if d.UnknownKeys("/intents", "intents", nil, "x") != nil {
		t.Error("a list has no keys")
	}
}

// TestCount: Count agrees with what Read decodes, aliases included, and
// an empty text is no error when Options.Empty is "".
func TestCount(t *testing.T) {
	for _, text := range []string{"a: 1\n", "a: [1, {b: c}]\nd: ~\n", billionLaughs(3), billionLaughs(9), "a: &a [b, *a]\n", "- x\n- [y, z]\n"} {
		d := Read("c.yml", []byte(text), Options{})
		if d.Node == nil {
			t.Fatalf("%.30q: %v", text, d.Errs)
		}
		if got := Count(d.Node); got != d.Len() {
			t.Errorf("%.30q: Count %d, Read decoded %d", text, got, d.Len())
		}
	}
	if root, errs := Parse("c.yml", []byte("# only a comment\n"), Options{}); root != nil || errs != nil {
		t.Errorf("empty text: %v, %v", root, errs)
	}
}

// TestPositionsByPointer: every value's pointer finds the value's own
// node, including keys that need escaping, and pointers that name no
// value fall back as they should.
func TestPositionsByPointer(t *testing.T) {
	d := Read("p.yml", []byte("z: 1\n\"a/b\": {\"~\": [x, 'y']}\nm: &m {k: 2}\nr: *m\n"), opts)
	if len(d.Errs) > 0 {
		t.Fatal(d.Errs)
	}
	for ptr, want := range map[string]string{"/z": "p.yml:1:4", "/a~1b/~0/1": "p.yml:2:18", "/a~1b/~0/01": "p.yml:2:14", "/a~1b/~2": "p.yml:2:8",
		"/r/k": "p.yml:3:11", "/r": "p.yml:3:4", "nope": "p.yml:1:1", "/a~1b/~0/1/deeper": "p.yml:2:18"} {
		if got := d.At(ptr).String(); got != want {
			t.Errorf("At(%q) = %s, want %s", ptr, got, want)
		}
	}
	if !d.Quoted("/a~1b/~0/1") || d.Quoted("/a~1b/~0/0") || !d.QuotedKey("/a~1b/~0") || !d.IsKey("/r/k") || d.IsKey("/a~1b/~0/0") {
		t.Error("flags not found by pointer")
	}
	if i, ok := d.Int("/r/k"); !ok || i != 2 {
		t.Errorf("Int through an alias = %d, %v", i, ok)
	}
	if d.Len() != 10 || len(pointers(d)) != 10 {
		t.Errorf("Len = %d, pointers %v", d.Len(), pointers(d))
	}
}

// sameRead fails unless reading text with Options.Release decodes the
// same values, positions and errors as reading it without.
func sameRead(t *testing.T, text []byte) {
	t.Helper()
	kept := Read("r.yml", text, opts)
	o := opts
	o.Release = true
	dropped := Read("r.yml", text, o)
	if dropped.Node != nil {
		t.Fatal("Release kept the nodes")
	}
	if a, b := fmt.Sprint(kept.Root), fmt.Sprint(dropped.Root); a != b {
		t.Fatalf("values differ:\n%s\n%s", a, b)
	}
	if a, b := errLines(kept.Errs), errLines(dropped.Errs); a != b || kept.Len() != dropped.Len() {
		t.Fatalf("errors or lengths differ:\n%s\n%s\n%d %d", a, b, kept.Len(), dropped.Len())
	}
	for _, ptr := range pointers(kept) {
		if kept.At(ptr) != dropped.At(ptr) || kept.KeyAt(ptr) != dropped.KeyAt(ptr) {
			t.Fatalf("%s: at %v, %v", ptr, kept.At(ptr), dropped.At(ptr))
		}
	}
}

// TestReleaseSameDoc: dropping the nodes as they are converted changes
// nothing, anchors and aliases included.
func TestReleaseSameDoc(t *testing.T) {
	for _, text := range []string{
		"a: &a {b: [1, &c {d: e}], f: *c}\ng: *a\nh: [*a, *c]\n",
		"l: [&x [1, [2, 3]], *x, {y: *x}]\n",
		billionLaughs(3), billionLaughs(9), "a: &a [b, *a]\n", "a: 1\na: 2\n",
	} {
		sameRead(t, []byte(text))
	}
}
