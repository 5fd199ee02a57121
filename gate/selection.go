package gate

import (
	"fmt"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/stats"
)

// Class is an equal-function set: a named group of tools that do the same
// job. Calling any member reaches the class.
type Class struct {
	Name    string
	Members []string
}

// RunSelection is the selection outcome of one run.
type RunSelection struct {
	TP, FP, FN int64
	// Missed names the classes no call reached, in declaration order.
	Missed []string
	// Unexpected names the calls that matched no class, in call order.
	// A run scored by Selection names each such tool once, and at most
	// maxNamed of them: MoreUnexpected then counts the false positives of
	// the tools it does not name.
	Unexpected     []string
	MoreUnexpected int64
}

// Counting is how Selection F1 counts the calls that match no class.
type Counting int

const (
	// CountCalls, the default, counts every call that matches no class as
	// a false positive: an agent that calls an unexpected tool three
	// times is penalised three times, since each call costs a round trip
	// and tokens.
	CountCalls Counting = iota
	// CountDistinct counts each distinct unexpected tool once per run, as
	// a set-based tool-call F1 does: precision is |called ∩ expected| /
	// |called| over tool names.
	CountDistinct
)

// ScoreSelection applies the counting rule of Selection F1 to one run's
// calls. Each class is consumed at most once: the first call that names a
// member of a class not yet reached is a true positive; a later call to any
// member of reached classes only is a repeat and counts nothing; a call that
// matches no class is a false positive; a class no call reached is a false
// negative.
func ScoreSelection(classes []Class, run *cassette.Run) RunSelection {
	return ScoreSelectionBy(classes, run, CountCalls)
}

// ScoreSelectionBy is ScoreSelection with a choice of counting: with
// CountDistinct, a call that matches no class is a false positive only
// the first time its tool is called in the run.
func ScoreSelectionBy(classes []Class, run *cassette.Run, counting Counting) RunSelection {
	var sc selectionScorer
	sc.start(classes, counting, false)
	for _, c := range run.Calls() {
		sc.call(c)
	}
	return sc.end()
}

// selectionScorer applies the counting rule of Selection F1 to a run's
// calls one at a time, so a run is scored where it lies, without a copy of
// its calls. With distinct, Unexpected names each unexpected tool once.
type selectionScorer struct {
	classes  []Class
	counting Counting
	distinct bool
	out      RunSelection
	reached  []bool
	// seen holds the tools already named in Unexpected, and with
	// CountDistinct every unexpected tool of the run (each is counted
	// once): a flood of names with CountCalls keeps maxNamed of them.
	seen map[string]bool
}

func (sc *selectionScorer) start(classes []Class, counting Counting, distinct bool) {
	*sc = selectionScorer{classes: classes, counting: counting, distinct: distinct, reached: make([]bool, len(classes))}
}

func (sc *selectionScorer) call(c *cassette.Call) {
	matched, fresh := false, -1
	for i, cl := range sc.classes {
		if !memberOf(cl.Members, c.Server, c.Tool) {
			continue
		}
		matched = true
		if !sc.reached[i] {
			fresh = i
			break
		}
	}
	if fresh >= 0 {
		sc.reached[fresh] = true
		sc.out.TP++
		return
	}
	if matched {
		return
	}
	k := c.ID()
	if !sc.distinct {
		// Every unexpected call is named (ScoreSelectionBy: the caller
		// holds the calls), each tool's first alone with CountDistinct.
		if sc.seen[k] && sc.counting == CountDistinct {
			return
		}
		if sc.seen == nil {
			sc.seen = map[string]bool{}
		}
		sc.seen[k] = true
		sc.out.FP++
		sc.out.Unexpected = append(sc.out.Unexpected, k)
		return
	}
	if sc.seen[k] {
		if sc.counting == CountCalls {
			sc.out.FP++
		}
		return
	}
	sc.out.FP++
	if len(sc.out.Unexpected) == maxNamed {
		sc.out.MoreUnexpected++
		if sc.counting == CountDistinct {
			sc.seen[k] = true
		}
		return
	}
	if sc.seen == nil {
		sc.seen = map[string]bool{}
	}
	sc.seen[k] = true
	sc.out.Unexpected = append(sc.out.Unexpected, k)
}

func (sc *selectionScorer) end() RunSelection {
	for i, cl := range sc.classes {
		if !sc.reached[i] {
			sc.out.FN++
			sc.out.Missed = append(sc.out.Missed, cl.Name)
		}
	}
	return sc.out
}

func memberOf(members []string, server, tool string) bool {
	for _, m := range members {
		if MatchID(m, server, tool) {
			return true
		}
	}
	return false
}

// SelectionScores are the three integer percents of Selection F1.
type SelectionScores struct {
	Precision, Recall, F1 int64
}

// Scores derives precision, recall and F1 from pooled counts. No declared
// classes and no observed calls (all counts zero) scores 100 on all three,
// vacuously perfect; any other zero denominator yields 0.
func Scores(tp, fp, fn int64) SelectionScores {
	if tp == 0 && fp == 0 && fn == 0 {
		return SelectionScores{100, 100, 100}
	}
	return SelectionScores{
		Precision: stats.Percent(tp, tp+fp),
		Recall:    stats.Percent(tp, tp+fn),
		F1:        stats.Percent(2*tp, 2*tp+fp+fn),
	}
}

// Selection micro-averages Selection F1 over the runs of a test: it sums
// true positives, false positives and false negatives over every run and
// derives the percentages from those totals.
type Selection struct {
	classes    []Class
	counting   Counting
	runs       int
	tp, fp, fn int64
	missed     tally
	unexpected tally
}

// NewSelection returns an empty accumulator for the declared classes,
// counting every call (CountCalls).
func NewSelection(classes []Class) *Selection {
	return &Selection{classes: classes}
}

// NewSelectionBy returns an empty accumulator for the declared classes
// that counts as counting says.
func NewSelectionBy(classes []Class, counting Counting) *Selection {
	return &Selection{classes: classes, counting: counting}
}

// Add scores one run and pools its counts: Fold(Score(run)). The run's
// Unexpected names each unexpected tool once, in the order first called.
func (s *Selection) Add(run *cassette.Run) RunSelection {
	r := s.Score(run)
	s.Fold(r)
	return r
}

// Score scores one run without pooling it. It reads only the declared
// classes, never what was pooled, so runs are scored on any goroutine,
// several at once, and Fold pools them in order.
func (s *Selection) Score(run *cassette.Run) RunSelection {
	var sc selectionScorer
	sc.start(s.classes, s.counting, true)
	for _, c := range run.Calls() {
		sc.call(c)
	}
	return sc.end()
}

// Fold pools the counts of one run Score scored.
func (s *Selection) Fold(r RunSelection) {
	s.runs++
	s.tp += r.TP
	s.fp += r.FP
	s.fn += r.FN
	for _, m := range r.Missed {
		s.missed.add(m)
	}
	seen := map[string]bool{}
	for _, u := range r.Unexpected {
		if !seen[u] {
			seen[u] = true
			s.unexpected.add(u)
		}
	}
	s.unexpected.more += int(r.MoreUnexpected)
}

// Result reports tool_selection.{f1,precision,recall} with the counts behind
// them, and names the missed classes and the unexpected tools.
func (s *Selection) Result() Result {
	sc := Scores(s.tp, s.fp, s.fn)
	res := Result{
		Targets: map[string]float64{
			"tool_selection.f1":        float64(sc.F1),
			"tool_selection.precision": float64(sc.Precision),
			"tool_selection.recall":    float64(sc.Recall),
		},
		Counts: map[string]int64{
			"tool_selection.tp":      s.tp,
			"tool_selection.fp":      s.fp,
			"tool_selection.fn":      s.fn,
			"tool_selection.classes": int64(len(s.classes)),
		},
	}
	for _, name := range s.missed.order {
		res.Findings = append(res.Findings, Finding{Level: "error", Gate: "equal_function_sets",
			Message: fmt.Sprintf("missed class `%s`: no call reached any of its members%s", name, runsOf(s.missed.n[name], s.runs))})
	}
	if s.missed.more > 0 {
		res.Findings = append(res.Findings, Finding{Level: "error", Gate: "equal_function_sets",
			Message: fmt.Sprintf("classes not named here were missed too: %d more times a run missed one", s.missed.more)})
	}
	for _, id := range s.unexpected.order {
		res.Findings = append(res.Findings, Finding{Level: "error", Gate: "equal_function_sets",
			Message: fmt.Sprintf("unexpected tool `%s`: it is in no declared class%s", id, runsOf(s.unexpected.n[id], s.runs))})
	}
	if s.unexpected.more > 0 {
		res.Findings = append(res.Findings, Finding{Level: "error", Gate: "equal_function_sets",
			Message: "tools not named here are in no declared class too: tool_selection.fp counts their calls"})
	}
	return res
}
