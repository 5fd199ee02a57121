package agentsuite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// FuzzPropose checks the promise of generate agent-suite on any recording
// mcptest reads: the proposal loads and every test passes on the
// recording it came from (a recording without runs, or whose runs called
// a tool annotated destructive: the proposal says its test fails).
func FuzzPropose(f *testing.F) {
	seeds, _ := filepath.Glob("../../examples/traces/cassettes/*")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(filepath.Ext(s), data)
		}
	}
	f.Add(".jsonl", []byte(`{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["mcp__srv__db.query","a\u0085b"]}
{"type":"assistant","session_id":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"mcp__srv__db.query","input":{}},{"type":"tool_use","id":"t2","name":"a\u0085b","input":{}}]}}
{"type":"result","subtype":"success","session_id":"s","result":"Booked HAT083 \u0085 for $42, key AKIAIOSFODNN7EXAMPLE"}
`))
	f.Fuzz(func(t *testing.T, ext string, data []byte) {
		if ext != ".json" && ext != ".jsonl" {
			ext = ".json"
		}
		cas, err := cassette.Read("r"+ext, data)
		if err != nil {
			return
		}
		dir := t.TempDir()
		rec := filepath.Join(dir, "r"+ext)
		if err := os.WriteFile(rec, data, 0o644); err != nil {
			t.Fatal(err)
		}
		suitePath := filepath.Join(dir, "suite.yml")
		p, err := Propose(suitePath, []string{rec})
		if err != nil {
			t.Fatalf("a readable recording was refused: %v", err)
		}
		s, err := engine.ParseSuite(suitePath, []byte(p.Suite))
		if err != nil {
			t.Fatalf("the proposal does not load: %v\n%s", err, p.Suite)
		}
		env, err := engine.Run(s, engine.Options{})
		if err != nil {
			t.Fatalf("the proposal does not run: %v\n%s", err, p.Suite)
		}
		if len(cas.Runs) == 0 {
			// Nothing to propose from: the proposal says so.
			if !strings.Contains(p.Suite, "# review: the recording holds no runs") {
				t.Fatalf("a recording without runs, and the proposal does not say so:\n%s", p.Suite)
			}
			return
		}
		if slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "the restricted edge fails") }) {
			return // a destructive tool was called: the note says the test fails
		}
		for _, c := range env.Cases {
			if c.Verdict != report.Pass {
				t.Fatalf("case %q is %s on its own recording:\n%s", c.Name, c.Verdict, p.Suite)
			}
		}
	})
}
