package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/gate/toolbench"
)

// FuzzBenchSpec feeds any bytes to the tool-bench spec reader: it never
// panics; a spec it accepts has its intents and mutations, and every
// error it returns is a positioned diag.Error, the spec's own carrying at
// most the spec's bytes.
func FuzzBenchSpec(f *testing.F) {
	for _, pattern := range []string{"testdata/toolbench/*/*.yml", "../../examples/tool-description-bench/spec.yml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte("catalog: {tools: [{name: a}]}\nintents: [{query: q, gold: [a]}]\nmutations: [{tool: a, kind: truncate, chars: 1e300}]\n"))
	dir := f.TempDir()
	path := filepath.Join(dir, "spec.yml")
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, doc, err := parseBenchSpec(path, data)
		if err == nil {
			if doc == nil || len(spec.Tools) == 0 && doc.Value("/catalog") == nil && doc.Value("/catalog_path") == nil {
				t.Fatalf("a spec without a catalog was accepted")
			}
			var se *toolbench.SpecError
			if _, err := toolbench.Run(spec); errors.As(err, &se) {
				if p := specPos(doc, se); p.Line < 1 {
					t.Fatalf("a spec error without a place: %v", se)
				}
			}
			return
		}
		var l diag.List
		if !errors.As(err, &l) || len(l) == 0 {
			t.Fatalf("not a diag.List: %v", err)
		}
		for _, e := range l {
			if e.Pos.File == path && (e.Pos.Line < 1 || e.Pos.Col < 1) {
				t.Fatalf("an error of the spec without a place: %v", e)
			}
			if e.Pos.File == path && e.Source != nil && string(e.Source) != string(data) {
				t.Fatalf("an error carries bytes that are not the spec's: %v", e)
			}
		}
	})
}
