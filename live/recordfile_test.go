package live

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// TestReadRecording: --append starts a new cassette where none exists,
// adds to a v1 cassette, and refuses anything else as wrong input.
func TestReadRecording(t *testing.T) {
	dir := t.TempDir()
	doc, err := ReadRecording(filepath.Join(dir, "new.json"))
	if doc != nil || err != nil {
		t.Errorf("a missing cassette: %v, %v; want nothing to add to", doc, err)
	}
	doc, err = ReadRecording("../cassette/testdata/ok/v1_multirun.json")
	if err != nil || doc == nil || len(doc.Runs) < 2 {
		t.Fatalf("a v1 cassette: %v, %v", doc, err)
	}
	for name, want := range map[string]string{
		"../cassette/testdata/ok/openai_chat.json": "--append adds to an mcptest v1 cassette",
		filepath.Join(dir, "broken.json"):          "broken.json",
	} {
		if strings.HasSuffix(name, "broken.json") {
			if err := os.WriteFile(name, []byte(`{"version": 1, "runs": [`), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err := ReadRecording(name)
		var ie *diag.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want an diag.InputError saying %q", name, err, want)
		}
	}
}

// TestLayers: a catalog file has no handshake and no auth; a URL target
// has both, and names the env var its token came from.
func TestLayers(t *testing.T) {
	cat, err := ParseCatalog([]byte(sampleCatalog))
	if err != nil {
		t.Fatal(err)
	}
	names := func(r LayerReport) string {
		var out []string
		for _, l := range r.Layers {
			out = append(out, l.Layer)
		}
		return strings.Join(out, " ")
	}
	file := Layers(Target{Catalog: "cat.yml"}, cat)
	if got := names(file); got != "target tools resources prompts" || file.Layers[0].Detail != "catalog file: cat.yml" {
		t.Errorf("catalog file: %s %+v", got, file.Layers[0])
	}
	url := Layers(Target{URL: "http://127.0.0.1:1/mcp", BearerTokenEnv: "MCP_TOKEN"}, cat)
	if got := names(url); got != "target auth initialize tools resources prompts" || !strings.Contains(url.Layers[1].Detail, "MCP_TOKEN") {
		t.Errorf("url: %s %+v", got, url.Layers)
	}
	if url.ToolSurfaceTokens != cat.SurfaceTokens() || url.ToolSurfaceTokens == 0 {
		t.Errorf("tool surface: %d, want %d", url.ToolSurfaceTokens, cat.SurfaceTokens())
	}
}
