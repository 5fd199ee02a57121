package live

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// readBoth reads a YAML catalog file with ReadFile (tool by tool where it
// can) and with the whole-document reader, and fails unless both give the
// same errors, or the same catalog: raw tools, typed tools and the other
// lists. It reports whether ReadFile read it tool by tool.
func readBoth(t *testing.T, path string, data []byte) (byTool bool) {
	t.Helper()
	got, err := ReadFile(path)
	want, wantErr := readYAMLWhole(path, data)
	_, byTool = readYAMLTools(path, data)
	if g, w := catalogErrText(err), catalogErrText(wantErr); g != w {
		t.Fatalf("%s:\n%s\nReadFile: %s\nthe whole reader: %s", path, data, g, w)
	}
	if err != nil {
		if byTool {
			t.Fatalf("%s:\n%s\nread tool by tool, yet the whole reader refuses it: %v", path, data, wantErr)
		}
		return false
	}
	if !reflect.DeepEqual(got.RawTools(), want.RawTools()) {
		t.Fatalf("%s:\n%s\nraw tools %v, want %v", path, data, got.RawTools(), want.RawTools())
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s:\n%s\ncatalog %s, want %s", path, data, g, w)
	}
	return byTool
}

// catalogErrText is an error as compared: every positioned error with its
// hint and whether it carries the source, or the error's text.
func catalogErrText(err error) string {
	if err == nil {
		return "<nil>"
	}
	if l, ok := err.(diag.List); ok {
		return errorsText(l)
	}
	return err.Error()
}

// TestYAMLCatalogAgreesWithTree: drawn YAML catalogs, clean and wrong in
// the ways catalog files are (a member of the wrong type or tag, a typo, a
// repeated key at any depth, an alias, a merge key, a non-string key, a
// number YAML reads and JSON cannot hold, a tool that is not a mapping, a
// typo of a key beside the tools),
// in the layouts YAML allows (the list at column 1 or indented, block and
// flow collections, block scalars, comments, CRLF line ends, other lists
// beside the tools), read by ReadFile exactly as the whole-document
// reader reads them: the same errors at the same places, or the same
// catalog. Most clean ones are read tool by tool.
func TestYAMLCatalogAgreesWithTree(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 8))
	dir := t.TempDir()
	draws := 500
	if testing.Short() {
		draws = 150
	}
	accepted, byTool := 0, 0
	for d := range draws {
		data := []byte(drawYAMLCatalog(r))
		path := filepath.Join(dir, fmt.Sprintf("draw-%03d.yml", d))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if readBoth(t, path, data) {
			byTool++
		}
		if _, err := ReadFile(path); err == nil {
			accepted++
		}
	}
	t.Logf("%d drawn YAML catalogs: %d accepted, %d of them read tool by tool", draws, accepted, byTool)
	if accepted < draws/5 || byTool < accepted/2 || accepted == draws {
		t.Errorf("%d of %d accepted, %d read tool by tool: the readers are hardly compared", accepted, draws, byTool)
	}
}

// drawYAMLCatalog writes a YAML catalog with drawn defects and layout.
func drawYAMLCatalog(r *rand.Rand) string {
	ind := []string{"", "  "}[r.IntN(2)]
	var b strings.Builder
	if r.IntN(4) == 0 {
		b.WriteString("# a catalog\nprotocolVersion: \"2025-06-18\"\nserverInfo:\n  name: s\n  version: \"1\"\n")
	}
	switch r.IntN(14) {
	case 0:
		b.WriteString("tols:\n")
	case 1:
		b.WriteString("{tools: [{name: a}]}\n")
		return b.String()
	case 2:
		b.Reset() // a bare list of tools
		ind = ""
	case 3:
		b.WriteString("tools: &all\n")
	default:
		b.WriteString("tools:\n")
	}
	n := r.IntN(6)
	for i := range n {
		if r.IntN(5) == 0 {
			b.WriteString("\n" + ind + "# tool\n")
		}
		b.WriteString(drawYAMLTool(r, ind, i))
	}
	switch r.IntN(8) {
	case 0:
		b.WriteString("resources:\n- uri: file:///a\n  name: a\n")
	case 1:
		b.WriteString("prompts:\n  - name: p\ninstructions: Use it.\n")
	case 2:
		b.WriteString("tools:\n- name: again\n")
	case 3:
		b.WriteString("x-extra: 1\n")
	case 4:
		// A typo of a list beside the tools: the checks refuse it.
		b.WriteString("promts:\n  - name: p\n")
	case 5:
		b.WriteString("_private: 1\nserverinfo:\n  name: s\n")
	}
	out := b.String()
	if r.IntN(10) == 0 {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return out
}

// drawYAMLTool writes one tool at the list's indentation, its members in
// a drawn order, now and then one of them wrong.
func drawYAMLTool(r *rand.Rand, ind string, i int) string {
	clean := r.IntN(2) == 0
	if !clean {
		switch r.IntN(12) {
		case 0:
			return ind + "- 42\n"
		case 1:
			return ind + "- [name, x]\n"
		case 2:
			return ind + "-\n"
		case 3:
			return ind + fmt.Sprintf("- {name: flow%d, description: \"in flow\"}\n", i)
		}
	}
	names := []string{fmt.Sprintf("tool_%d", i), fmt.Sprintf("\"quoted %d\"", i), fmt.Sprintf("'single_%d'", i)}
	bad := []string{"7", "~", "2024-01-01", "!!str 5", "!custom x", "\"\"", "[a]", "{a: 1}", "yes"}
	name := names[r.IntN(len(names))]
	if !clean && r.IntN(3) == 0 {
		name = bad[r.IntN(len(bad))]
	}
	in := ind + "  "
	members := []string{"name: " + name}
	optional := []string{
		"description: Finds things fast.",
		"description: |\n" + in + "  Finds things.\n" + in + "  Two lines: with a colon # and a hash\n",
		"description: >\n" + in + "  folded\n" + in + "  text\n",
		"description: \"quoted \\u00e9 \\U0001F680 <a & b>\"",
		"description: 'it''s'",
		"description: ünïcode — text",
		"title: T",
		"inputSchema:\n" + in + "  type: object\n" + in + "  properties:\n" + in + "    q:\n" + in + "      type: string\n" + in + "      description: the query\n" + in + "    n: {type: integer, minimum: 1, maximum: 100, default: 10}\n" + in + "  required: [q]",
		"inputSchema: {type: object, properties: {a: {type: number, enum: [1, 2.5, -3e2, 1.0, 0, -0]}}}",
		"inputSchema: {}",
		"inputSchema: {a: 007, b: 1.5e3, c: -1E-7, d: 1e21, e: 0.1, f: 1234567890123456789, g: +5, h: .5, i: -0.0, j: -0, k: 123456789012345678, l: 1.0e+2, m: 0.0000001}",
		"inputSchema: {t: [true, True, TRUE, false, no, on, ~, null, Null, '', \"\\t\\u2028\"]}",
		"outputSchema:\n" + in + "  type: object",
		"annotations:\n" + in + "  readOnlyHint: true\n" + in + "  destructiveHint: false",
		"annotations: {openWorldHint: true, title: Nice}",
		"annotations: ~",
		"outputSchema: null",
		"title: null",
		"_meta: {k: v}",
		"x-vendor: [1, 2]",
		"icons:\n" + in + "  - src: https://x/i.png",
		"execution: {taskSupport: forbidden}",
	}
	wrong := []string{
		"descripton: typo", "description: 3", "description: 2024-01-01", "description: !!binary aGk=",
		"description: [a]", "inputSchema: object", "inputSchema: null", "inputSchema:", "annotations: 5",
		"annotations: {readOnlyHint: yes}", "annotations: {readOnlyHint: \"yes\"}", "name: twice",
		"inputSchema: {type: object, type: array}", "inputSchema:\n" + in + "  properties:\n" + in + "    q: {}\n" + in + "    q: {}",
		"inputSchema: &s {type: object}", "inputSchema: {maximum: .inf}", "inputSchema: {maximum: 1e400}",
		"inputSchema: {big: 123456789012345678901234567890}", "inputSchema: {hex: 0x1F, oct: 0o17, under: 1_000}",
		"inputSchema: {<<: {type: object}}", "inputSchema: {1: one}", "inputSchema: {? [a] : b}",
		"title: !custom T", "nmae: typo", "inputSchema: {when: 2001-12-14t21:59:43.10-05:00}",
		"description: \"a\n" + in + "  b\"", "inputSchema: {d: !!float 1, i: !!int \"2\", s: !!str 3}",
	}
	seen := map[string]bool{"name": true}
	for range r.IntN(5) {
		m := optional[r.IntN(len(optional))]
		if !clean && r.IntN(3) == 0 {
			m = wrong[r.IntN(len(wrong))]
		}
		key, _, _ := strings.Cut(m, ":")
		if clean && seen[key] {
			continue
		}
		seen[key] = true
		members = append(members, m)
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	var b strings.Builder
	for k, m := range members {
		lead := in
		if k == 0 {
			lead = ind + "- "
		}
		b.WriteString(lead + strings.TrimSuffix(m, "\n") + "\n")
	}
	if !clean && r.IntN(8) == 0 {
		b.WriteString(in + "extra: *s\n")
	}
	return b.String()
}
