package cassette

import (
	"strings"
	"unsafe"

	"github.com/mcptest/mcptest/internal/jsonpos"
)

// A recorded catalog's tool is kept as its JSON text (Tool.Text), written
// from the cassette's bytes by jsonpos.AppendCanonical: what encoding/json
// writes of the decoded entry, so a consumer that decodes the text reads
// the values the decoded entry held, and the token count reads the bytes
// it encoded before. No map is built for a tool the text is written of;
// one that cannot be written so (a key repeated, a number out of range, a
// nesting too deep) or that breaks a rule of the format is decoded and
// checked as a value (walker.tool), which words the problems.

// toolBlock is the size of the blocks a cassette's tool texts are kept in,
// one after the other: a text of its own allocation would cost its size
// class's rounding on top of its bytes.
const toolBlock = 64 << 10

// tool reads the tools/list entry at i of the document and returns it with
// the offset just after it.
func (d *decoder) tool(i int) (Tool, int) {
	if d.data[i] == '{' {
		var ok bool
		var end int
		// Written whole, its null members then left out: a key repeated
		// with null both times is a repeated key all the same.
		d.toolBuf, end, ok = d.canon.Append(d.toolBuf[:0], d.data, i, nil)
		if ok {
			d.toolBuf = dropNullMembers(d.toolBuf)
			if name, desc, clean := cleanTool(d.toolBuf); clean {
				text := d.keepText(d.toolBuf)
				// The name is a copy: what keeps a name (a case's tally
				// of the tools offered) keeps none of the block.
				return Tool{Name: strings.Clone(textString(text, name)), Description: textString(text, desc), Text: text}, end
			}
		}
	}
	v, end := d.value(i)
	return d.w.tool(v), end
}

// dropNullMembers leaves out of text, the compact text of an object, its
// members whose value is null but the name and the inputSchema: those
// are required, so their null is a problem (walker.tool, dropNulls); any
// other null member is absent. The text is rewritten in place.
func dropNullMembers(text []byte) []byte {
	out := 1
	for j := 1; j < len(text) && text[j] != '}'; {
		kEnd := jsonpos.StringEnd(text, j)
		v := kEnd + 1
		end := jsonpos.Skip(text, v)
		if key := text[j+1 : kEnd-1]; text[v] != 'n' || string(key) == "name" || string(key) == "inputSchema" {
			if out > 1 {
				text[out] = ','
				out++
			}
			out += copy(text[out:], text[j:end])
		}
		j = end
		if j < len(text) && text[j] == ',' {
			j++
		}
	}
	text[out] = '}'
	return text[:out+1]
}

// span is where a JSON string lies in a text, its quotes included; the
// zero span is no string.
type span struct{ from, to int }

// cleanTool reads the canonical text of an entry that is an object and
// reports whether it breaks none of the rules walker.tool checks (a
// non-empty string name, a string description and title, an object
// inputSchema, annotations and outputSchema), with where its name and
// description lie.
func cleanTool(text []byte) (name, desc span, clean bool) {
	for j := 1; j < len(text) && text[j] != '}'; {
		kEnd := jsonpos.StringEnd(text, j)
		v := kEnd + 1 // compact: the colon, then the value
		end := jsonpos.Skip(text, v)
		switch string(text[j+1 : kEnd-1]) {
		case "name":
			if text[v] != '"' || end-v == 2 {
				return name, desc, false
			}
			name = span{v, end}
		case "description":
			if text[v] != '"' {
				return name, desc, false
			}
			desc = span{v, end}
		case "title":
			if text[v] != '"' {
				return name, desc, false
			}
		case "inputSchema", "annotations", "outputSchema":
			if text[v] != '{' {
				return name, desc, false
			}
		}
		j = end
		if j < len(text) && text[j] == ',' {
			j++
		}
	}
	return name, desc, name.to > 0
}

// textString decodes the JSON string at s of text: a string without
// escapes is a slice of the text (which is never written to), any other
// is decoded; "" for the zero span.
func textString(text JSON, s span) string {
	if s.to == 0 {
		return ""
	}
	body := text[s.from+1 : s.to-1]
	for k := 0; k < len(body); k++ {
		if body[k] == '\\' {
			return jsonpos.Unquote([]byte(body))
		}
	}
	return string(body)
}

// keepText copies a tool's text into the decoder's current block (a new
// one when it does not fit, of toolBlock bytes or of about what the tools
// left to read need when that is less; a text over a quarter of a block
// is kept alone) and returns the copy.
func (d *decoder) keepText(text []byte) JSON {
	if len(text) > toolBlock/4 {
		return JSON(text)
	}
	if len(text) > cap(d.toolBlock)-len(d.toolBlock) {
		d.toolBlock = make([]byte, 0, min(toolBlock, max(d.toolLeft, 2*len(text))))
	}
	from := len(d.toolBlock)
	d.toolBlock = append(d.toolBlock, text...)
	kept := d.toolBlock[from:]
	// The block's bytes are never written again once appended: the
	// string may share them.
	return JSON(unsafe.String(&kept[0], len(kept)))
}

// countItems returns the number of items of the array at i of data, a
// valid document, and the bytes the array spans: a catalog's tools are
// counted before they are read, so their list is allocated once at its
// size (grown item by item, a list of a quarter of a million tools
// allocated five times its size).
func countItems(data []byte, i int) (n, size int) {
	j := jsonpos.Space(data, i+1)
	for j < len(data) && data[j] != ']' {
		n++
		j = jsonpos.Space(data, jsonpos.Skip(data, j))
		if j < len(data) && data[j] == ',' {
			j = jsonpos.Space(data, j+1)
		}
	}
	return n, j + 1 - i
}
