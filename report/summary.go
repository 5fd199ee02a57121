package report

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/internal/stats"
)

// Summary is the suite's reliability across its cases, τ-bench's
// leaderboard row: over the cases that carry reliability figures (two runs
// or more, or a reliability: block), the mean of each case's pass^k over
// the cases with at least k runs, the mean pass rate, and how many cases
// are in each reliability class. It is computed from each case's counts
// (reliability.runs, reliability.passed_runs), so a merge of shards gives
// the figures of the unsharded run exactly.
type Summary struct {
	Cases      int64 `json:"cases"`
	Runs       int64 `json:"runs"`
	PassedRuns int64 `json:"passed_runs"`
	// PassRate is the mean over cases of passed/runs; it equals pass^1.
	PassRate SummaryFigure `json:"pass_rate"`
	// PassHat is pass^k for k = 1 .. the most runs of a case, at most 20,
	// in order of k.
	PassHat []PassHatFigure `json:"pass_hat"`
	// PassAt is pass@k, the mean of each case's 1 - C(n-c,k)/C(n,k), for
	// the same k as PassHat.
	PassAt  []PassHatFigure `json:"pass_at"`
	Classes ClassCounts     `json:"classes"`
}

// SummaryFigure is one mean over cases: the value in percent rounded half
// up to one decimal (27.3), the exact mean as a reduced fraction of 1
// ("41/150") and the number of cases it is over.
type SummaryFigure struct {
	Value float64 `json:"value"`
	Exact string  `json:"exact"`
	Cases int64   `json:"cases"`
}

// PassHatFigure is the summary's mean pass^k or pass@k.
type PassHatFigure struct {
	K int64 `json:"k"`
	SummaryFigure
}

// ClassCounts counts the cases per reliability class.
type ClassCounts struct {
	StablePass int64 `json:"stable_pass"`
	Flaky      int64 `json:"flaky"`
	StableFail int64 `json:"stable_fail"`
}

// SuiteFloor is one entry of the suite's floors: an assertion on a summary
// figure, with its outcome.
type SuiteFloor struct {
	Index   int    `json:"index"`
	Target  string `json:"target"`
	Matcher any    `json:"matcher"`
	// Actual is the figure the floor read; absent when there was none.
	Actual any  `json:"actual,omitempty"`
	Passed bool `json:"passed"`
	// Deferred is set on a shard's floors: a summary over one shard says
	// nothing about the suite, so they are decided when the shards are
	// merged (mcptest report merge).
	Deferred bool     `json:"deferred,omitempty"`
	Message  string   `json:"message"`
	Position diag.Pos `json:"position"`
}

// summaryCase is one case's counts as the summary reads them, and how
// many cases have those counts (a Counter folds equal ones together).
type summaryCase struct {
	runs, passed int64
	n            int64
}

// Judge decides a floor: whether the figure actual (ok false: there is
// none) meets matcher, a matcher as the suite wrote it, and why not. An
// error says the matcher does not parse. The envelope only carries the
// matcher; the grammar is the caller's (expr.JudgeFloor), so the envelope
// links no matcher library.
type Judge func(matcher, actual any, ok bool) (passed bool, why string, err error)

// Summarize recomputes the envelope's summary from its cases and decides
// its floors with judge (a shard's are deferred). The summary is nil when
// no case carries reliability figures. Tally then counts a failed floor in
// the verdict.
func (e *Envelope) Summarize(judge Judge) {
	var cases []summaryCase
	for _, c := range e.Cases {
		cases = appendSummaryCase(cases, c)
	}
	e.summarize(cases, judge)
}

func (e *Envelope) summarize(cases []summaryCase, judge Judge) {
	e.Summary = summarize(cases, e.floorKs())
	for i := range e.Floors {
		e.Floors[i].judge(e.Summary, e.Run.Shard != "", judge)
	}
}

// appendSummaryCase appends what the summary reads of c, when c carries
// reliability figures.
func appendSummaryCase(cases []summaryCase, c *CaseResult) []summaryCase {
	if c == nil {
		return cases
	}
	n, ok := c.Counts["reliability.runs"]
	if !ok || n <= 0 {
		return cases
	}
	return append(cases, summaryCase{runs: n, passed: min(max(c.Counts["reliability.passed_runs"], 0), n), n: 1})
}

// Counter counts cases into an envelope's totals, verdict and summary as
// they are computed, for a run that streams its cases to the output instead
// of keeping them in Cases: Add each case, then Finish. It keeps one
// count per distinct (runs, passed runs) pair of the cases with
// reliability figures and nothing else of a case, so its memory does not
// grow with the number of cases.
type Counter struct {
	totals Totals
	failed bool
	cases  map[[2]int64]int64
}

// Add counts one case.
func (k *Counter) Add(c *CaseResult) {
	k.AddFigures(c.Verdict, c.NoCalls(), c.Counts["reliability.runs"], c.Counts["reliability.passed_runs"])
}

// AddFigures counts one case from what Add reads of it: its verdict,
// whether it is inconclusive for want of calls (NoCalls), and its counts
// reliability.runs and reliability.passed_runs (0 when absent). A merge
// that passes a case's bytes through without decoding it counts it so.
func (k *Counter) AddFigures(v Verdict, noCalls bool, runs, passedRuns int64) {
	k.totals.Total++
	switch v {
	case Pass:
		k.totals.Passed++
	case Fail:
		k.totals.Failed++
		k.failed = true
	case Inconclusive:
		k.totals.Inconclusive++
		// A case no run of which holds a call judged nothing: the run
		// must not pass on it (NoCallsGate).
		k.failed = k.failed || noCalls
	}
	if runs > 0 { // what appendSummaryCase keeps of a case
		if k.cases == nil {
			k.cases = map[[2]int64]int64{}
		}
		k.cases[[2]int64{runs, min(max(passedRuns, 0), runs)}]++
	}
}

// Merge adds the cases o counted, as if each had been added to k: the
// counts are sums, so cases counted on several goroutines, a Counter each,
// give the totals and summary of one Counter over them all.
func (k *Counter) Merge(o *Counter) {
	k.totals.Total += o.totals.Total
	k.totals.Passed += o.totals.Passed
	k.totals.Failed += o.totals.Failed
	k.totals.Inconclusive += o.totals.Inconclusive
	k.failed = k.failed || o.failed
	for rp, n := range o.cases {
		if k.cases == nil {
			k.cases = map[[2]int64]int64{}
		}
		k.cases[rp] += n
	}
}

// Finish sets the envelope's summary, floors, totals and verdict from the
// cases counted, as Summarize then Tally do from Cases.
func (e *Envelope) Finish(k *Counter, judge Judge) {
	cases := make([]summaryCase, 0, len(k.cases))
	for rp, n := range k.cases {
		cases = append(cases, summaryCase{runs: rp[0], passed: rp[1], n: n})
	}
	// The sums are exact (big.Rat), so the order changes nothing; sorted
	// all the same, so nothing reads map order.
	slices.SortFunc(cases, func(a, b summaryCase) int {
		if a.runs != b.runs {
			return int(min(max(a.runs-b.runs, -1), 1))
		}
		return int(min(max(a.passed-b.passed, -1), 1))
	})
	e.summarize(cases, judge)
	e.tally(k.totals, k.failed)
}

// floorKs lists the k of the summary.pass_hat_<k> the floors name, up to
// MaxSummaryK: a summary is over counts an envelope may have been given by
// anyone, so its work is bounded whatever they claim.
func (e *Envelope) floorKs() []int64 {
	var ks []int64
	for _, f := range e.Floors {
		if k, ok := summaryK(f.Target); ok && k <= MaxSummaryK {
			ks = append(ks, k)
		}
	}
	return ks
}

// MaxSummaryK is the largest k of the summary's pass^k: the figures are
// k = 1 .. 20 (and a suite floor may name no larger k).
const MaxSummaryK = MaxPassHatTargets

func summarize(cases []summaryCase, floorKs []int64) *Summary {
	if len(cases) == 0 {
		return nil
	}
	s := &Summary{PassHat: []PassHatFigure{}, PassAt: []PassHatFigure{}}
	most := int64(0)
	for _, c := range cases {
		s.Cases += c.n
		s.Runs += c.runs * c.n
		s.PassedRuns += c.passed * c.n
		most = max(most, c.runs)
		switch stats.Classify(c.passed, c.runs) {
		case stats.StablePass:
			s.Classes.StablePass += c.n
		case stats.Flaky:
			s.Classes.Flaky += c.n
		default:
			s.Classes.StableFail += c.n
		}
	}
	var ks []int64
	for k := int64(1); k <= min(most, MaxPassHatTargets); k++ {
		ks = append(ks, k)
	}
	for _, k := range floorKs {
		if k <= most && k <= MaxSummaryK && !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	for _, k := range ks {
		s.PassHat = append(s.PassHat, PassHatFigure{K: k, SummaryFigure: meanOver(cases, k, stats.PassHat)})
		s.PassAt = append(s.PassAt, PassHatFigure{K: k, SummaryFigure: meanOver(cases, k, stats.PassAt)})
	}
	s.PassRate = s.PassHat[0].SummaryFigure
	return s
}

// meanOver is the mean of est(c, n, k) over the cases with n >= k
// (pass^k's C(c,k)/C(n,k) or pass@k's 1 - C(n-c,k)/C(n,k)), as an exact
// rational rounded only at the end.
func meanOver(cases []summaryCase, k int64, est func(c, n, k int64) *big.Rat) SummaryFigure {
	sum := new(big.Rat)
	var over int64
	for _, c := range cases {
		if c.runs < k {
			continue
		}
		e := est(c.passed, c.runs, k)
		if c.n != 1 {
			e.Mul(e, big.NewRat(c.n, 1))
		}
		sum.Add(sum, e)
		over += c.n
	}
	if over == 0 {
		return SummaryFigure{Exact: "0"}
	}
	sum.Quo(sum, big.NewRat(over, 1))
	return SummaryFigure{Value: float64(stats.RatTenths(sum)) / 10, Exact: sum.RatString(), Cases: over}
}

// SummaryTargets are the fixed targets a suite floor may name;
// summary.pass_hat_<k> and summary.pass_at_<k> complete them.
var SummaryTargets = []string{"summary.pass_hat_1", "summary.pass_at_1", "summary.pass_rate", "summary.cases", "summary.runs", "summary.passed_runs",
	"summary.stable_pass", "summary.flaky", "summary.stable_fail"}

// SummaryPassHat reports whether name is summary.pass_hat_<k>, and its k.
func SummaryPassHat(name string) (int64, bool) {
	return kOf(name, "summary.pass_hat_")
}

// SummaryPassAt reports whether name is summary.pass_at_<k>, and its k.
func SummaryPassAt(name string) (int64, bool) {
	return kOf(name, "summary.pass_at_")
}

// summaryK reports whether name is summary.pass_hat_<k> or
// summary.pass_at_<k>, and its k.
func summaryK(name string) (int64, bool) {
	if k, ok := SummaryPassHat(name); ok {
		return k, true
	}
	return SummaryPassAt(name)
}

// kOf parses the k of prefix<k>, k >= 1 written without leading zeros.
func kOf(name, prefix string) (int64, bool) {
	ks, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	k, err := strconv.ParseInt(ks, 10, 64)
	if err != nil || k < 1 || strconv.FormatInt(k, 10) != ks {
		return 0, false
	}
	return k, true
}

// Value returns the summary figure a floor target names: a percent with
// one decimal for summary.pass_hat_<k> and summary.pass_rate, a count for
// the others. ok is false when the summary has no such figure (no case
// with k runs, or no summary).
func (s *Summary) Value(target string) (float64, bool) {
	if s == nil {
		return 0, false
	}
	if k, ok := SummaryPassHat(target); ok {
		return figureAt(s.PassHat, k)
	}
	if k, ok := SummaryPassAt(target); ok {
		return figureAt(s.PassAt, k)
	}
	switch target {
	case "summary.pass_rate":
		return s.PassRate.Value, true
	case "summary.cases":
		return float64(s.Cases), true
	case "summary.runs":
		return float64(s.Runs), true
	case "summary.passed_runs":
		return float64(s.PassedRuns), true
	case "summary.stable_pass":
		return float64(s.Classes.StablePass), true
	case "summary.flaky":
		return float64(s.Classes.Flaky), true
	case "summary.stable_fail":
		return float64(s.Classes.StableFail), true
	}
	return 0, false
}

// figureAt returns the value of the figure of k in figs.
func figureAt(figs []PassHatFigure, k int64) (float64, bool) {
	for _, p := range figs {
		if p.K == k {
			return p.Value, true
		}
	}
	return 0, false
}

// judge decides the floor against the summary; a shard's floor is
// deferred instead.
func (f *SuiteFloor) judge(s *Summary, shard bool, judge Judge) {
	head := fmt.Sprintf("floor #%d (`%s`)", f.Index, f.Target)
	f.Actual, f.Deferred = nil, shard
	if shard {
		f.Passed = true
		f.Message = head + " is decided when the shards are merged (mcptest report merge): one shard's summary says nothing about the suite"
		return
	}
	v, ok := s.Value(f.Target)
	var actual any
	if ok {
		actual = v
	}
	passed, why, err := judge(f.Matcher, actual, ok)
	if err != nil {
		f.Passed, f.Message = false, redact.String(head+" has a matcher that does not parse: "+err.Error())
		return
	}
	f.Actual, f.Passed = actual, passed
	switch {
	case passed:
		f.Message = head + " passed"
	case !ok && s == nil:
		f.Message = head + " failed: no case has reliability figures (a case needs two runs or more, or a reliability: block)"
	case !ok:
		f.Message = head + " failed: no case has that many runs"
	default:
		f.Message = head + " failed: " + why
	}
}

// NoCallsGate is the Gate of the finding that makes a case inconclusive
// because none of its runs holds a tool call (a recording read without its
// calls, or an agent that never reached its tools). Such a case is not
// passed, and the run it is in fails: a gate may not pass on nothing. A
// test that says no_calls: true expects no call and gets no such finding.
const NoCallsGate = "no_calls"

// NoCalls reports whether c is inconclusive because none of its runs holds
// a tool call.
func (c *CaseResult) NoCalls() bool {
	if c.Verdict != Inconclusive {
		return false
	}
	for _, f := range c.Findings {
		if f.Gate == NoCallsGate && f.Level == "warning" {
			return true
		}
	}
	return false
}
