package tokens

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Encoding is the tokenizer every count uses.
const Encoding = "cl100k_base"

// Count returns the number of cl100k_base tokens of text. Special-token
// text such as "<|endoftext|>" is counted as ordinary text, as it would be
// in a tool description. Count("") is 0 and loads the encoder all the
// same, so `go Count("")` has it ready by the time a command that waits
// on a server counts.
func Count(text string) int {
	b := encoder()
	if text == "" {
		return 0
	}
	return b.count(text)
}

// ToolTexts returns the three texts a tool costs: its name, its
// description, and its inputSchema as compact JSON with sorted keys ("" when
// the tool has none), written as a client writes it (JSON.stringify): "<",
// ">", "&", U+2028 and U+2029 as themselves, not as \u escapes.
func ToolTexts(name, description string, inputSchema any) []string {
	return []string{name, description, schemaText(inputSchema)}
}

// schemaText is the compact JSON of an inputSchema, "" for none.
func schemaText(inputSchema any) string {
	if inputSchema == nil {
		return ""
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(inputSchema) != nil {
		return ""
	}
	return unescapeSeparators(string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))))
}

// unescapeSeparators writes back as characters the \u2028 and \u2029
// escapes encoding/json always writes; an escape is one only after an even
// run of backslashes (\\u2028 is a backslash and the text u2028).
func unescapeSeparators(js string) string {
	if !strings.Contains(js, `\u202`) {
		return js
	}
	var out strings.Builder
	for i := 0; i < len(js); i++ {
		if js[i] == '\\' && i+1 < len(js) {
			if js[i+1] == 'u' && i+6 <= len(js) && (js[i+2:i+6] == "2028" || js[i+2:i+6] == "2029") {
				out.WriteRune(rune(0x2028 + int(js[i+5]-'8')))
				i += 5
				continue
			}
			out.WriteByte(js[i])
			i++
		}
		out.WriteByte(js[i])
	}
	return out.String()
}

// Tool returns the tool-surface tokens of one tool: the sum of the counts
// of its ToolTexts.
func Tool(name, description string, inputSchema any) int {
	n := 0
	for _, t := range ToolTexts(name, description, inputSchema) {
		n += Count(t)
	}
	return n
}

// ToolOfText is Tool for a tool whose inputSchema is given as the text an
// encoding/json Encoder that does not escape HTML writes of it, without
// the newline ("" for none): the count is Tool's for the decoded schema,
// and nothing is decoded.
func ToolOfText(name, description, inputSchema string) int {
	return Count(name) + Count(description) + Count(unescapeSeparators(inputSchema))
}
