package toolbench_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/gate/toolbench"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/live"
)

// catalogs reads a spec's catalog with live's readers, as mcptest does.
var catalogs = toolbench.CatalogsOf(live.ParseCatalog, live.ReadFile)

// TestRunFile: a spec runs; each problem of a spec, found by the reader
// or by Validate, is a diag error at its file:line:col (1-based), with
// every problem of the file at once; a missing file names the file.
func TestRunFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const catalog = "catalog: {tools: [{name: get_weather, description: Get the weather of a city}, {name: send_mail, description: Send an email}]}\n"
	ok := write("ok.yml", catalog+"intents: [{query: weather in Paris, gold: [get_weather]}]\nmutations: [{tool: get_weather, kind: blank}]\n")
	rep, err := toolbench.RunFile(ok, catalogs)
	if err != nil || len(rep.Mutations) != 1 || rep.Baseline.Intents != 1 {
		t.Fatalf("RunFile: %+v, %v", rep, err)
	}
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"unknown.yml", catalog + "intent: []\nmutations: [{tool: get_weather, kynd: blank}]\n",
			[]string{":2:1: unexpected key \"intent\"", ":3:33: unexpected key \"kynd\""}},
		{"both.yml", catalog + "catalog_path: c.json\nintents: []\n", []string{":2:1: give catalog or catalog_path, not both"}},
		{"gold.yml", catalog + "intents:\n  - query: q\n    gold: [nope]\n", []string{`:4:11: intents[0].gold: "nope" is not a tool of the catalog`}},
		{"nocatalog.yml", "intents: []\n", []string{":1:1: no catalog"}},
	} {
		_, err := toolbench.RunFile(write(tt.name, tt.text), catalogs)
		if err == nil {
			t.Errorf("%s: accepted", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), tt.name+w) {
				t.Errorf("%s: %v\nwant %s%s", tt.name, err, tt.name, w)
			}
		}
	}
	if _, err := toolbench.RunFile(filepath.Join(dir, "none.yml"), catalogs); err == nil || !strings.Contains(err.Error(), "none.yml") {
		t.Errorf("a missing spec: %v", err)
	}
}

// FuzzBenchSpec feeds any bytes to the tool-bench spec reader: it never
// panics; a spec it accepts has its intents and mutations, and every
// error it returns is a positioned diag.Error, the spec's own carrying at
// most the spec's bytes.
func FuzzBenchSpec(f *testing.F) {
	for _, pattern := range []string{"../../cmd/mcptest/testdata/toolbench/*/*.yml", "../../examples/tool-description-bench/spec.yml"} {
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
		spec, doc, err := toolbench.ParseSpec(path, data, catalogs)
		if err == nil {
			if doc == nil || len(spec.Tools) == 0 && doc.Value("/catalog") == nil && doc.Value("/catalog_path") == nil {
				t.Fatalf("a spec without a catalog was accepted")
			}
			var se *toolbench.SpecError
			if _, err := toolbench.Run(spec); errors.As(err, &se) {
				if p := toolbench.SpecPos(doc, se); p.Line < 1 {
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
