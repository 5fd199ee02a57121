package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// treeCheck checks a JSON catalog as the YAML checks do, over the node
// tree yamlpos.ParseJSON builds: the rules one walk of the bytes
// (checkJSON) must give the same errors as.
func treeCheck(file string, data []byte) diag.List {
	root, err := yamlpos.ParseJSON(data)
	var pe *jsonpos.Error
	switch {
	case errors.As(err, &pe):
		return diag.List{{Pos: diag.Pos{File: file, Line: pe.Line, Col: pe.Col}, Kind: "catalog", Message: pe.Msg}}
	case err != nil:
		return diag.List{{Pos: diag.Pos{File: file, Line: 1, Col: 1}, Kind: "catalog", Message: "invalid JSON: " + err.Error()}}
	}
	return checkYAML(file, data, root.Content[0])
}

// treeDecode is how a JSON catalog was decoded before it was read from
// its bytes: into one interface value, then the tools twice through JSON
// (the raw tools, and the typed ones with what the SDK cannot decode
// left out).
func treeDecode(data []byte) (*Catalog, error) {
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if arr, ok := doc.([]any); ok {
		doc = map[string]any{"tools": arr}
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a catalog")
	}
	if _, ok := m["tools"].([]any); !ok {
		return nil, fmt.Errorf("no tools")
	}
	js, _ := json.Marshal(m)
	var raw struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, err
	}
	typed := make([]any, len(raw.Tools))
	for i, t := range raw.Tools {
		if name, _ := t["name"].(string); t == nil || name == "" {
			return nil, fmt.Errorf("tools[%d]", i)
		}
		typed[i] = typedTool(t)
	}
	m["tools"] = typed
	js, _ = json.Marshal(m)
	var c Catalog
	if err := json.Unmarshal(js, &c); err != nil {
		return nil, err
	}
	c.raw = raw.Tools
	return &c, nil
}

// TestJSONCatalogAgreesWithTree: drawn JSON catalogs, most of them wrong
// in the ways catalog files are (a member of the wrong type, a typo of a
// key, a key repeated at any depth or spelt twice with an escape, a
// missing name, a tool that is not an object, a number out of range, a
// nesting as deep as JSON allows), on one line and spread over lines, are refused by
// the walk of their bytes with exactly the errors the checks over a node
// tree give (position, message, hint, source); those both accept decode
// to the same raw and typed tools as the tree's decoding gave.
func TestJSONCatalogAgreesWithTree(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 5))
	accepted := 0
	draws := 600
	if testing.Short() {
		draws = 150
	}
	for d := range draws {
		data := []byte(drawCatalog(r))
		if !json.Valid(data) {
			t.Fatalf("draw %d is not JSON:\n%s", d, data)
		}
		got, want := checkJSON("cat.json", data), treeCheck("cat.json", data)
		if g, w := errorsText(got), errorsText(want); g != w {
			t.Fatalf("draw %d:\n%s\nthe walk gives:\n%s\nthe tree gives:\n%s", d, data, g, w)
		}
		if len(want) > 0 {
			continue
		}
		accepted++
		c, err := ParseCatalog(data)
		old, oldErr := treeDecode(data)
		if (err != nil) != (oldErr != nil) {
			t.Fatalf("draw %d:\n%s\nParseCatalog: %v; the tree's decoding: %v", d, data, err, oldErr)
		}
		if err != nil {
			continue
		}
		if !reflect.DeepEqual(c.RawTools(), old.RawTools()) {
			t.Fatalf("draw %d:\n%s\nraw tools %v, want %v", d, data, c.RawTools(), old.RawTools())
		}
		g, _ := json.Marshal(c.Tools)
		w, _ := json.Marshal(old.Tools)
		if string(g) != string(w) {
			t.Fatalf("draw %d:\n%s\ntyped tools %s, want %s", d, data, g, w)
		}
	}
	t.Logf("%d drawn catalogs, %d accepted", draws, accepted)
	if accepted < draws/10 {
		t.Errorf("only %d of %d drawn catalogs were accepted: the decoding is hardly compared", accepted, draws)
	}
}

func errorsText(l diag.List) string {
	var b strings.Builder
	for _, e := range l {
		fmt.Fprintf(&b, "%d:%d %s [%s] %s source=%v\n", e.Pos.Line, e.Pos.Col, e.Kind, e.Message, e.Hint, e.Source != nil)
	}
	return b.String()
}

// drawCatalog writes a JSON catalog with drawn defects, its layout drawn
// too (one line, or a member per line with drawn indentation).
func drawCatalog(r *rand.Rand) string {
	sep := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return "\n" + strings.Repeat(" ", r.IntN(5))
	}
	obj := func(members []string) string {
		s := "{"
		for i, m := range members {
			if i > 0 {
				s += ","
			}
			s += sep() + m
		}
		return s + sep() + "}"
	}
	tools := make([]string, r.IntN(5))
	for i := range tools {
		tools[i] = drawTool(r, obj)
	}
	list := "[" + strings.Join(tools, ","+sep()) + "]"
	switch r.IntN(12) {
	case 0:
		return list
	case 1:
		return `"just a string"`
	case 2:
		return obj([]string{`"tols": ` + list})
	case 3:
		return obj([]string{`"tools": {"name": "a"}`})
	case 4:
		return obj([]string{`"tools": ` + list, `"serverInfo": {"name": "s", "version": "1"}`, `"tools": []`})
	case 5:
		return obj([]string{`"protocolVersion": "2025-06-18"`, `"tools": ` + list, `"resources": [{"uri": "file:///a", "name": "a"}]`, `"x-extra": 1`})
	}
	return obj([]string{`"tools": ` + list})
}

// drawTool writes one tool, with a drawn defect now and then.
func drawTool(r *rand.Rand, obj func([]string) string) string {
	clean := r.IntN(2) == 0 // a tool without defects
	switch r.IntN(20) {
	case 0:
		if clean {
			break
		}
		return `42`
	case 1:
		if !clean {
			return `["name"]`
		}
	case 2:
		if !clean {
			return `null`
		}
	}
	names := []string{`"search_é"`, `"fetch"`, `""`, `"  "`, `7`, `null`, `{"a": 1}`, `"n\u00e9"`}
	members := []string{`"name": ` + names[r.IntN(len(names))]}
	if clean {
		members[0] = `"name": ` + names[r.IntN(2)]
	}
	if !clean && r.IntN(2) == 0 {
		members = append(members, `"name": "second"`)
	}
	if !clean && r.IntN(8) == 0 {
		members = members[:0]
	}
	optional := []string{
		`"description": "Finds things \ud83d\ude80 fast"`, `"description": null`, `"description": 3`,
		`"title": "T"`, `"title": ["x"]`, `"descripton": "typo"`, `"nmae": "typo"`, `"x-vendor": {}`, `"_private": 1`,
		`"futureField": true`, `"annotations": {"readOnlyHint": true}`, `"annotations": {"readOnlyHint": "yes"}`,
		`"annotations": null`, `"annotations": 5`, `"outputSchema": {"type": "object"}`, `"outputSchema": null`,
		`"annotations": {"readOnlyHint": null, "destructiveHint": false, "openWorldHint": true, "title": "T"}`,
		`"annotations": {"READONLYHINT": true, "idempotentHint": true}`, `"annotations": {"idempotentHint": 1}`,
		`"annotations": {"title": 2}`, `"annotations": {"destructiveHint": null, "other": [1]}`,
		`"_meta": {"k": "v"}`, `"execution": {"taskSupport": "forbidden"}`, `"icons": [{"src": "https://x/i.png"}]`,
		`"inputSchema": null`, `"inputSchema": "object"`, `"n\u0061me": "escaped"`, `"inputSchma": {}`,
	}
	seen := map[string]bool{}
	for range r.IntN(4) {
		m := optional[r.IntN(len(optional))]
		key, _, _ := strings.Cut(m, ":")
		if clean && (seen[key] || !json.Valid([]byte("{"+m+"}")) || catalogCheckFails(m)) {
			continue
		}
		seen[key] = true
		members = append(members, m)
	}
	if r.IntN(4) != 0 && !seen[`"inputSchema"`] {
		members = append(members, `"inputSchema": `+drawSchema(r, obj, 0, clean))
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	return obj(members)
}

// drawSchema writes a JSON Schema, with a key repeated at a drawn depth,
// a number out of range or a nesting as deep as JSON allows now and then.
func drawSchema(r *rand.Rand, obj func([]string) string, depth int, clean bool) string {
	if depth > 3 {
		return `{"type": "string"}`
	}
	switch n := r.IntN(200); {
	case clean:
	case n < 5:
		return `{"maximum": 1e400}`
	case n == 5:
		// As deep as encoding/json lets a document be (its depth
		// limit is jsonpos.MaxDepth), the tool's own levels aside.
		return strings.Repeat("[", jsonpos.MaxDepth-20) + strings.Repeat("]", jsonpos.MaxDepth-20)
	}
	props := make([]string, r.IntN(4))
	for i := range props {
		k := r.IntN(3)
		if clean {
			k = i
		}
		props[i] = fmt.Sprintf(`"p%d": %s`, k, drawSchema(r, obj, depth+1, clean))
	}
	members := []string{`"type": "object"`, `"properties": ` + obj(props)}
	if r.IntN(3) == 0 {
		members = append(members, `"required": ["p0"]`, `"enum": [1, 2.5, -3e2, "x", true, null]`)
	}
	if !clean && r.IntN(6) == 0 {
		members = append(members, `"type": "array"`)
	}
	if !clean && r.IntN(10) == 0 {
		members = append(members, `"k\ud800": 1`, `"k\udc00": 2`)
	}
	return obj(members)
}

// catalogCheckFails reports whether a tool's member alone is refused by
// the checks (a drawn clean tool leaves it out).
func catalogCheckFails(member string) bool {
	return len(checkJSON("m.json", []byte(`[{"name": "a", `+member+`}]`))) > 0
}
