package envstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// genCase makes the k-th case of a generated suite: its verdict, figures,
// counts, reliability and (for a case that fails, from an envelope written
// before the lean envelope) evidence vary with r.
func genCase(r *rand.Rand, k int, name string) *report.CaseResult {
	runs := int64(1 + r.IntN(4))
	passed := int64(r.IntN(int(runs) + 1))
	v := report.Pass
	if passed < runs {
		v = report.Fail
	}
	if r.IntN(20) == 0 {
		v = report.Inconclusive
	}
	c := &report.CaseResult{
		Name: name, Kind: report.KindAgent, Verdict: v,
		Position:         diag.Pos{File: "suite.yml", Line: 3 + 4*k, Col: 5},
		DefinitionSHA256: fmt.Sprintf("%064x", k),
		Runs:             int(runs),
		Cassettes:        &report.CassetteSet{Files: 1, SHA256: fmt.Sprintf("%064x", k*7), Paths: []string{fmt.Sprintf("cassettes/c%d.json", k)}},
		Targets:          map[string]float64{"tool_selection.f1": float64(r.IntN(101)), "reliability.pass_rate": float64(100 * passed / runs)},
		Counts:           map[string]int64{"reliability.runs": runs, "reliability.passed_runs": passed, "tool_selection.tp": int64(r.IntN(5))},
		Assertions: []report.AssertionResult{{Target: "tool_selection.f1", Matcher: map[string]any{">=": 50}, Actual: 60, Passed: v == report.Pass,
			Message: "assertion #0 (`tool_selection.f1`)", Position: diag.Pos{File: "suite.yml", Line: 5 + 4*k, Col: 9}}},
		Floors:   []report.Floor{},
		Findings: []report.Finding{},
		Labels:   map[string]string{"reliability.class": "flaky"},
	}
	if v == report.Fail && r.IntN(2) == 0 {
		c.Evidence = []report.RunEvidence{{Run: 1, Turns: []report.TurnEvidence{{Calls: []report.CallEvidence{{Tool: "search", Arguments: `{"q":"<x> & y"}`, Result: "ok"}}}}}}
	}
	return c
}

// genEnvelope is a generated envelope of n cases, named with prefix.
func genEnvelope(r *rand.Rand, n int, prefix string) *report.Envelope {
	env := &report.Envelope{
		SchemaVersion: report.SchemaVersion, Tool: report.ToolInfo{Name: "mcptest", Version: "test"},
		Run:   report.RunInfo{ID: "r", Mode: "replay", StartedAt: "2026-01-01T00:00:00Z"},
		Suite: report.SuiteInfo{Path: "suite.yml", SHA256: "abc"},
		Floors: []report.SuiteFloor{{Index: 0, Target: "summary.pass_rate", Matcher: map[string]any{">=": 50},
			Position: diag.Pos{File: "suite.yml", Line: 1, Col: 1}}},
	}
	for k := range n {
		env.Cases = append(env.Cases, genCase(r, k, fmt.Sprintf("%s case %d", prefix, k)))
	}
	env.Summarize(expr.JudgeFloor)
	env.Tally()
	return env
}

func writeEnv(t *testing.T, path string, env *report.Envelope) {
	t.Helper()
	var buf bytes.Buffer
	if err := (annotate.JSON{}).Report(&buf, env); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// shardsOf splits env as `mcptest run --shard i/n` would.
func shardsOf(env *report.Envelope, n int) []*report.Envelope {
	var out []*report.Envelope
	for i := 1; i <= n; i++ {
		sh := report.Shard{Index: i, Count: n}
		e := *env
		e.Run.Shard = sh.String()
		e.Cases = nil
		for _, c := range env.Cases {
			if sh.Holds(c.Name) {
				e.Cases = append(e.Cases, c)
			}
		}
		if e.Cases == nil {
			e.Cases = []*report.CaseResult{}
		}
		floors := make([]report.SuiteFloor, len(env.Floors))
		copy(floors, env.Floors)
		e.Floors = floors
		e.Summarize(expr.JudgeFloor)
		e.Tally()
		out = append(out, &e)
	}
	return out
}

// TestMergeStreamIsMerge: over generated suites and shard counts, the
// streamed merge writes byte for byte what baseline.Merge's envelope
// encodes to, and a merge of shards that overlap or hold another shard's
// case fails as it does.
func TestMergeStreamIsMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 12 {
		n := r.IntN(300)
		shards := 1 + r.IntN(9)
		env := genEnvelope(r, n, fmt.Sprintf("round %d", round))
		dir := t.TempDir()
		var paths []string
		for i, sh := range shardsOf(env, shards) {
			p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
			writeEnv(t, p, sh)
			if round%2 == 1 {
				// Another layout than the JSON reporter's: the cases
				// are encoded again, not copied.
				data, err := json.Marshal(sh)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			paths = append(paths, p)
		}
		want, err := baseline.MergeFiles(paths)
		if err != nil {
			t.Fatal(err)
		}
		var wantJSON bytes.Buffer
		if err := (annotate.JSON{}).Report(&wantJSON, want); err != nil {
			t.Fatal(err)
		}
		m, err := MergeFiles(paths)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		var got bytes.Buffer
		if err := m.Write(&got); err != nil {
			t.Fatal(err)
		}
		m.Close()
		if !bytes.Equal(got.Bytes(), wantJSON.Bytes()) {
			t.Fatalf("round %d (%d cases, %d shards): the streamed merge differs from baseline.Merge", round, n, shards)
		}
		if shards > 1 && n > 0 {
			// A shard given twice overlaps.
			_, err := MergeFiles(append(paths[1:], paths[0], paths[0]))
			if err == nil {
				t.Fatalf("round %d: a shard given twice merged", round)
			}
		}
	}
}

// TestMergeStreamRefusesAsMerge: a case present twice in unsharded inputs
// and a case in the wrong shard are refused with baseline.Merge's words.
func TestMergeStreamRefusesAsMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	env := genEnvelope(r, 40, "dup")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	e1, e2 := *env, *env
	e1.Cases, e2.Cases = env.Cases[:25], env.Cases[20:]
	writeEnv(t, a, &e1)
	writeEnv(t, b, &e2)
	_, err := MergeFiles([]string{a, b})
	want := baseline.Duplicate(env.Cases[20].Name, a, b).Error()
	if err == nil || err.Error() != want {
		t.Fatalf("overlap: got %v, want %s", err, want)
	}
	sh := shardsOf(env, 2)
	sh[0].Cases = append(sh[0].Cases, sh[1].Cases[0])
	writeEnv(t, a, sh[0])
	writeEnv(t, b, sh[1])
	if _, err := MergeFiles([]string{a, b}); err == nil {
		t.Fatal("a shard holding another shard's case merged")
	}
}

// TestCompareStreamIsCompare: over generated pairs of runs (cases new,
// removed, renamed, flipped, the same to the byte, given twice on either
// side, a baseline with
// the evidence every run carried before the lean envelope, a baseline of
// another schema_version), the streamed comparison renders json, text and
// markdown byte for byte as baseline.Compare's does: json written as it
// is computed (CompareJSON), text and markdown from the changed cases
// (CompareListed).
func TestCompareStreamIsCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 24 {
		n := 1 + r.IntN(200)
		base := genEnvelope(r, n, "c")
		cur := genEnvelope(r, n, "c")
		switch round % 3 {
		case 0:
			// The run after the baseline: most cases the same, to the
			// byte, some changed.
			for i := range cur.Cases {
				if r.IntN(4) > 0 {
					cur.Cases[i] = base.Cases[i]
				}
			}
		case 1:
			// Every case the baseline's to the byte.
			copy(cur.Cases, base.Cases)
		}
		for range r.IntN(5) {
			cur.Cases = append(cur.Cases, genCase(r, n+r.IntN(50), fmt.Sprintf("new %d", r.IntN(1000))))
		}
		for range r.IntN(5) {
			i := r.IntN(len(cur.Cases))
			cur.Cases = append(cur.Cases[:i], cur.Cases[i+1:]...)
		}
		if round%3 == 0 && len(cur.Cases) > 2 {
			cur.Cases = append(cur.Cases, cur.Cases[1])
		}
		if round%4 == 1 {
			base.Cases = append(base.Cases, base.Cases[0])
		}
		if round == 7 {
			base.SchemaVersion = 0
		}
		dir := t.TempDir()
		bp, cp := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
		writeEnv(t, bp, base)
		writeEnv(t, cp, cur)
		for _, policy := range []string{"regressions", "failures"} {
			got, cmp, err := compareJSONBytes(bp, cp, policy)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			readCur, err := baseline.ReadFile(cp, "", report.Read)
			if err != nil {
				t.Fatal(err)
			}
			want, err := baseline.CompareFile(bp, "--compare", readCur, policy)
			if err != nil {
				t.Fatal(err)
			}
			var w, g bytes.Buffer
			if err := annotate.RenderComparison(&w, "json", want, annotate.Options{}); err != nil {
				t.Fatal(err)
			}
			g.Write(got)
			if !bytes.Equal(g.Bytes(), w.Bytes()) {
				t.Fatalf("round %d: json differs:\n%s\nwant:\n%s", round, clip(g.String()), clip(w.String()))
			}
			if len(cmp.Cases) != 0 || cmp.Gate.Failed != want.Gate.Failed {
				t.Fatalf("round %d: CompareJSON kept %d cases, gate failed %v (want %v)", round, len(cmp.Cases), cmp.Gate.Failed, want.Gate.Failed)
			}
			listed, err := CompareListed(bp, "--compare", cp, policy)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			for _, f := range []string{"text", "markdown"} {
				w.Reset()
				annotate.RenderComparison(&w, f, want, annotate.Options{})
				g.Reset()
				annotate.RenderComparison(&g, f, listed.Cmp, annotate.Options{})
				if !bytes.Equal(g.Bytes(), w.Bytes()) {
					t.Fatalf("round %d: %s differs:\n%s\nwant:\n%s", round, f, g.String(), w.String())
				}
			}
			if err := listed.Render(io.Discard, "json", annotate.Options{}); err == nil {
				t.Fatalf("round %d: CompareListed renders json without its cases", round)
			}
			listed.Close()
		}
	}
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "..."
	}
	return s
}
