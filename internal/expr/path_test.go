package expr_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
)

func field(name string) expr.Segment { return expr.Segment{Kind: expr.Field, Name: name} }
func key(name string) expr.Segment   { return expr.Segment{Kind: expr.Key, Name: name} }
func index(i int) expr.Segment       { return expr.Segment{Kind: expr.Index, Index: i} }

type pathCase struct {
	in    string
	segs  []expr.Segment
	canon string // String() of the parsed path; "" means the same as in
}

// validPaths are targets that parse, with their segments and canonical
// text. FuzzParsePath is seeded from them.
func validPaths() []pathCase {
	return []pathCase{
		{in: "a", segs: []expr.Segment{field("a")}},
		{in: "tool_selection.f1", segs: []expr.Segment{field("tool_selection"), field("f1")}},
		{in: "result.content[0].text", segs: []expr.Segment{field("result"), field("content"), index(0), field("text")}},
		{in: `tool["read_file"].score`, segs: []expr.Segment{field("tool"), key("read_file"), field("score")}},
		{in: "state.inventory.widgets", segs: []expr.Segment{field("state"), field("inventory"), field("widgets")}},
		{in: `calls[2].arguments["api-key"]`, segs: []expr.Segment{field("calls"), index(2), field("arguments"), key("api-key")}},
		{in: "_x-y.Z9_-", segs: []expr.Segment{field("_x-y"), field("Z9_-")}},
		{in: `a[0][12]["k"][3]`, segs: []expr.Segment{field("a"), index(0), index(12), key("k"), index(3)}},
		{in: "a[007]", segs: []expr.Segment{field("a"), index(7)}, canon: "a[7]"},
		{in: `a['b']`, segs: []expr.Segment{field("a"), key("b")}, canon: `a["b"]`},
		{in: `a['it\'s']`, segs: []expr.Segment{field("a"), key("it's")}, canon: `a["it's"]`},
		{in: `a['say "hi"']`, segs: []expr.Segment{field("a"), key(`say "hi"`)}, canon: `a["say \"hi\""]`},
		{in: `a["say \"hi\""]`, segs: []expr.Segment{field("a"), key(`say "hi"`)}},
		{in: `a["it\'s"]`, segs: []expr.Segment{field("a"), key("it's")}, canon: `a["it's"]`},
		{in: `a["back\\slash"]`, segs: []expr.Segment{field("a"), key(`back\slash`)}},
		{in: `a["tab\there"]`, segs: []expr.Segment{field("a"), key("tab\there")}},
		{in: `a["\u00e9t\u00e9"]`, segs: []expr.Segment{field("a"), key("été")}, canon: `a["été"]`},
		{in: `a["\xff"]`, segs: []expr.Segment{field("a"), key("\xff")}},
		{in: `a["with space"].b`, segs: []expr.Segment{field("a"), key("with space"), field("b")}},
		{in: `a[""]`, segs: []expr.Segment{field("a"), key("")}},
		{in: `a["a.b[0]"]`, segs: []expr.Segment{field("a"), key("a.b[0]")}},
	}
}

func TestParsePath(t *testing.T) {
	for _, tc := range validPaths() {
		t.Run(tc.in, func(t *testing.T) {
			p, err := expr.ParsePath(tc.in)
			if err != nil {
				t.Fatalf("ParsePath(%q): %v", tc.in, err)
			}
			if got := p.Segments(); !slices.Equal(got, tc.segs) {
				t.Errorf("ParsePath(%q).Segments() = %+v, want %+v", tc.in, got, tc.segs)
			}
			canon := tc.canon
			if canon == "" {
				canon = tc.in
			}
			if got := p.String(); got != canon {
				t.Errorf("ParsePath(%q).String() = %q, want %q", tc.in, got, canon)
			}
			again, err := expr.ParsePath(p.String())
			if err != nil {
				t.Fatalf("ParsePath(%q) of String(): %v", p.String(), err)
			}
			if !slices.Equal(again.Segments(), p.Segments()) {
				t.Errorf("round trip of %q gave %+v, want %+v", tc.in, again.Segments(), p.Segments())
			}
		})
	}
}

type pathErrorCase struct {
	in     string
	offset int
	msg    string // the whole Error() text
}

// invalidPaths are targets that do not parse, with the error they give.
func invalidPaths() []pathErrorCase {
	return []pathErrorCase{
		{"", 0, `empty target at column 1 in target "": expected a field name, such as result.content[0].text`},
		{"a.b]", 3, `unexpected "]" at column 4 in target "a.b]": expected .field, [index], ["key"] or the end of the target`},
		{"[0]", 0, `unexpected "[" at column 1 in target "[0]": a target starts with a field name, such as result or tool_selection`},
		{"1a", 0, `unexpected "1" at column 1 in target "1a": a target starts with a field name, such as result or tool_selection`},
		{"a.", 2, `unexpected end at column 3 in target "a.": expected a field name after "."`},
		{"a..b", 2, `unexpected "." at column 3 in target "a..b": expected a field name after "."`},
		{"a.[0]", 2, `unexpected "[" at column 3 in target "a.[0]": expected a field name after "."; an index or key follows without a dot, as in a[0] or a["key"]`},
		{"a.0", 2, `unexpected "0" at column 3 in target "a.0": expected a field name after "."; an index or key follows without a dot, as in a[0] or a["key"]`},
		{"a[", 2, `unexpected end at column 3 in target "a[": expected an index such as [0] or a quoted key such as ["name"]`},
		{"a[]", 2, `unexpected "]" at column 3 in target "a[]": expected an index such as [0] or a quoted key such as ["name"]`},
		{"a[0", 3, `unexpected end at column 4 in target "a[0": expected "]" to close the "[" at column 2`},
		{"a[0x]", 3, `unexpected "x" at column 4 in target "a[0x]": expected "]" to close the "[" at column 2`},
		{`a["k"`, 5, `unexpected end at column 6 in target "a[\"k\"": expected "]" to close the "[" at column 2`},
		{"a[-1]", 2, `negative index "-1" at column 3 in target "a[-1]": indexes count from 0 at the start of the list`},
		{"a[b]", 2, `unquoted key "b" at column 3 in target "a[b]": a key in brackets is quoted, as in ["b"]`},
		{"a[99999999999999999999]", 2, `index 99999999999999999999 is too large at column 3 in target "a[99999999999999999999]"`},
		{`a["b`, 4, `unexpected end at column 5 in target "a[\"b": the key quoted at column 3 is never closed; end it with "`},
		{`a['b`, 4, `unexpected end at column 5 in target "a['b": the key quoted at column 3 is never closed; end it with '`},
		{`a["b\`, 5, `unexpected end at column 6 in target "a[\"b\\": the key quoted at column 3 is never closed; end it with "`},
		{`a["b\q"]`, 4, `invalid escape "\\q" at column 5 in target "a[\"b\\q\"]": inside quotes write \" for a quote, \\ for a backslash, or a Go escape such as \n or \u00e9`},
		{"a b", 1, `unexpected whitespace " " at column 2 in target "a b": whitespace is allowed only inside quoted keys`},
		{"a[ 0]", 2, `unexpected whitespace " " at column 3 in target "a[ 0]": whitespace is allowed only inside quoted keys`},
		{"a.b\n", 3, `unexpected whitespace "\n" at column 4 in target "a.b\n": whitespace is allowed only inside quoted keys`},
		{"é.a", 0, `unexpected "é" at column 1 in target "é.a": a target starts with a field name, such as result or tool_selection`},
		{`a["é"]x`, 6, `unexpected "x" at column 7 in target "a[\"é\"]x": expected .field, [index], ["key"] or the end of the target`},
		{"a\xff", 1, `unexpected "\xff" at column 2 in target "a\xff": expected .field, [index], ["key"] or the end of the target`},
	}
}

func TestParsePathErrors(t *testing.T) {
	for _, tc := range invalidPaths() {
		t.Run(tc.in, func(t *testing.T) {
			_, err := expr.ParsePath(tc.in)
			var se *expr.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ParsePath(%q) error = %v, want a *SyntaxError", tc.in, err)
			}
			if se.Offset != tc.offset {
				t.Errorf("ParsePath(%q) Offset = %d, want %d", tc.in, se.Offset, tc.offset)
			}
			if se.Input != tc.in {
				t.Errorf("ParsePath(%q) Input = %q", tc.in, se.Input)
			}
			if got := err.Error(); got != tc.msg {
				t.Errorf("ParsePath(%q) error\n got: %s\nwant: %s", tc.in, got, tc.msg)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	doc := decode(t, `{
		"tool_selection": {"f1": 80, "precision": 0.5},
		"result": {"content": [{"type": "text", "text": "ok"}, {"type": "image"}]},
		"tool": {"read_file": {"score": 3}},
		"calls": [{}, {}, {"arguments": {"api-key": "k", "nested": [[1, 2], [3]]}}],
		"nothing": null,
		"a.b": "dotted key"
	}`)
	tests := []struct {
		path   string
		want   any
		wantOK bool
	}{
		{"tool_selection.f1", 80.0, true},
		{"tool_selection.precision", 0.5, true},
		{"result.content[0].text", "ok", true},
		{"result.content[1].type", "image", true},
		{`tool["read_file"].score`, 3.0, true},
		{`calls[2].arguments["api-key"]`, "k", true},
		{`calls[2].arguments.nested[0][1]`, 2.0, true},
		{`calls[2]["arguments"].nested[1]`, []any{3.0}, true},
		{"nothing", nil, true},
		{`tool_selection`, map[string]any{"f1": 80.0, "precision": 0.5}, true},
		{`a["a.b"]`, nil, false},               // a is missing
		{"result.content[2]", nil, false},      // out of range
		{"result.content[1].text", nil, false}, // key missing
		{"result.content.text", nil, false},    // a list is not a map
		{"result[0]", nil, false},              // a map is not a list
		{"tool_selection.f1.x", nil, false},    // a number has no fields
		{"nothing.x", nil, false},              // null has no fields
		{"missing", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			p, err := expr.ParsePath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := p.Lookup(doc)
			if ok != tc.wantOK {
				t.Fatalf("Lookup ok = %v, want %v (value %#v)", ok, tc.wantOK, got)
			}
			if ok {
				if m, _ := expr.ParseMatcher(map[string]any{"exact": tc.want}); m != nil {
					if pass, msg := m.Match(got, true); !pass {
						t.Errorf("Lookup = %#v: %s", got, msg)
					}
				}
			}
		})
	}
	// A dotted key is reached with brackets.
	p, _ := expr.ParsePath(`x["a.b"]`)
	if v, ok := p.Lookup(map[string]any{"x": doc}); !ok || v != "dotted key" {
		t.Errorf(`Lookup(x["a.b"]) = %v, %v`, v, ok)
	}
	// The zero Path is the document itself.
	if v, ok := (expr.Path{}).Lookup(42.0); !ok || v != 42.0 {
		t.Errorf("zero Path Lookup = %v, %v", v, ok)
	}
}

func TestSegKindString(t *testing.T) {
	for k, want := range map[expr.SegKind]string{expr.Field: "field", expr.Index: "index", expr.Key: "key", 0: "SegKind(0)"} {
		if got := k.String(); got != want {
			t.Errorf("SegKind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestSegmentsIsACopy(t *testing.T) {
	p, _ := expr.ParsePath("a.b")
	p.Segments()[0].Name = "changed"
	if got := p.String(); got != "a.b" {
		t.Errorf("changing Segments() changed the path to %q", got)
	}
}
