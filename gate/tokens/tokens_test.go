package tokens

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// The counts are js-tiktoken's (cl100k_base) for the same texts.
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"<|endoftext|> x", 8},
		{"héllo 🌍 世界", 10},
	} {
		if got := Count(tc.text); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestTool(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}
	texts := ToolTexts("search", "Search the web.", schema)
	if texts[2] != `{"properties":{"q":{"type":"string"}},"type":"object"}` {
		t.Errorf("schema text %s", texts[2])
	}
	if got, want := Tool("search", "Search the web.", schema), Count(texts[0])+Count(texts[1])+Count(texts[2]); got != want {
		t.Errorf("Tool = %d, want %d", got, want)
	}
	if ToolTexts("x", "", nil)[2] != "" {
		t.Error("a tool without a schema costs no schema text")
	}
}

// TestToolSchemaTextAsWritten: the schema text is the JSON a client
// writes (JSON.stringify), not HTML-escaped: "<" stays "<", and a line
// separator stays the character; an escaped backslash is left alone. The
// counts of the texts are js-tiktoken's.
func TestToolSchemaTextAsWritten(t *testing.T) {
	schema := map[string]any{"description": "a <b> & c\u2028d \\u2028 e"}
	got := ToolTexts("x", "", schema)[2]
	want := "{\"description\":\"a <b> & c\u2028d \\\\u2028 e\"}"
	if got != want {
		t.Errorf("schema text %s, want %s", got, want)
	}
	if n := Count(got); n != 18 {
		t.Errorf("Count(%q) = %d, js-tiktoken says 18", got, n)
	}
}

// TestSeparatorsAsWritten: both line separators, U+2028 and U+2029, are
// written as the characters; every other \u escape (a control character)
// and a backslash followed by the text 2028 or 2029 are left as they are.
func TestSeparatorsAsWritten(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\u2028b\u2029c", "\"a\u2028b\u2029c\""},
		{"\u2029 \x01 \u2028", "\"\u2029 \\u0001 \u2028\""},
		{"\u2028 \\2028 \"2029 \\u2029", "\"\u2028 \\\\2028 \\\"2029 \\\\u2029\""},
	} {
		if got := schemaText(tc.in); got != tc.want {
			t.Errorf("schemaText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMergeTiesLeftmost: when adjacent pairs of one rank tie (a run of
// one character), the leftmost merges first: " !!!!!!!" is 3 tokens, as
// tiktoken says, not the 2 merging from the right would leave.
func TestMergeTiesLeftmost(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{" !!!!!!!", 3},
		{" !!!!!!!!!!", 3},
		{" !!!!!!!!!!!!!!!", 4},
		{"!!!!!!!", 2},
	} {
		if got := Count(tc.text); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// TestParseBPERefusesBadLines: a line of a .tiktoken file is a base64
// token, a space and a rank; anything else is refused with the line.
func TestParseBPERefusesBadLines(t *testing.T) {
	if b, err := parseBPE([]byte("IQ== 0\nIiI= 1\n\n")); err != nil || len(b.ranks) != 2 || b.ranks["!"] != 0 || b.ranks[`""`] != 1 {
		t.Fatalf("good lines: %v, %v", b, err)
	}
	for _, line := range []string{"IQ==", "IQ== x", "IQ== ", "!!!! 3"} {
		if _, err := parseBPE([]byte("IiI= 1\n" + line + "\n")); err == nil || !strings.Contains(err.Error(), strconv.Quote(line)) {
			t.Errorf("line %q: %v, want an error naming the line", line, err)
		}
	}
}

// TestToolOfTextIsTool: a tool counted from its schema's text, as
// encoding/json writes it without escaping HTML, costs what it costs
// counted from the decoded schema; no schema is "".
func TestToolOfTextIsTool(t *testing.T) {
	schemas := []any{
		nil,
		map[string]any{"type": "object"},
		map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "description": "a <b> & c\u2028d\u2029e \\u2028"}}, "required": []any{"q"}},
		map[string]any{"enum": []any{1.5, -2, "x\ny", true, nil}},
	}
	for _, s := range schemas {
		text := ""
		if s != nil {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			text = strings.TrimSuffix(b.String(), "\n")
		}
		if got, want := ToolOfText("search_docs", "Search the docs.", text), Tool("search_docs", "Search the docs.", s); got != want {
			t.Errorf("ToolOfText(%s) = %d, Tool gives %d", text, got, want)
		}
	}
}
