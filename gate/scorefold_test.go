package gate

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

// drawRuns draws n runs over a small pool of tools (bare and qualified,
// some restricted, some in no class), with drawn turns, delegations,
// durations (some missing) and costs (some missing), and now and then a
// run of many restricted calls, past what a gate names one by one.
func drawRuns(rng *rand.Rand, n int) []cassette.Run {
	tools := []struct{ server, tool string }{
		{"", "search"}, {"web", "search"}, {"fs", "read_file"}, {"fs", "write_file"},
		{"git", "git_reset"}, {"", "git_reset"}, {"web", "fetch"}, {"x", "unknown_tool"}, {"", "lonely"},
	}
	agents := []string{"planner", "researcher", "writer"}
	runs := make([]cassette.Run, n)
	for i := range runs {
		r := &runs[i]
		calls := rng.IntN(8)
		if rng.IntN(10) == 0 {
			calls = 20 + rng.IntN(40)
		}
		for range 1 + rng.IntN(3) {
			var t cassette.Turn
			for range rng.IntN(calls + 1) {
				pick := tools[rng.IntN(len(tools))]
				c := cassette.Call{Server: pick.server, Tool: pick.tool, IsError: rng.IntN(6) == 0,
					Arguments: cassette.JSON([]string{"", `{}`, `{"q":"x"}`, `"bad"`}[rng.IntN(4)])}
				if rng.IntN(8) != 0 {
					ms := float64(rng.IntN(5000)) / 7
					c.DurationMS = &ms
				}
				t.Calls = append(t.Calls, c)
			}
			r.Turns = append(r.Turns, t)
		}
		for range rng.IntN(3) {
			r.Delegations = append(r.Delegations, cassette.Delegation{From: agents[rng.IntN(3)], To: agents[rng.IntN(3)]})
		}
		if rng.IntN(3) != 0 {
			c := int64(rng.IntN(900000))
			r.CostMicros = &c
		}
	}
	return runs
}

// scoreFold is one accumulator driven two ways: add folds a run and
// returns what the run gave (Add), score and fold are the split.
type scoreFold struct {
	name   string
	add    func(r *cassette.Run) any
	score  func(r *cassette.Run) any
	fold   func(r *cassette.Run, s any) any
	result func() Result
}

// TestScoreThenFoldIsAdd is a generator test of the split every gate that
// scores runs ahead of its fold relies on (engine's runScorer): for drawn
// runs and drawn configurations, scoring every run first, on several
// goroutines at once and out of order, then folding the scores in run
// order gives what adding the runs one at a time gives: each run's own
// figures, and the result (targets, counts, labels, findings). For
// EdgeCoverage, whose fold was rewritten from a walk of each call, the
// result is also held to that walk (edgesByCall).
func TestScoreThenFoldIsAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 12))
	members := []string{"search", "web.search", "fs.read_file", "fs.write_file", "web.fetch", "fs.*"}
	drawClasses := func() []Class {
		var cl []Class
		for k := range 1 + rng.IntN(3) {
			c := Class{Name: fmt.Sprintf("class%d", k)}
			for range 1 + rng.IntN(3) {
				c.Members = append(c.Members, members[rng.IntN(len(members))])
			}
			cl = append(cl, c)
		}
		return cl
	}
	for d := range 60 {
		runs := drawRuns(rng, 1+rng.IntN(40))
		classes := drawClasses()
		counting := []Counting{CountCalls, CountDistinct}[rng.IntN(2)]
		edges := Edges{Allowed: []string{"search", "fs.read_file", "web.*"}[:rng.IntN(4)],
			Restricted: []string{"git_reset", "git.git_reset", "x.unknown_tool"}[:1+rng.IntN(3)],
			Delegation: []cassette.Delegation{{From: "planner", To: "researcher"}, {From: "writer", To: "planner"}}[:rng.IntN(3)]}
		var floors Budget
		if rng.IntN(2) == 0 {
			v := int64(rng.IntN(6))
			floors.MaxCalls = &v
		}
		if rng.IntN(2) == 0 {
			v := int64(1 + rng.IntN(2))
			floors.MaxTurns = &v
		}
		if rng.IntN(2) == 0 {
			v := int64(rng.IntN(3000))
			floors.MaxRunMS = &v
		}
		traj := Trajectory{Match: []string{MatchStrict, MatchUnordered, MatchSubset, MatchSuperset}[rng.IntN(4)]}
		for range rng.IntN(4) {
			traj.Steps = append(traj.Steps, Step{Tool: []string{"search", "web.search", "fs.read_file", "git_reset"}[rng.IntN(4)]})
		}
		passK := PassKConfig{ExpectedTool: []string{"search", "web.search", "fs.read_file", "git_reset"}[rng.IntN(4)], MinRate: float64(rng.IntN(101))}
		if rng.IntN(2) == 0 {
			v := int64(rng.IntN(900000))
			passK.MaxTokens = &v
		}
		correct := []string{"search", "web.search", "fs.read_file", "fs.*"}[:rng.IntN(5)]
		injected := []string{"fetch", "unknown_tool", "write_file", "lonely"}[:rng.IntN(5)]
		models := []string{"", "m1", "m2"}[:1+rng.IntN(3)]
		makers := []func() scoreFold{
			func() scoreFold {
				m := NewTrajectory(traj)
				return scoreFold{"TrajectoryMatch", func(r *cassette.Run) any { return m.Add(r) }, func(r *cassette.Run) any { return m.Score(r) },
					func(_ *cassette.Run, x any) any { m.Fold(x.(TrajectoryRun)); return x }, m.Result}
			},
			func() scoreFold {
				s := NewSelectionBy(classes, counting)
				return scoreFold{"Selection", func(r *cassette.Run) any { return s.Add(r) }, func(r *cassette.Run) any { return s.Score(r) },
					func(_ *cassette.Run, x any) any { s.Fold(x.(RunSelection)); return x }, s.Result}
			},
			func() scoreFold {
				te := NewTokenEfficiency(classes)
				return scoreFold{"TokenEfficiency", func(r *cassette.Run) any { return te.Add(r) }, func(r *cassette.Run) any { return te.Score(r) },
					func(r *cassette.Run, x any) any { te.Fold(r, x.(RunSelection)); return x }, te.Result}
			},
			func() scoreFold {
				o := NewOrchestration(classes)
				return scoreFold{"Orchestration", func(r *cassette.Run) any { return o.Add(r) }, func(r *cassette.Run) any { return o.Score(r) },
					func(_ *cassette.Run, x any) any { o.Fold(x.(OrchestrationRun)); return x }, o.Result}
			},
			func() scoreFold {
				b := NewBudget(floors)
				return scoreFold{"BudgetUse", func(r *cassette.Run) any { return b.Add(r) }, func(r *cassette.Run) any { return b.Score(r) },
					func(_ *cassette.Run, x any) any { b.Fold(x.(BudgetScore)); return x.(BudgetScore).Run }, b.Result}
			},
			func() scoreFold {
				p := NewPassK(passK)
				// The runs drawn over the models; PassK numbers each model's.
				model := func(r *cassette.Run) string { return models[len(r.Turns)%len(models)] }
				return scoreFold{"PassK", func(r *cassette.Run) any { return p.Add(model(r), r) },
					func(r *cassette.Run) any { return p.Score(r) },
					func(r *cassette.Run, x any) any { return p.Fold(model(r), x.(report.PassKRun)) }, p.Result}
			},
			func() scoreFold {
				ds := NewDistractors(correct, injected)
				return scoreFold{"Distractors", func(r *cassette.Run) any { return ds.Add(r) }, func(r *cassette.Run) any { return ds.Score(r) },
					func(_ *cassette.Run, x any) any { return ds.Fold(x.(DistractorRun)) }, ds.Result}
			},
			func() scoreFold {
				e := NewEdges(edges)
				return scoreFold{"EdgeCoverage", func(r *cassette.Run) any { return e.Add(r) }, func(r *cassette.Run) any { return e.Score(r) },
					func(_ *cassette.Run, x any) any { e.Fold(x.(EdgeScore)); return x.(EdgeScore).Run }, e.Result}
			},
		}
		for _, mk := range makers {
			one, split := mk(), mk()
			var added []any
			for i := range runs {
				added = append(added, one.add(&runs[i]))
			}
			scores := make([]any, len(runs))
			var wg sync.WaitGroup
			for w := range 3 {
				wg.Go(func() {
					for i := len(runs) - 1 - w; i >= 0; i -= 3 {
						scores[i] = split.score(&runs[i])
					}
				})
			}
			wg.Wait()
			for i := range runs {
				if got := split.fold(&runs[i], scores[i]); !reflect.DeepEqual(got, added[i]) {
					t.Fatalf("draw %d, %s, run %d: scored then folded %+v, added %+v", d, one.name, i+1, got, added[i])
				}
			}
			if a, b := one.result(), split.result(); !reflect.DeepEqual(a, b) {
				t.Fatalf("draw %d, %s: the result of scoring then folding differs from adding:\n%+v\n%+v", d, one.name, b, a)
			}
		}
		want := edgesByCall(edges, runs)
		e := NewEdges(edges)
		for i := range runs {
			e.Fold(e.Score(&runs[i]))
		}
		if got := e.Result(); !reflect.DeepEqual(got, want) {
			t.Fatalf("draw %d: EdgeCoverage folded from scores differs from the walk of each call:\n%+v\n%+v", d, got, want)
		}
	}
}

// edgesByCall is EdgeCoverage as it folded each call in place before its
// work was split into Score and Fold: the model the split is held to.
func edgesByCall(cfg Edges, runs []cassette.Run) Result {
	e := NewEdges(cfg)
	for _, run := range runs {
		e.runs++
		for ti, turn := range run.Turns {
			for ci, c := range turn.Calls {
				e.calls++
				if memberOf(e.cfg.Restricted, c.Server, c.Tool) {
					e.restricted++
					if e.restricted <= maxAttemptFindings {
						e.findings = append(e.findings, Finding{Level: "error", Gate: "tool_edges", Run: e.runs,
							Message: fmt.Sprintf("run %d: turn %d call %d called restricted tool `%s`", e.runs, ti+1, ci+1, c.ID())})
					}
					continue
				}
				hit := false
				for i, a := range e.cfg.Allowed {
					if MatchID(a, c.Server, c.Tool) {
						e.exercised[i] = true
						hit = true
					}
				}
				if !hit {
					e.undeclared.add(c.ID())
				}
			}
		}
		for _, d := range run.Delegations {
			for i, want := range e.cfg.Delegation {
				if d.From == want.From && d.To == want.To {
					e.observed[i] = true
				}
			}
		}
	}
	return e.Result()
}
