package gate

import (
	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/stats"
)

// OrchestrationRun holds one run's counts behind the five orchestration
// diagnostics.
type OrchestrationRun struct {
	Calls int64
	// Parameterized counts the calls whose arguments are a non-empty JSON
	// object.
	Parameterized int64
	// WellFormed counts the calls with a non-empty tool name and JSON object
	// arguments.
	WellFormed int64
	// Errors counts the calls that returned an error; Recovered those
	// followed later in the run by a successful call to the same tool or to
	// a member of a class the failed call belongs to.
	Errors, Recovered int64
	// Reached and Classes count the declared classes some call hit.
	Reached, Classes int64
}

// ScoreOrchestration folds one run's calls against the declared classes.
func ScoreOrchestration(classes []Class, calls []cassette.Call) OrchestrationRun {
	run := cassette.Run{Turns: []cassette.Turn{{Calls: calls}}}
	return scoreOrchestration(classes, &run)
}

// scoreOrchestration is ScoreOrchestration of a run's calls where they
// lie. A failed call is recovered when a later call of the run succeeds
// on its tool or on a member of a class it belongs to: the calls are read
// from the last, keeping the tools and the classes a successful call
// reached after the one read, so each call is read once (a scan forward
// from each failed call read a run of failed calls to new tools once a
// call before it).
func scoreOrchestration(classes []Class, run *cassette.Run) OrchestrationRun {
	r := OrchestrationRun{Classes: int64(len(classes))}
	reached := make([]bool, len(classes))
	laterClass := make([]bool, len(classes))
	laterTool := map[string]bool{} // by id, as the calls' tools are compared
	var in []int                   // the classes of the call read
	for ti := len(run.Turns) - 1; ti >= 0; ti-- {
		calls := run.Turns[ti].Calls
		for ci := len(calls) - 1; ci >= 0; ci-- {
			c := &calls[ci]
			r.Calls++
			isObject := c.Arguments.IsObject()
			if isObject && !c.Arguments.IsEmptyObject() {
				r.Parameterized++
			}
			if isObject && c.Tool != "" {
				r.WellFormed++
			}
			in = in[:0]
			for k, cl := range classes {
				if memberOf(cl.Members, c.Server, c.Tool) {
					reached[k] = true
					in = append(in, k)
				}
			}
			id := c.ID()
			if !c.IsError {
				laterTool[id] = true
				for _, k := range in {
					laterClass[k] = true
				}
				continue
			}
			r.Errors++
			recovered := laterTool[id]
			for _, k := range in {
				recovered = recovered || laterClass[k]
			}
			if recovered {
				r.Recovered++
			}
		}
	}
	r.Reached = int64(countTrue(reached))
	return r
}

// OrchestrationScores are the five diagnostics, integer percents.
type OrchestrationScores struct {
	Discovery, Parameterization, Syntax, ErrorRecovery, Efficiency int64
}

// Scores derives the diagnostics from (pooled) counts:
//
//   - discovery: reached classes over declared classes (the equal-function-set
//     recall); no classes scores 100 with no calls, else 0, as recall does;
//   - parameterization and syntax: over all calls; an empty trace scores 100;
//   - error_recovery: recovered over errored calls; no errors scores 100;
//   - efficiency: declared classes (the optimal path length) over observed
//     calls, capped at 100; no classes, or no calls, scores 0.
func (r OrchestrationRun) Scores() OrchestrationScores {
	var s OrchestrationScores
	switch {
	case r.Classes > 0:
		s.Discovery = stats.Percent(r.Reached, r.Classes)
	case r.Calls == 0:
		s.Discovery = 100
	}
	s.Parameterization, s.Syntax, s.ErrorRecovery = 100, 100, 100
	if r.Calls > 0 {
		s.Parameterization = stats.Percent(r.Parameterized, r.Calls)
		s.Syntax = stats.Percent(r.WellFormed, r.Calls)
	}
	if r.Errors > 0 {
		s.ErrorRecovery = stats.Percent(r.Recovered, r.Errors)
	}
	// No calls is 0 (stats.Percent of a zero denominator), as is no class.
	s.Efficiency = min(stats.Percent(r.Classes, r.Calls), 100)
	return s
}

// Orchestration pools the five diagnostics over the runs of a test: counts
// are summed over runs (so the optimal path length is classes times runs)
// and the percents derived from the totals.
type Orchestration struct {
	classes []Class
	sum     OrchestrationRun
}

// NewOrchestration returns an empty accumulator for the declared classes.
func NewOrchestration(classes []Class) *Orchestration {
	return &Orchestration{classes: classes}
}

// Add folds one run.
func (o *Orchestration) Add(run *cassette.Run) OrchestrationRun {
	r := o.Score(run)
	o.Fold(r)
	return r
}

// Score scores one run without pooling it: it reads only the declared
// classes, so runs are scored on any goroutine and Fold pools them.
func (o *Orchestration) Score(run *cassette.Run) OrchestrationRun {
	return scoreOrchestration(o.classes, run)
}

// Fold pools one run's scores.
func (o *Orchestration) Fold(r OrchestrationRun) {
	o.sum.Calls += r.Calls
	o.sum.Parameterized += r.Parameterized
	o.sum.WellFormed += r.WellFormed
	o.sum.Errors += r.Errors
	o.sum.Recovered += r.Recovered
	o.sum.Reached += r.Reached
	o.sum.Classes += r.Classes
}

// Result reports the orchestration.* targets and their counts.
func (o *Orchestration) Result() Result {
	s := o.sum.Scores()
	return Result{
		Targets: map[string]float64{
			"orchestration.discovery":        float64(s.Discovery),
			"orchestration.parameterization": float64(s.Parameterization),
			"orchestration.syntax":           float64(s.Syntax),
			"orchestration.error_recovery":   float64(s.ErrorRecovery),
			"orchestration.efficiency":       float64(s.Efficiency),
		},
		Counts: map[string]int64{
			"orchestration.calls":            o.sum.Calls,
			"orchestration.parameterized":    o.sum.Parameterized,
			"orchestration.well_formed":      o.sum.WellFormed,
			"orchestration.errors":           o.sum.Errors,
			"orchestration.recovered":        o.sum.Recovered,
			"orchestration.classes_reached":  o.sum.Reached,
			"orchestration.classes_expected": o.sum.Classes,
		},
	}
}
