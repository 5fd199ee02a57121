package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/mcptest/mcptest/gate/tokens"
)

// sharedData is the datasets folder beside the repository root (see the
// README of each dataset for its source and licence).
const sharedData = "../../shared/data"

// pythonJSON encodes v as Python's json.dump does by default: every
// character outside ASCII written as a \u escape, a surrogate pair beyond
// the BMP (🚀 is \ud83d\ude80).
func pythonJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, r := range string(b) {
		if r < 0x80 {
			out.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&out, `\u%04x`, u)
		}
	}
	return []byte(out.String())
}

// sourceTool is a tool as an independent decoder (encoding/json over the
// source data) reads it: what ReadFile must give back.
type sourceTool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema,omitempty"`
}

// realCatalogs returns the catalog files to read, each written as its
// source writes it, with the tools an independent decoder reads from it.
func realCatalogs(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, s := range []string{"everything", "filesystem", "memory"} {
		data, err := os.ReadFile(filepath.Join("testdata", "servers", s+".json"))
		if err != nil {
			t.Fatal(err)
		}
		files["server-"+s+".json"] = data
	}
	var servers []struct {
		Tools []map[string]any `json:"tools"`
	}
	data, err := os.ReadFile(filepath.Join(sharedData, "livemcpbench", "livemcptool_catalog.json"))
	if err != nil {
		t.Skipf("LiveMCPBench data not available: %v", err)
	}
	if err := json.Unmarshal(data, &servers); err != nil {
		t.Fatal(err)
	}
	var all []map[string]any
	for _, s := range servers {
		all = append(all, s.Tools...)
	}
	files["livemcpbench.json"] = pythonJSON(t, map[string]any{"tools": all})
	for _, f := range []string{"plugin_des.json", "big_tool_des.json"} {
		data, err := os.ReadFile(filepath.Join(sharedData, "metatool", f))
		if err != nil {
			t.Skipf("MetaTool data not available: %v", err)
		}
		var des map[string]string
		if err := json.Unmarshal(data, &des); err != nil {
			t.Fatal(err)
		}
		var tools []map[string]any
		for name, d := range des {
			tools = append(tools, map[string]any{"name": name, "description": d})
		}
		files["metatool-"+f] = pythonJSON(t, tools)
	}
	// Raw line and paragraph separators inside strings, as a server may
	// send them: JSON allows them unescaped, YAML reads them as breaks.
	files["separators-plain.json"] = []byte("{\"tools\": [{\"name\": \"sep\", \"description\": \"First line \u2028 second line \u2029 third paragraph, with spaces around\"}]}")
	files["separators.json"] = []byte("{\"tools\": [{\"name\": \"sep\", \"description\": \"First line \u2028 second line \u2029 third paragraph, with spaces around\", \"title\": null, \"annotations\": null, \"outputSchema\": null, \"_meta\": null, \"execution\": null, \"icons\": null, \"futureField\": {\"x\": 1}}]}")
	return files
}

// sourceTools decodes a catalog file with encoding/json, independently of
// ReadFile: a tools/list result or a bare array.
func sourceTools(t *testing.T, data []byte) []sourceTool {
	t.Helper()
	var doc struct {
		Tools []sourceTool `json:"tools"`
	}
	if json.Unmarshal(data, &doc) != nil {
		if err := json.Unmarshal(data, &doc.Tools); err != nil {
			t.Fatal(err)
		}
	}
	return doc.Tools
}

// TestRealCatalogFiles: the catalogs real servers and registries write are
// read whole: the verbatim tools/list of the three npm reference servers
// (with execution), all 527 LiveMCPBench tools (483 with "annotations":
// null) and MetaTool's tools as Python's json.dump writes them (surrogate
// pairs), and raw U+2028/U+2029. Every tool is read with the text an
// independent JSON decoder reads, and its token count equals js-tiktoken's.
func TestRealCatalogFiles(t *testing.T) {
	dir := t.TempDir()
	var src []sourceTool
	var got []int // mcptest's count of each tool, in src order
	for name, data := range realCatalogs(t) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := sourceTools(t, data)
		if len(c.Tools) != len(want) || len(c.RawTools()) != len(want) {
			t.Errorf("%s: read %d tools (%d raw), the file has %d", name, len(c.Tools), len(c.RawTools()), len(want))
			continue
		}
		for i, s := range want {
			tool := c.Tools[i]
			if tool.Name != s.Name || tool.Description != s.Description {
				t.Errorf("%s: tools[%d] = %q %q, want %q %q", name, i, tool.Name, tool.Description, s.Name, s.Description)
			}
			got = append(got, tokens.Tool(tool.Name, tool.Description, tool.InputSchema))
		}
		src = append(src, want...)
		if name == "server-everything.json" {
			if _, ok := c.RawTools()[0]["execution"].(map[string]any); !ok {
				t.Errorf("%s: execution not kept: %v", name, c.RawTools()[0])
			}
		}
		if name == "separators.json" {
			raw := c.RawTools()[0]
			if _, ok := raw["futureField"]; !ok {
				t.Errorf("%s: a future field is not kept: %v", name, raw)
			}
			if _, ok := raw["annotations"]; ok {
				t.Errorf("%s: null annotations kept, want absent: %v", name, raw)
			}
		}
	}
	if t.Failed() {
		return
	}
	js := jsToolTokens(t, src)
	bad := 0
	for i, s := range src {
		if got[i] != js[i] {
			if bad++; bad <= 5 {
				t.Errorf("tool %q: %d tokens, js-tiktoken says %d", s.Name, got[i], js[i])
			}
		}
	}
	t.Logf("%d tools read, %d token counts differ from js-tiktoken's", len(src), bad)
}

// jsToolTokens counts each tool's surface with npm js-tiktoken, computing
// the texts in JavaScript from the tools as decoded JSON.
func jsToolTokens(t *testing.T, tools []sourceTool) []int {
	t.Helper()
	npmBin(t, "mcp-server-everything") // the same npm ci installs js-tiktoken
	script, _ := filepath.Abs(filepath.Join("..", ".ci", "node", "count-tool-tokens.js"))
	in, _ := json.Marshal(tools)
	cmd := exec.Command("node", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node count-tool-tokens.js: %v", err)
	}
	var counts []int
	if err := json.Unmarshal(out, &counts); err != nil || len(counts) != len(tools) {
		t.Fatalf("count-tool-tokens.js printed %.200q: %v", out, err)
	}
	return counts
}
