package live

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/engine/diag"
)

func TestCatalogFileErrorsArePositioned(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"typo and wrong types", "tools:\n  - name: x\n    descripton: y\n    inputSchema: 3\n", []string{
			`cat.yml:3:5: tools[0]: unexpected key "descripton": expected one of "annotations", "description", "icons", "inputSchema", "name", "outputSchema", "title" (or an ` + "`_` or `x-`" + ` extension key) (did you mean ` + "`description`" + `?) [catalog]`,
			`cat.yml:4:18: tools[0].inputSchema: expected a mapping (a JSON object) [catalog]`,
		}},
		{"missing and empty names", "- description: no name\n- name: \"\"\n", []string{
			`cat.yml:1:3: tools[0]: missing "name": every tool has a name [catalog]`,
			`cat.yml:2:9: tools[1].name: expected the tool's name, a non-empty string [catalog]`,
		}},
		{"not a catalog", "servers: {}\n", []string{`cat.yml:1:1: missing "tools": a tools/list result lists the server's tools under "tools" [catalog]`}},
		{"empty", "", []string{`cat.yml:1:1: the catalog is empty: expected a tools/list result {"tools": [...]} or an array of tools [catalog]`}},
		{"json with extensions", `{"tools": [{"name": "a", "_meta": {}, "x-owner": "me", "description": null}]}`, nil},
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
