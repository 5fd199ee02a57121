package live

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
)

func TestCatalogFileErrorsArePositioned(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"typo and wrong types", "tools:\n  - name: x\n    descripton: y\n    inputSchema: 3\n", []string{
			`cat.yml:3:5: tools[0]: unexpected key "descripton": expected one of "_meta", "annotations", "description", "execution", "icons", "inputSchema", "name", "outputSchema", "title" (or an ` + "`_` or `x-`" + ` extension key) (did you mean ` + "`description`" + `?) [catalog]`,
			`cat.yml:4:18: tools[0].inputSchema: expected a mapping (a JSON object) [catalog]`,
		}},
		{"missing and empty names", "- description: no name\n- name: \"\"\n", []string{
			`cat.yml:1:3: tools[0]: missing "name": every tool has a name [catalog]`,
			`cat.yml:2:9: tools[1].name: expected the tool's name, a non-empty string [catalog]`,
		}},
		{"not a catalog", "servers: {}\n", []string{`cat.yml:1:1: missing "tools": a tools/list result lists the server's tools under "tools" [catalog]`}},
		{"empty", "", []string{`cat.yml:1:1: the catalog is empty: expected a tools/list result {"tools": [...]} or an array of tools [catalog]`}},
		// Fields of the MCP schema and of later revisions are kept; null
		// where the schema allows an absent value is absent.
		{"json as servers and registries write it", `{"tools": [{"name": "a", "title": null, "annotations": null, "outputSchema": null, "execution": {"taskSupport": "forbidden"}, "icons": null, "sessionScoped": true}]}`, nil},
		{"required inputSchema null", `{"tools": [{"name": "🚀", "inputSchema": null}]}`, []string{
			`cat.yml:1:41: tools[0].inputSchema: expected a mapping (a JSON object) [catalog]`,
		}},
		{"json with extensions", `{"tools": [{"name": "a", "_meta": {}, "x-owner": "me", "description": null}]}`, nil},
		// A repeated key is refused where it is repeated, naming the first:
		// the last one used to win (JSON) or the error had no column (YAML).
		{"duplicate keys in json", `{"tools": [{"name": "a", "description": "x", "name": "b"}], "tools": []}`, []string{
			`cat.yml:1:46: tools[0]: duplicate key "name" (first at 1:13) [catalog]`,
			`cat.yml:1:61: duplicate key "tools" (first at 1:2) [catalog]`,
		}},
		{"duplicate keys in yaml", "tools:\n  - name: a\n    inputSchema:\n      properties: {q: {}, q: {}}\n", []string{
			`cat.yml:4:27: tools[0].inputSchema.properties: duplicate key "q" (first at 4:20) [catalog]`,
		}},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "cat.yml")
			if err := os.WriteFile(path, []byte(tt.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(path)
			var got []string
			var l diag.List
			if errors.As(err, &l) {
				for _, e := range l {
					got = append(got, strings.TrimPrefix(e.Error(), dir+"/"))
				}
			} else if err != nil && tt.want != nil {
				t.Fatalf("error is not positioned: %v", err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestCatalogFileRefusedBeforeReading: a catalog path that names a FIFO, a
// device or a file over MaxCatalogBytes is refused from its stat, with a
// positioned error (a FIFO without a writer used to block for ever).
func TestCatalogFileRefusedBeforeReading(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "cat.json")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(pipe, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 1<<30); err != nil {
		t.Skip("no sparse files here:", err)
	}
	for path, want := range map[string]string{
		pipe:        pipe + ": is a named pipe (FIFO), not a regular file [catalog]",
		big:         big + ": the file is 1 GiB, over the 16 MiB limit for a catalog [catalog]",
		"/dev/null": "/dev/null: is a device, not a regular file [catalog]",
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(path); done <- err }()
		select {
		case err := <-done:
			var l diag.List
			if !errors.As(err, &l) || err.Error() != want {
				t.Errorf("%s: %v, want %s", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still blocked after 5s", path)
		}
	}
}
