package agentsuite

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// corpusRecordings are the recordings of the corpus: the readers' test
// files and the examples' cassettes, one per file.
func corpusRecordings(t *testing.T) []string {
	var files []string
	for _, root := range []string{"../../cassette/testdata/ok", "../../examples"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			ext := filepath.Ext(p)
			if !d.IsDir() && (ext == ".json" || ext == ".jsonl") && (root != "../../examples" || strings.Contains(filepath.ToSlash(p), "/cassettes/")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 50 {
		t.Fatalf("only %d recordings found", len(files))
	}
	return files
}

// TestDraftsPassTheirRecordings: over every recording of the corpus, the
// draft `generate agent-suite` proposes passes on the recording it came
// from (Propose checks it and fails on a draft that does not; the suite is
// run again here), inconclusive only where no run called a tool (and
// failed where the recording holds no run, which the draft says).
func TestDraftsPassTheirRecordings(t *testing.T) {
	dir := t.TempDir()
	suitePath := filepath.Join(dir, "suite.yml")
	verdicts := map[report.Verdict]int{}
	for _, f := range corpusRecordings(t) {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Propose(suitePath, []string{abs})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		s, err := engine.ParseSuite(suitePath, []byte(p.Suite))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		env, err := engine.Run(s, engine.Options{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range env.Cases {
			verdicts[c.Verdict]++
			noCalls := c.Verdict == report.Inconclusive && slices.ContainsFunc(c.Findings, func(f report.Finding) bool { return f.Gate == "no_calls" })
			if c.Verdict != report.Pass && !noCalls && c.Runs > 0 {
				t.Errorf("%s: the draft is %s on its own recording: %+v\n%s", f, c.Verdict, c.Findings, p.Suite)
			}
		}
	}
	t.Logf("verdicts %v", verdicts)
}

// TestDraftFailsTheRegressions: a draft proposed from recorded runs fails
// each regression of the agent: a wrong tool, a call to a tool that
// changes state and no run called, three times the tokens, invalid
// arguments, the steps reordered.
func TestDraftFailsTheRegressions(t *testing.T) {
	schema := func(req string) map[string]any {
		return map[string]any{"type": "object", "properties": map[string]any{req: map[string]any{"type": "string"}}, "required": []any{req}}
	}
	cas := func(calls [][3]string, tokens int) string {
		var cs []map[string]any
		for _, c := range calls {
			var args any
			_ = json.Unmarshal([]byte(c[2]), &args)
			cs = append(cs, map[string]any{"server": "memory", "tool": c[0], "arguments": args, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": c[1]}}}})
		}
		run := map[string]any{"turns": []any{map[string]any{"calls": cs, "final_response": "Stored Alice as person 42."}},
			"tokens": map[string]any{"input": tokens - 100, "output": 100, "total": tokens}}
		doc := map[string]any{"mcptest_cassette": 1, "model": "m", "catalog": map[string]any{"memory": map[string]any{"tools": []any{
			map[string]any{"name": "create_entities", "inputSchema": schema("name")},
			map[string]any{"name": "read_graph", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true}},
			map[string]any{"name": "search_nodes", "inputSchema": schema("query"), "annotations": map[string]any{"readOnlyHint": true}},
			map[string]any{"name": "delete_entities", "inputSchema": schema("name")},
		}}}, "runs": []any{run, run}}
		b, _ := json.Marshal(doc)
		return string(b)
	}
	good := [][3]string{{"create_entities", "ok", `{"name": "Alice"}`}, {"read_graph", "Alice", `{}`}}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rec := write("baseline.json", cas(good, 1000))
	suitePath := filepath.Join(dir, "suite.yml")
	p, err := Propose(suitePath, []string{rec})
	if err != nil {
		t.Fatal(err)
	}
	for name, regressed := range map[string]string{
		"wrong tool":        cas([][3]string{{"create_entities", "ok", `{"name": "Alice"}`}, {"search_nodes", "Alice", `{"query": "Alice"}`}}, 1000),
		"restricted call":   cas(append(append([][3]string{}, good...), [3]string{"delete_entities", "ok", `{"name": "Alice"}`}), 1000),
		"tokens x3":         cas(good, 3000),
		"invalid arguments": cas([][3]string{{"create_entities", "ok", `{"nom": "Alice"}`}, {"read_graph", "Alice", `{}`}}, 1000),
		"reordered steps":   cas([][3]string{good[1], good[0]}, 1000),
	} {
		write("baseline.json", regressed)
		s, err := engine.ParseSuite(suitePath, []byte(p.Suite))
		if err != nil {
			t.Fatal(err)
		}
		env, err := engine.Run(s, engine.Options{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if env.Cases[0].Verdict != report.Fail {
			t.Errorf("%s: the draft gives %s, want fail\n%s", name, env.Cases[0].Verdict, p.Suite)
		}
	}
}
