package agentsuite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
	"gopkg.in/yaml.v3"
)

// TestCommonFacts checks which words of the final responses become
// expect: lines: numbers and codes every response states, in the first
// response's order, never plain words.
func TestCommonFacts(t *testing.T) {
	for _, tc := range []struct {
		responses []string
		want      []string
	}{
		{[]string{"Booked HAT083, confirmation HATHAT.", "Booked HAT136, confirmation HATHAT."}, []string{"HATHAT"}},
		{[]string{"Q3 revenue grew 12% to 4.2M.", "In Q3 revenue grew 12% (4.2M)."}, []string{"Q3", "12%", "4.2M"}},
		{[]string{"Paris is sunny.", "Paris is sunny."}, nil}, // a capitalised word is not a fact
		{[]string{"Due 2026-11-20, ticket A1, B2, C3, D4.", "Due 2026-11-20, ticket A1, B2, C3, D4."}, []string{"2026-11-20", "A1", "B2"}},
		{[]string{""}, nil},
		// A secret a response repeats is never proposed: it would be
		// copied from the recording into the suite.
		{[]string{"Key AKIAIOSFODNN7EXAMPLE, token ghp_1234567890abcdefghijklmnopqrstuvwxyzAB, order 42."}, []string{"42"}},
		{nil, nil},
	} {
		if got := commonFacts(tc.responses); !slices.Equal(got, tc.want) {
			t.Errorf("commonFacts(%q) = %q, want %q", tc.responses, got, tc.want)
		}
	}
}

// TestQuoteReadsBack: every recorded name or fact written into the
// proposal reads back as itself. A NEL (U+0085) written as it is was read
// by the YAML parser as a line break, so the class "c\u0085d" became
// "c d" and the proposal failed on its own recording.
func TestQuoteReadsBack(t *testing.T) {
	for _, s := range []string{"c\u0085d", "a\u2028b\u2029", "e\ufefff", "z\u200dj", "\u00a0x", "q\"uote\\x", "t\tab\r\n",
		"*alias", "&a !t {x: y}", "#h", "- d", "\x1b[31m", "\u202e", "é\u0301", "\U0001F600", "\U000E0001", "\x7f\u0080\u009f"} {
		var got string
		if err := yaml.Unmarshal([]byte("v: "+quote(s)), &struct{ V *string }{&got}); err != nil || got != s {
			t.Errorf("quote(%q) = %s reads back as %q, %v", s, quote(s), got, err)
		}
	}
}

// TestDottedToolNamesAreQualified: a server's tool whose name holds a dot
// (mcp__srv__db.query) is proposed as the member srv.db.query. Written as
// db.query it was read as tool query of server db, matched nothing, and
// the proposal's F1 floor was lowered to 80 to pass on its own recording.
func TestDottedToolNamesAreQualified(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "d.jsonl")
	session := `{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["files.read","mcp__srv__db.query","mcp__github__get_issue"]}
{"type":"assistant","session_id":"s","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"files.read","input":{}},{"type":"tool_use","id":"t2","name":"mcp__srv__db.query","input":{}},{"type":"tool_use","id":"t3","name":"mcp__github__get_issue","input":{}}]}}
{"type":"result","subtype":"success","session_id":"s","result":"done"}
`
	if err := os.WriteFile(rec, []byte(session), 0o644); err != nil {
		t.Fatal(err)
	}
	suitePath := filepath.Join(dir, "suite.yml")
	p, err := Propose(suitePath, []string{rec})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`tool_names: { contains: "db.query" }`, `members: ["srv.db.query"]`, `members: ["files.read"]`, `members: ["get_issue"]`,
		`tool_selection.f1: { ">=": 100 }`, `allowed: ["files.read", "get_issue", "srv.db.query"]`} {
		if !strings.Contains(p.Suite, want) {
			t.Errorf("proposal lacks %s:\n%s", want, p.Suite)
		}
	}
	s, err := engine.ParseSuite(suitePath, []byte(p.Suite))
	if err != nil {
		t.Fatal(err)
	}
	env, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := env.Cases[0]
	if c.Verdict != report.Pass || c.Targets["edges.allowed_pct"] != 100 {
		t.Errorf("verdict %s, targets %v", c.Verdict, c.Targets)
	}
	for _, f := range c.Findings {
		if f.Level == "warning" {
			t.Errorf("warning on the proposal: %s", f.Message)
		}
	}
}

// TestProposedNamesAreUnique: two recordings named a, a third named "a #2"
// and a fourth a get four distinct test names (the fourth the next free
// number, "a #3"); the second a was named "a #2" too, and the proposal did
// not load.
func TestProposedNamesAreUnique(t *testing.T) {
	dir := t.TempDir()
	session := `{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"]}
{"type":"result","subtype":"success","session_id":"s","result":"done"}
`
	var paths []string
	for _, p := range []string{"a.jsonl", "sub/a.jsonl", "a #2.jsonl", "x/a.jsonl"} {
		path := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(session), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	p, err := Propose(filepath.Join(dir, "suite.yml"), paths)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`- name: "a"`, `- name: "a #2"`, `- name: "a #2 #2"`, `- name: "a #3"`} {
		if !strings.Contains(p.Suite, want) {
			t.Errorf("proposal lacks %s:\n%s", want, p.Suite)
		}
	}
}

// TestUnclassedIsLoud: a recording whose runs agree on no tool (one run
// called get-sum, one called nothing: what `record --append` wrote for a
// client library's probe) is proposed with a loud note, a REVIEW comment
// in the test and the count in the proposal, never as a quiet suite with
// no tool check; a recording whose runs called nothing is said the same.
func TestUnclassedIsLoud(t *testing.T) {
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe.json")
	idle := filepath.Join(dir, "idle.json")
	agreed := filepath.Join(dir, "agreed.json")
	call := `{"server": "everything", "tool": "get-sum", "arguments": {"a": 2, "b": 3}}`
	for path, runs := range map[string]string{
		probe:  `[{"turns": [{"calls": []}]}, {"turns": [{"calls": [` + call + `]}]}]`,
		idle:   `[{"turns": [{"calls": [], "final_response": "5"}]}]`,
		agreed: `[{"turns": [{"calls": [` + call + `]}]}]`,
	} {
		doc := `{"mcptest_cassette": 1, "catalog": {"everything": {"tools": [{"name": "get-sum", "inputSchema": {"type": "object"}}]}}, "runs": ` + runs + `}`
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Propose(filepath.Join(dir, "suite.yml"), []string{probe, idle, agreed})
	if err != nil {
		t.Fatal(err)
	}
	if p.Unclassed != 2 || p.Cases != 3 {
		t.Errorf("unclassed %d of %d, want 2 of 3", p.Unclassed, p.Cases)
	}
	notes := strings.Join(p.Notes, "\n")
	for _, want := range []string{`probe: NO SELECTION CLASS: every tool the runs called ("get-sum") was called in some runs only`,
		"idle: NO SELECTION CLASS: no run called a tool"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "agreed: NO") {
		t.Errorf("a recording whose runs agree is noted unclassed:\n%s", notes)
	}
	if n := strings.Count(p.Suite, "# REVIEW: NO SELECTION CLASS"); n != 2 {
		t.Errorf("%d REVIEW comments, want 2:\n%s", n, p.Suite)
	}
}
