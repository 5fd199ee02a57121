package cassette

import (
	"bytes"
	"encoding/json"
	"unsafe"

	"github.com/mcptest/mcptest/internal/jsonpos"
)

// JSON is a JSON text held compact (no white space outside strings): a
// call's arguments as the agent sent them. The model keeps the text, not a
// decoded tree, so a run of a million calls holds a string of each call's
// bytes and no Go map per call (SECURITY.md, the memory a replay costs);
// what reads the arguments decodes them when it needs them (Value). ""
// means no arguments (absent or null).
type JSON string

// Value decodes the text as encoding/json decodes into an any
// (map[string]any, []any, string, float64, bool), each call a fresh value;
// nil for "".
func (j JSON) Value() any {
	if j == "" {
		return nil
	}
	v, ok := decodeAny([]byte(j))
	if !ok {
		return nil
	}
	return v
}

// MarshalJSON writes the text as it is; "" is null.
func (j JSON) MarshalJSON() ([]byte, error) {
	if j == "" {
		return []byte("null"), nil
	}
	return []byte(j), nil
}

// IsObject reports whether the text is a JSON object.
func (j JSON) IsObject() bool { return len(j) > 0 && j[0] == '{' }

// IsEmptyObject reports whether the text is the object with no member.
func (j JSON) IsEmptyObject() bool { return j == "{}" }

// JSONOf encodes a decoded value (as encoding/json decodes into an any) as
// compact JSON text; nil is "".
func JSONOf(v any) JSON {
	if v == nil {
		return ""
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return ""
	}
	return JSON(bytes.TrimRight(b.Bytes(), "\n"))
}

// compactText returns data, a JSON text, compact, and whether it is JSON that
// decodes into an any (valid, every number within the float64 range), as
// decodeAny decides.
func compactText(data []byte) (JSON, bool) {
	if !validJSON(data) {
		return "", false
	}
	d := decoder{data: data, w: &walker{}, rangeOff: -1}
	i := d.space(0)
	end := d.skip(i, true)
	if d.rangeOff >= 0 {
		return "", false
	}
	return compact(data[i:end]), true
}

// compact returns the JSON value data without white space outside its
// strings, copied as it is when it has none.
func compact(data []byte) JSON {
	spaced := -1
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = jsonpos.StringEnd(data, i) - 1
		case ' ', '\t', '\n', '\r':
			spaced = i
		}
		if spaced >= 0 {
			break
		}
	}
	if spaced < 0 {
		return JSON(data)
	}
	out := make([]byte, 0, len(data))
	out = append(out, data[:spaced]...)
	for i := spaced; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			end := jsonpos.StringEnd(data, i)
			out = append(out, data[i:end]...)
			i = end - 1
		case ' ', '\t', '\n', '\r':
		default:
			out = append(out, c)
		}
	}
	return JSON(out)
}

// args reads a call's arguments, any JSON value, checked as value checks
// it (repeated keys, numbers out of range) without decoding it: the text,
// compact; null is no arguments.
func (d *decoder) args(i int) (JSON, int) {
	if d.data[i] == 'n' {
		return "", i + 4
	}
	end := d.check(i)
	if d.counting && !jsonpos.MayBeOverBudget(end-i) {
		return "", end
	}
	return compact(d.data[i:end]), end
}

// check reads the value starting at i for its problems only, as value
// does (a repeated key, a number out of range), decoding nothing, and
// returns the offset just after it.
func (d *decoder) check(i int) int {
	switch d.data[i] {
	case '{':
		return d.object(i, func(_ string, _, v int) int { return d.check(v) })
	case '[':
		return d.array(i, func(_, v int) int { return d.check(v) })
	}
	return d.skip(i, true)
}

// keptResult is a call's result as the model keeps it: its compact text
// (see JSON, and Call.ResultValue), so the results of a run cost their
// bytes and no Go map each. nil (no result recorded) and a result kept as
// text already are returned as they are. The text is JSONOf's, written
// directly for the shape most transcripts give, one text block.
func keptResult(v any) any {
	switch v := v.(type) {
	case nil, JSON:
		return v
	case map[string]any:
		if s, ok := oneText(v); ok {
			return oneTextResult(s)
		}
	}
	if j := JSONOf(v); j != "" {
		return j
	}
	return v
}

// oneTextResult is the text keptResult keeps of a result of one text
// block, s, written without a map of it: the bytes become the string
// (they are not written again).
func oneTextResult(s string) JSON {
	b := make([]byte, 0, len(s)+40)
	b = append(b, `{"content":[{"text":`...)
	b = jsonpos.AppendString(b, s)
	b = append(b, `,"type":"text"}]}`...)
	return JSON(unsafe.String(&b[0], len(b)))
}

// oneText returns the text of a result that is one text block and nothing
// else, {"content": [{"type": "text", "text": s}]}.
func oneText(m map[string]any) (string, bool) {
	content, _ := m["content"].([]any)
	if len(m) != 1 || len(content) != 1 {
		return "", false
	}
	b, _ := content[0].(map[string]any)
	s, ok := b["text"].(string)
	return s, ok && len(b) == 2 && b["type"] == "text"
}

// keepResults keeps every result of r as its text (keptResult): the one
// form every reader's runs leave the package in.
func keepResults(r *Run) {
	for i := range r.Turns {
		for j := range r.Turns[i].Calls {
			c := &r.Turns[i].Calls[j]
			c.Result = keptResult(c.Result)
		}
	}
}
