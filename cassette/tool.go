package cassette

import (
	"github.com/mcptest/mcptest/internal/jsonpos"
)

// ToolOf is the tool of a decoded tools/list entry (as encoding/json
// decodes an object into an any): its name and description where they are
// strings, and its text (JSONOf).
func ToolOf(raw map[string]any) Tool {
	t := Tool{Text: JSONOf(raw)}
	t.Name, _ = raw["name"].(string)
	t.Description, _ = raw["description"].(string)
	return t
}

// Raw decodes the entry, a fresh map on each call; nil when the tool has
// no text.
func (t Tool) Raw() map[string]any {
	m, _ := t.Text.Value().(map[string]any)
	return m
}

// InputSchema decodes the entry's inputSchema, a fresh value on each call;
// nil when it has none (or null).
func (t Tool) InputSchema() any { return t.Member("inputSchema").Value() }

// HasInputSchema reports whether the entry has an inputSchema that is not
// null, without decoding it.
func (t Tool) HasInputSchema() bool { return t.Member("inputSchema") != "" }

// Member returns the text of the entry's member key, a slice of Text; ""
// when the entry has no such member or it is null.
func (t Tool) Member(key string) JSON {
	if t.Text == "" {
		return ""
	}
	text := textBytes(t.Text)
	if text[0] != '{' {
		return ""
	}
	for j := 1; j < len(text) && text[j] != '}'; {
		kEnd := jsonpos.StringEnd(text, j)
		v := kEnd + 1 // the text is compact: the colon, then the value
		end := jsonpos.Skip(text, v)
		if jsonpos.StringIs(text[j:kEnd], key) {
			if string(text[v:end]) == "null" {
				return ""
			}
			return t.Text[v:end]
		}
		j = end
		if j < len(text) && text[j] == ',' {
			j++
		}
	}
	return ""
}

// SchemaTool is the tool of a name and an inputSchema (decoded, as
// encoding/json decodes into an any; nil for none).
func SchemaTool(name string, inputSchema any) Tool {
	raw := map[string]any{"name": name}
	if inputSchema != nil {
		raw["inputSchema"] = inputSchema
	}
	return ToolOf(raw)
}
