package gate

import (
	"fmt"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/stats"
)

// DistractorRun is one run's outcome under distraction.
type DistractorRun struct {
	// ChoseCorrect and ChoseDistractor count the calls whose id is in the
	// correct set and in the injected distractor set; other calls are out
	// of scope and ignored.
	ChoseCorrect, ChoseDistractor int64
	// Other counts the calls in neither set: out of scope for accuracy,
	// but a call outside the correct set all the same.
	Other int64
	// Distractors names the distractors chosen, first call first.
	Distractors []string
	// Success is true when the run selected only correct tools (the seed's
	// rule for certified_lower): it called at least one correct tool and
	// nothing outside the correct set, neither a distractor nor any other
	// tool. With no correct ids declared, only a run that called nothing
	// selected only correct tools.
	Success bool
}

// ScoreDistractors scores one run's calls, where they lie. A call is
// correct when a correct id matches it (MatchID), else a distractor when
// its tool name is one of the injected distractors' names.
func ScoreDistractors(correct, distractors []string, run *cassette.Run) DistractorRun {
	var r DistractorRun
	for _, c := range run.Calls() {
		switch {
		case memberOf(correct, c.Server, c.Tool):
			r.ChoseCorrect++
		case containsString(distractors, c.Tool):
			r.ChoseDistractor++
			if !containsString(r.Distractors, c.Tool) {
				r.Distractors = append(r.Distractors, c.Tool)
			}
		default:
			r.Other++
		}
	}
	outside := r.ChoseDistractor + r.Other
	if len(correct) == 0 {
		r.Success = outside == 0
	} else {
		r.Success = r.ChoseCorrect > 0 && outside == 0
	}
	return r
}

// DistractorAccuracy returns chose_correct*100/chose_in_scope as an integer
// percent. Nothing in scope scores 0, except the vacuous case of no declared
// correct ids, which scores 100.
func DistractorAccuracy(correctIDs int, choseCorrect, choseDistractor int64) int64 {
	if choseCorrect+choseDistractor == 0 {
		if correctIDs == 0 {
			return 100
		}
		return 0
	}
	return stats.Percent(choseCorrect, choseCorrect+choseDistractor)
}

// Distractors folds the runs of a test under distraction: accuracy pooled
// over every run's calls, the distractors chosen, and the exact
// Clopper-Pearson lower bound on the per-run success rate.
type Distractors struct {
	correct      []string
	distractors  []string
	runs         int
	successes    int64
	cc, cd       int64
	chosen       tally
	cassettes    int
	notPresented int
}

// NewDistractors returns an empty accumulator for the correct ids and the
// names of the injected distractors.
func NewDistractors(correct, distractors []string) *Distractors {
	return &Distractors{correct: correct, distractors: distractors}
}

// Add scores one run: Fold of Score.
func (d *Distractors) Add(run *cassette.Run) DistractorRun { return d.Fold(d.Score(run)) }

// Score is what one run gives the accumulator, read from the run and the
// configuration alone: safe for several runs at once, in any order.
func (d *Distractors) Score(run *cassette.Run) DistractorRun {
	return ScoreDistractors(d.correct, d.distractors, run)
}

// Fold adds a run's Score, in run order, and returns it.
func (d *Distractors) Fold(r DistractorRun) DistractorRun {
	d.runs++
	d.cc += r.ChoseCorrect
	d.cd += r.ChoseDistractor
	if r.Success {
		d.successes++
	}
	for _, n := range r.Distractors {
		d.chosen.add(n)
	}
	return r
}

// AddCatalog checks one cassette's recorded catalog: when it lists tools but
// none of the injected distractors, the distractors were never presented.
// A cassette without a recorded catalog says nothing either way.
func (d *Distractors) AddCatalog(catalog []cassette.ServerCatalog) {
	if len(catalog) == 0 || len(d.distractors) == 0 {
		return
	}
	d.cassettes++
	for _, sc := range catalog {
		for _, t := range sc.Tools {
			if containsString(d.distractors, t.Name) {
				return
			}
		}
	}
	d.notPresented++
}

// Result reports distractors.accuracy, distractors.chose_distractor and
// distractors.certified_lower (the one-sided 95% Clopper-Pearson lower
// bound on the per-run success rate, an integer percent rounded down; a
// run succeeds when it selected only correct tools, see DistractorRun).
func (d *Distractors) Result() Result {
	res := Result{
		Targets: map[string]float64{
			"distractors.accuracy":         float64(DistractorAccuracy(len(d.correct), d.cc, d.cd)),
			"distractors.chose_distractor": float64(d.cd),
			"distractors.certified_lower":  float64(stats.LowerPercent95(d.successes, int64(d.runs))),
		},
		Counts: map[string]int64{
			"distractors.chose_correct":    d.cc,
			"distractors.chose_distractor": d.cd,
			"distractors.runs":             int64(d.runs),
			"distractors.successful_runs":  d.successes,
			"distractors.injected":         int64(len(d.distractors)),
			"distractors.correct_ids":      int64(len(d.correct)),
		},
	}
	for _, n := range d.chosen.order {
		res.Findings = append(res.Findings, Finding{Level: "error", Gate: "distractors",
			Message: fmt.Sprintf("chose distractor `%s`%s", n, runsOf(d.chosen.n[n], d.runs))})
	}
	if d.chosen.more > 0 {
		res.Findings = append(res.Findings, Finding{Level: "error", Gate: "distractors",
			Message: fmt.Sprintf("distractors not named here were chosen too: %d more times", d.chosen.more)})
	}
	if d.notPresented > 0 {
		res.Findings = append(res.Findings, Finding{Level: "warning", Gate: "distractors",
			Message: fmt.Sprintf("the recorded catalog of %d of %d cassettes lists none of the %d generated distractors: they were never presented to the agent, so these runs measure a clean tool list (record with the tools `mcptest distractors` prints)",
				d.notPresented, d.cassettes, len(d.distractors))})
	}
	return res
}
