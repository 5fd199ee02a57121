package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/gate/security"
	"github.com/mcptest/mcptest/internal/jsonpos"
)

// A catalog file's tool is decoded once, checked and typed (toolFromRaw),
// then kept as its compact JSON text, not as the decoded maps: a Go map
// costs about 300 bytes for each JSON object however few its members, and
// a tool's schemas are most of its objects (a property is one). The typed
// tool's schemas are slices of that text (json.RawMessage, which the SDK
// serves and encoding/json writes as they are), and RawTools decodes the
// tools from it where a rule reads them. The text is what encoding/json
// writes for the decoded tool (members in key order, numbers as float64
// writes them, <, > and & as they are): what json.Marshal wrote of the
// maps before, byte for byte, so a schema printed, served, counted in
// tokens or compared is the same (docs/benchmarks.md, "Catalogs kept as
// text").

// toolTexts builds the typed tools of a catalog file and their texts.
type toolTexts struct {
	c      *Catalog
	values jsonpos.Values
	buf    bytes.Buffer
	text   []byte
	// js is the buffer a YAML tool is written into as JSON.
	js []byte
	// block is what is left of the block the texts are kept in.
	block []byte
}

// textBlock is the size of the blocks the texts of a catalog file's tools
// are kept in, one after the other: a text of its own allocation would
// cost its slice header and its size class's rounding (an eighth of it on
// average) on top of its bytes.
const textBlock = 64 << 10

// keep copies a tool's text into the current block (a new one when it
// does not fit; a text over a quarter of a block is kept alone) and
// returns the copy, its capacity its length.
func (b *toolTexts) keep(text []byte) []byte {
	if len(text) > textBlock/4 {
		alone := bytes.Clone(text)
		return alone[:len(text):len(text)]
	}
	if len(text) > cap(b.block) {
		b.block = make([]byte, 0, textBlock)
	}
	kept := append(b.block, text...)
	b.block = b.block[len(text):len(text)]
	return kept[:len(text):len(text)]
}

// addAt types the n-th tool of a catalog file, the value at t of data (a
// document json.Valid accepts), and keeps it as text. The text is written
// from the bytes (jsonpos.AppendCanonical, its nulls dropped as
// dropNulls drops them) and only the members the typed tool reads are
// decoded (its schemas are slices of the text); a tool the text cannot be
// written of so (a key repeated, a number out of range, a nesting too
// deep, a tool that is not an object) is decoded whole, with the errors
// the decoding gives.
func (b *toolTexts) addAt(n int, data []byte, t int) error {
	var ok bool
	if data[jsonpos.Space(data, t)] == '{' {
		b.text, _, ok = jsonpos.AppendCanonical(b.text[:0], data, t, func(key string) bool { return key != "name" && key != "inputSchema" })
	}
	if !ok {
		v, _, err := b.values.Decode(data, t)
		if err != nil {
			return fmt.Errorf("tools[%d]: %w", n, err)
		}
		raw, isMap := v.(map[string]any)
		if !isMap {
			return fmt.Errorf("tools[%d] is not an object", n)
		}
		return b.add(n, raw)
	}
	text := b.keep(b.text)
	raw := map[string]any{}
	var err error
	w := &jsonCheck{data: text}
	w.members(0, func(k, kEnd, v int) {
		switch key := jsonpos.String(text[k:kEnd]); key {
		case "inputSchema", "outputSchema":
			if text[v] == 'n' {
				raw[key] = nil
			} else {
				end := jsonpos.Skip(text, v)
				raw[key] = json.RawMessage(text[v:end:end])
			}
		case "name", "title", "description":
			if end := jsonpos.StringEnd(text, v); text[v] == '"' && !bytes.Contains(text[v:end], []byte{'\\'}) {
				// The text is never written to once kept: a string
				// without escapes is its bytes (the typed tool's name
				// and description are not copies of the text's).
				raw[key] = unsafe.String(&text[v+1], end-1-(v+1))
				break
			}
			fallthrough
		case "_meta", "annotations", "icons":
			if raw[key], _, err = b.values.Decode(text, v); err != nil {
				err = fmt.Errorf("tools[%d]: %w", n, err) // not reached: the text decodes
			}
		}
	})
	if err != nil {
		return err
	}
	tool, err := toolFromRaw(n, raw)
	if err != nil {
		return err
	}
	b.c.Tools, b.c.rawText = append(b.c.Tools, tool), append(b.c.rawText, text)
	return nil
}

// add types the n-th tool raw of a catalog file (its nulls dropped, on
// raw itself) and keeps it as text.
func (b *toolTexts) add(n int, raw map[string]any) error {
	tool, err := toolFromRaw(n, raw)
	if err != nil {
		return err
	}
	b.buf.Reset()
	enc := json.NewEncoder(&b.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(raw); err != nil {
		return fmt.Errorf("tools[%d]: %w", n, err)
	}
	text := bytes.Clone(bytes.TrimSuffix(b.buf.Bytes(), []byte{'\n'}))
	if tool.InputSchema != nil {
		tool.InputSchema = memberText(text, "inputSchema")
	}
	if tool.OutputSchema != nil {
		tool.OutputSchema = memberText(text, "outputSchema")
	}
	b.c.Tools, b.c.rawText = append(b.c.Tools, tool), append(b.c.rawText, text)
	return nil
}

// memberText is the text of the member key of the object text, nil when
// it has none.
func memberText(text []byte, key string) json.RawMessage {
	var out json.RawMessage
	w := &jsonCheck{data: text}
	w.members(0, func(k, kEnd, v int) {
		if out == nil && jsonpos.String(text[k:kEnd]) == key {
			end := jsonpos.Skip(text, v)
			out = text[v:end:end]
		}
	})
	return out
}

// decodeTexts decodes the kept texts of a catalog file's tools, each time
// anew: the caller owns the maps.
func decodeTexts(texts [][]byte, tools []*mcp.Tool) []map[string]any {
	var values jsonpos.Values
	out := make([]map[string]any, len(texts))
	for i, text := range texts {
		v, _, err := values.Decode(text, 0)
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			m = toolObject(tools[i]) // not reached: the text is written from a map
		}
		out[i] = m
	}
	return out
}

// SchemaValue is a tool's schema as a decoded JSON value: a catalog file's
// tool holds its schemas as text (json.RawMessage), decoded here; any
// other value is returned as it is.
func SchemaValue(s any) any {
	raw, ok := s.(json.RawMessage)
	if !ok {
		return s
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// eachRawTool is the catalog's raw tools as security.ScanEach takes them:
// their names, and a function that returns tool i, decoded from its text
// on the call for a catalog file (so a scan holds one decoded tool, not
// all of them).
func (c *Catalog) eachRawTool() ([]string, func(i int) map[string]any) {
	names := make([]string, len(c.Tools))
	if c.rawText != nil && len(c.rawText) == len(c.Tools) {
		for i, t := range c.Tools {
			names[i] = t.Name // a catalog file's tool has a string name
		}
		return names, func(i int) map[string]any { return decodeTexts(c.rawText[i:i+1], c.Tools[i:i+1])[0] }
	}
	raw := c.RawTools()
	for i, t := range raw {
		names[i], _ = t["name"].(string)
	}
	return names, func(i int) map[string]any { return raw[i] }
}

// DescriptionWarnings is security.DescriptionWarnings over the catalog's
// raw tools, one decoded at a time, the collector paced as for a read
// (each decoded tool and its texts are garbage once scanned).
func (c *Catalog) DescriptionWarnings() []security.Finding {
	defer paceRead()()
	return security.DescriptionWarningsEach(c.eachRawTool())
}

// SecurityScan is security.Scan over the catalog's raw tools, one decoded
// at a time, the collector paced as for a read.
func (c *Catalog) SecurityScan() []security.Finding {
	defer paceRead()()
	return security.ScanEach(c.eachRawTool())
}
