package live

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessDeepCatalog runs the built binary's `mcptest tools --catalog`
// over tools whose input schemas nest objects 8,000 deep (a hostile
// or generated catalog): every tool is listed, one-line and pretty JSON
// alike. Such a tool is deeper than jsonpos.ObjectDepth, so it is decoded
// whole, not written from its bytes, where each level of objects read the
// rest of the schema again (BenchmarkCanonicalDeepObjects).
func TestProcessDeepCatalog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcptest")
	}
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	const tools, depth = 24, 4000
	schema := `{"type":"object","properties":{"q":` + strings.Repeat(`{"type":"object","properties":{"a":`, depth) +
		`{"type":"string"}` + strings.Repeat(`}}`, depth) + `}}`
	var one, pretty strings.Builder
	one.WriteString(`{"tools":[`)
	pretty.WriteString("{\n  \"tools\": [\n")
	for i := range tools {
		if i > 0 {
			one.WriteString(",")
			pretty.WriteString(",\n")
		}
		tool := `{"name":"deep_` + string(rune('a'+i)) + `","description":"Reads a nested record.","inputSchema":` + schema + `}`
		one.WriteString(tool)
		pretty.WriteString("    " + strings.ReplaceAll(tool, `,"`, ",\n      \""))
	}
	one.WriteString(`]}`)
	pretty.WriteString("\n  ]\n}\n")
	var want string
	for name, text := range map[string]string{"one-line.json": one.String(), "pretty.json": pretty.String()} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "tools", "--catalog", path).CombinedOutput()
		if err != nil {
			t.Fatalf("mcptest tools --catalog %s: %v\n%.600s", name, err, out)
		}
		for i := range tools {
			if !strings.Contains(string(out), "deep_"+string(rune('a'+i))) {
				t.Fatalf("%s: deep_%c not listed:\n%.600s", name, 'a'+i, out)
			}
		}
		if want == "" {
			want = string(out)
		} else if string(out) != want {
			t.Errorf("%s lists\n%.400s\nthe other layout\n%.400s", name, out, want)
		}
	}
}
