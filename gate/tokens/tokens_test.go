package tokens

import "testing"

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
