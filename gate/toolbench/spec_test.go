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

// TestSpecErrors: each problem a spec can have, alone, is an error at the
// place it is (file:line:col) that names the entry and what was expected;
// a chars of 0 or 2^31 is accepted, -1, 1.5 and 2^31+1 are not; a relative
// catalog_path is read beside the spec, an absolute one where it is.
func TestSpecErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	catJSON := write("c.json", `{"tools": [{"name": "get_weather", "description": "Get the weather of a city"}]}`)
	const cat = "catalog: {tools: [{name: get_weather, description: Get the weather of a city}]}\n"
	const intents = "intents: [{query: weather in Paris, gold: [get_weather]}]\n"
	for _, tt := range []struct {
		name, text string
		want       string // the error's start after the directory, "" for a spec that runs
	}{
		{"chars0.yml", cat + intents + "mutations: [{tool: get_weather, kind: truncate, chars: 0}]\n", ""},
		{"chars31.yml", cat + intents + "mutations: [{tool: get_weather, kind: truncate, chars: 2147483648}]\n", ""},
		{"charsneg.yml", cat + intents + "mutations: [{tool: get_weather, kind: truncate, chars: -1}]\n", "charsneg.yml:3:56: mutations[0].chars: expected a whole number of characters (>= 0)"},
		{"charsfrac.yml", cat + intents + "mutations: [{tool: get_weather, kind: truncate, chars: 1.5}]\n", "charsfrac.yml:3:56: mutations[0].chars: expected a whole number"},
		{"charsbig.yml", cat + intents + "mutations: [{tool: get_weather, kind: truncate, chars: 2147483649}]\n", "charsbig.yml:3:56: mutations[0].chars: expected a whole number"},
		{"charszero.yml", cat + intents + "mutations: [{tool: get_weather, kind: truncate, chars: 0.0}]\n", "charszero.yml:3:56: mutations[0].chars: expected a whole number"},
		{"charsword.yml", cat + intents + "mutations: [{tool: get_weather, kind: truncate, chars: ten}]\n", "charsword.yml:3:56: mutations[0].chars: expected a whole number"},
		{"intentsmap.yml", cat + "intents: {query: q}\n", "intentsmap.yml:2:10: intents: expected a list, each item an intent {query, gold}"},
		{"intentitem.yml", cat + "intents: [3]\n", "intentitem.yml:2:11: intents[0]: expected an intent {query, gold}"},
		{"mutationitem.yml", cat + intents + "mutations: [x]\n", "mutationitem.yml:3:13: mutations[0]: expected a mutation {tool, kind}"},
		{"golditem.yml", cat + "intents: [{query: q, gold: [get_weather, 3]}]\n", "golditem.yml:2:42: intents[0].gold[1]: expected a tool name, a string"},
		{"query.yml", cat + "intents: [{query: [q], gold: [get_weather]}]\n", "query.yml:2:19: intents[0].query: expected a string"},
		{"root.yml", "- a\n", "root.yml:1:1: expected a mapping with catalog (or catalog_path), intents and mutations"},
		{"inline.yml", "catalog: {tools: 3}\n" + intents, "inline.yml:1:10: catalog: "},
		{"pathtype.yml", "catalog_path: 3\n" + intents, "pathtype.yml:1:15: catalog_path: expected the path of a catalog file"},
		{"pathempty.yml", "catalog_path: ''\n" + intents, "pathempty.yml:1:15: catalog_path: expected the path of a catalog file"},
		{"pathmissing.yml", "catalog_path: none.json\n" + intents, "pathmissing.yml:1:15: catalog_path: "},
		{"pathrel.yml", "catalog_path: c.json\n" + intents, ""},
		{"pathabs.yml", "catalog_path: " + catJSON + "\n" + intents, ""},
		{"noname.yml", "catalog: {tools: [{description: d}]}\n" + intents, "noname.yml:1:10: catalog: tools[0] has no name"},
		{"nonamepath.yml", "catalog_path: noname.json\n" + intents, "noname.json:1:12: tools[0]: missing \"name\""},
		{"nointents.yml", cat + "intents: []\n", "nointents.yml:2:1: intents: at least one intent is needed"},
		{"pathintents.yml", "catalog_path: c.json\nintents: []\n", "pathintents.yml:2:1: intents: at least one intent is needed"},
		{"badtool.yml", cat + intents + "mutations: [{tool: nope, kind: blank}]\n", "badtool.yml:3:20: mutations[0].tool: \"nope\" is not a tool of the catalog"},
		{"badkind.yml", cat + intents + "mutations: [{tool: get_weather, kind: shuffle}]\n", "badkind.yml:3:39: mutations[0].kind: kind \"shuffle\""},
	} {
		if tt.name == "nonamepath.yml" {
			write("noname.json", `{"tools": [{"description": "d"}]}`)
		}
		_, err := toolbench.RunFile(write(tt.name, tt.text), catalogs)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want it to run", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), string(filepath.Separator)+tt.want)):
			t.Errorf("%s: %v\nwant %s", tt.name, err, tt.want)
		}
	}
}

// TestSpecPosCatalog: a problem of a catalog's tool is placed at the tool's
// key in an inline catalog (a mapping or a bare list of tools), and at the
// catalog_path key for a catalog read from a file.
func TestSpecPosCatalog(t *testing.T) {
	se := &toolbench.SpecError{Section: "catalog.tools", Index: 1, Key: "name", Msg: "the tool has no name"}
	for _, tc := range []struct {
		text      string
		line, col int
	}{
		{"catalog:\n  tools:\n    - name: a\n    - name: b\n", 4, 13},
		{"catalog:\n  - name: a\n  - {description: d}\n", 3, 5},
		{"intents: []\ncatalog_path: c.json\n", 2, 1},
	} {
		_, doc, _ := toolbench.ParseSpec("s.yml", []byte(tc.text), toolbench.Catalogs{
			Parse: func([]byte) ([]map[string]any, error) { return nil, nil },
			File:  func(string) ([]map[string]any, error) { return nil, nil },
		})
		if p := toolbench.SpecPos(doc, se); p.Line != tc.line || p.Col != tc.col {
			t.Errorf("%q: %d:%d, want %d:%d", tc.text, p.Line, p.Col, tc.line, tc.col)
		}
	}
}

// TestSpecErrorsOfOneStage: a spec the YAML reader finds a problem in
// (a repeated key) is not decoded further: that problem alone, not also
// "no catalog".
func TestSpecErrorsOfOneStage(t *testing.T) {
	_, _, err := toolbench.ParseSpec("s.yml", []byte("intents: []\nintents: []\n"), catalogs)
	var l diag.List
	if !errors.As(err, &l) || len(l) != 1 || !strings.Contains(l[0].Message, "repeated") {
		t.Errorf("%v; want the repeated key alone", err)
	}
}

// TestCatalogErrorsKeepTheirSource: the spec's bytes go with the spec's
// own errors only; an error of the catalog file is passed on as it came.
func TestCatalogErrorsKeepTheirSource(t *testing.T) {
	cats := toolbench.Catalogs{File: func(path string) ([]map[string]any, error) {
		return nil, diag.List{&diag.Error{Pos: diag.Pos{File: path, Line: 1, Col: 1}, Message: "bad catalog"}}
	}}
	_, _, err := toolbench.ParseSpec("s.yml", []byte("catalog_path: c.json\nintents: 3\n"), cats)
	var l diag.List
	if !errors.As(err, &l) || len(l) != 2 {
		t.Fatalf("%v; want 2 errors", err)
	}
	for _, e := range l {
		if own := e.Pos.File == "s.yml"; own != (e.Source != nil) {
			t.Errorf("%v: source %q", e, e.Source)
		}
	}
}
