package baseline

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/stats"
	"github.com/mcptest/mcptest/report"
)

// Version is the version of the comparison document (the JSON form of a
// Comparison). Fields may be added; none is renamed or removed without a new
// version.
const Version = 1

// Status says how a case of one run relates to the other.
type Status string

// The statuses of a case in a comparison.
const (
	Same          Status = "same"
	New           Status = "new"
	Removed       Status = "removed"
	NotComparable Status = "not_comparable"
)

// Change is the direction of a floor flip.
type Change string

// The two directions of a flip, and a change that is neither.
const (
	Regression Change = "regression" // pass -> fail
	Fix        Change = "fix"        // fail -> pass
	// Noise is a per-run assertion of a case that is flaky and failing in
	// both runs changing between pass and fail: which runs of a flaky case
	// fail is chance, so it is neither a regression nor a fix.
	Noise Change = "noise"
)

// Subjects of a flip.
const (
	SubjectCase      = "case"
	SubjectAssertion = "assertion"
	SubjectFloor     = "floor"
	// SubjectClass is a case's reliability class moving between
	// stable_pass, flaky and stable_fail; From and To are then the classes.
	SubjectClass = "reliability_class"
	// SubjectSuiteFloor is a suite floor (floors: on the summary).
	SubjectSuiteFloor = "suite_floor"
)

// Comparison is the stable result of comparing a current run with a
// baseline run. Its JSON form is read by the GitHub Action and other tools.
type Comparison struct {
	ComparisonVersion int    `json:"comparison_version"`
	Baseline          RunRef `json:"baseline"`
	Current           RunRef `json:"current"`
	// NotComparable is set when the two runs cannot be compared at all
	// (another schema_version); every case is then not comparable.
	NotComparable string `json:"not_comparable,omitempty"`
	// Cases come before what is only known once every case is compared
	// (the warnings, which duplicate names found among the cases add to,
	// the summary, the gate, the reliability and floors), so that a
	// comparison is written as it is computed: WriteJSON writes each
	// case as one line of compact JSON.
	Cases    []CaseDelta `json:"cases"`
	Warnings []string    `json:"warnings"`
	Summary  Summary     `json:"summary"`
	Gate     Gate        `json:"gate"`
	// Reliability compares the two runs' reliability summaries; absent
	// when neither has one.
	Reliability *ReliabilityDelta `json:"reliability,omitempty"`
	// Floors are the flips of the suite's floors on the summary, in the
	// current run's order.
	Floors []Flip `json:"floors,omitempty"`
}

// ReliabilityDelta is the change of each summary figure: pass^k, the pass
// rate (percents with one decimal) and the cases per class.
type ReliabilityDelta struct {
	Figures []TargetDelta `json:"figures"`
}

// RunRef identifies one of the two runs.
type RunRef struct {
	SchemaVersion int              `json:"schema_version"`
	Tool          report.ToolInfo  `json:"tool"`
	RunID         string           `json:"run_id"`
	Shard         string           `json:"shard,omitempty"`
	Source        *report.Source   `json:"source,omitempty"`
	Suite         report.SuiteInfo `json:"suite"`
	Verdict       report.Verdict   `json:"verdict"`
	Totals        report.Totals    `json:"totals"`
}

// Summary counts what the comparison found. Regressions counts the cases
// with at least one pass -> fail flip (of the case, an assertion or a
// floor), Fixes the cases with a fail -> pass flip and no regression, and
// Flips every flip; Unchanged counts the comparable cases where no flip
// happened and no target moved; Unvouched counts the failing cases the
// baseline cannot vouch for (new, not comparable, or inconclusive in the
// baseline; a case that passed there is a regression instead); Failing
// counts the current run's failing cases.
type Summary struct {
	Cases         int `json:"cases"`
	Same          int `json:"same"`
	New           int `json:"new"`
	Removed       int `json:"removed"`
	NotComparable int `json:"not_comparable"`
	Regressions   int `json:"regressions"`
	Fixes         int `json:"fixes"`
	Flips         int `json:"flips"`
	Unchanged     int `json:"unchanged"`
	Unvouched     int `json:"unvouched_failures"`
	Failing       int `json:"failing"`
	// FloorRegressions counts the suite floors that went pass -> fail;
	// FailingFloors the current run's failed suite floors, and
	// UnvouchedFloors those that did not fail in the baseline too.
	FloorRegressions int `json:"floor_regressions,omitempty"`
	FailingFloors    int `json:"failing_floors,omitempty"`
	UnvouchedFloors  int `json:"unvouched_floors,omitempty"`
}

// Gate is the outcome of the --fail-on policy.
type Gate struct {
	FailOn  Policy   `json:"fail_on"`
	Failed  bool     `json:"failed"`
	Reasons []string `json:"reasons"`
}

// CaseDelta is one case of the comparison.
type CaseDelta struct {
	Name   string      `json:"name"`
	Kind   report.Kind `json:"kind"`
	Status Status      `json:"status"`
	// Reasons says why a case is not comparable, every reason that applies.
	Reasons  []string  `json:"reasons,omitempty"`
	Baseline *CaseSide `json:"baseline,omitempty"`
	Current  *CaseSide `json:"current,omitempty"`
	// CassettesChanged is true when the same number of cassette files
	// holds other bytes: the agent was re-recorded.
	CassettesChanged bool `json:"cassettes_changed,omitempty"`
	// Targets holds every target either side has, in name order; Delta is
	// set only for a comparable case where both sides have the target.
	Targets []TargetDelta `json:"targets"`
	// Counts holds the raw numbers behind the targets, the same way.
	Counts []CountDelta `json:"counts"`
	// Labels holds the word-valued targets (reliability.class,
	// token_efficiency.grade) either side has, in name order.
	Labels []LabelDelta `json:"labels,omitempty"`
	// Flips lists the case's floor flips in order: the case verdict, then
	// its assertions in declaration order, then its floors.
	Flips []Flip `json:"flips"`
}

// CaseSide is what one run says about a case.
type CaseSide struct {
	Verdict  report.Verdict `json:"verdict"`
	Runs     int            `json:"runs"`
	Position diag.Pos       `json:"position"`
}

// TargetDelta is one target in both runs. A nil value is absent on that
// side.
type TargetDelta struct {
	Name     string   `json:"name"`
	Baseline *float64 `json:"baseline"`
	Current  *float64 `json:"current"`
	Delta    *float64 `json:"delta"`
}

// LabelDelta is one word-valued target in both runs; nil is absent on that
// side.
type LabelDelta struct {
	Name     string  `json:"name"`
	Baseline *string `json:"baseline"`
	Current  *string `json:"current"`
}

// CountDelta is one raw count in both runs.
type CountDelta struct {
	Name     string `json:"name"`
	Baseline *int64 `json:"baseline"`
	Current  *int64 `json:"current"`
	Delta    *int64 `json:"delta"`
}

// Flip is a case, assertion or floor whose verdict changed between pass and
// fail.
type Flip struct {
	Subject string `json:"subject"`
	// Name is the assertion's target or the floor's name; "" for the case.
	Name  string `json:"name,omitempty"`
	Block string `json:"block,omitempty"`
	// Index is the assertion's number within its expect: list.
	Index  *int           `json:"index,omitempty"`
	From   report.Verdict `json:"from"`
	To     report.Verdict `json:"to"`
	Change Change         `json:"change"`
	// Message is the current run's message for the subject.
	Message  string    `json:"message,omitempty"`
	Position *diag.Pos `json:"position,omitempty"`
}

// Label names the flip's subject for a reader: "case",
// "assertion #0 (`tool_selection.f1`) in equal_function_sets", "floor
// `name`".
func (f Flip) Label() string {
	switch f.Subject {
	case SubjectAssertion:
		s := fmt.Sprintf("assertion #%d (`%s`)", *f.Index, f.Name)
		if f.Block != "" {
			s += " in " + f.Block
		}
		return s
	case SubjectFloor:
		return fmt.Sprintf("floor `%s`", f.Name)
	case SubjectClass:
		return "reliability class"
	case SubjectSuiteFloor:
		return fmt.Sprintf("suite floor #%d (`%s`)", *f.Index, f.Name)
	}
	return "case"
}

// Options tune a comparison.
type Options struct {
	// FailOn is the policy the Gate applies; "" means FailOnRegressions.
	FailOn Policy
}

// Compare compares the current run with the baseline run. It never fails:
// what cannot be compared is said so, case by case, and mismatched inputs
// give warnings.
func Compare(base, cur *report.Envelope, opt Options) *Comparison {
	c := Begin(base, cur)
	baseCases := map[string]*report.CaseResult{}
	var baseOrder []string
	if c.NotComparable == "" {
		for _, bc := range base.Cases {
			if bc == nil {
				continue
			}
			if _, dup := baseCases[bc.Name]; dup {
				c.Warnings = append(c.Warnings, TwiceInBaseline(bc.Name))
				continue
			}
			baseCases[bc.Name] = bc
			baseOrder = append(baseOrder, bc.Name)
		}
	}
	seen := map[string]bool{}
	for _, cc := range cur.Cases {
		if cc == nil {
			continue
		}
		if seen[cc.Name] {
			c.Warnings = append(c.Warnings, TwiceInCurrent(cc.Name))
			continue
		}
		seen[cc.Name] = true
		c.Cases = append(c.Cases, CaseOf(baseCases[cc.Name], cc, c.NotComparable))
	}
	for _, name := range baseOrder {
		if !seen[name] {
			c.Cases = append(c.Cases, RemovedOf(baseCases[name]))
		}
	}
	c.summarize()
	c.Finish(base, cur, opt)
	return c
}

// Begin starts the comparison of two runs from their heads (their cases
// are not read): the runs compared, and the warnings their heads give, or
// why they cannot be compared at all. Compare, and a comparison that
// streams the cases (report/envstream), then add each case (CaseOf,
// RemovedOf, Summary.Add) and Finish.
func Begin(base, cur *report.Envelope) *Comparison {
	c := &Comparison{
		ComparisonVersion: Version,
		Baseline:          ref(base),
		Current:           ref(cur),
		Warnings:          []string{},
		Cases:             []CaseDelta{},
	}
	if base.SchemaVersion != cur.SchemaVersion {
		c.NotComparable = fmt.Sprintf("the baseline envelope has schema_version %d and the current one %d: runs of different envelope versions are not compared", base.SchemaVersion, cur.SchemaVersion)
	} else {
		c.warnings(base, cur)
	}
	return c
}

// Finish compares the runs' summaries and suite floors (when the runs are
// comparable) and applies the policy, once c.Summary counts every case.
func (c *Comparison) Finish(base, cur *report.Envelope, opt Options) {
	if c.NotComparable == "" {
		c.compareSummaries(base, cur)
	}
	c.Gate = Evaluate(c.Summary, opt.FailOn)
}

// TwiceInBaseline is the warning of a case the baseline holds twice.
func TwiceInBaseline(name string) string {
	return fmt.Sprintf("the baseline holds case %q twice: the first is compared", name)
}

// TwiceInCurrent is the warning of a case the current run holds twice.
func TwiceInCurrent(name string) string {
	return fmt.Sprintf("the current run holds case %q twice: the first is compared", name)
}

// CaseOf is the delta of a case of the current run: compared with the
// baseline's case bc, new when bc is nil, not comparable for the reason
// whole when the runs are not (Comparison.NotComparable).
func CaseOf(bc, cc *report.CaseResult, whole string) CaseDelta {
	var d CaseDelta
	switch {
	case whole != "":
		d = CaseDelta{Name: cc.Name, Kind: cc.Kind, Status: NotComparable, Reasons: []string{whole}, Current: side(cc)}
		d.Targets, d.Counts, d.Labels = targets(nil, cc, false), counts(nil, cc, false), labels(nil, cc)
		d.Flips = []Flip{}
	case bc == nil:
		d = CaseDelta{Name: cc.Name, Kind: cc.Kind, Status: New, Current: side(cc)}
		d.Targets, d.Counts, d.Labels = targets(nil, cc, false), counts(nil, cc, false), labels(nil, cc)
		d.Flips = []Flip{}
	case bc == cc && uniqueKeys(cc):
		d = sameCase(cc)
	default:
		d = compareCase(bc, cc)
	}
	return d
}

// RemovedOf is the delta of a baseline case the current run does not
// hold.
func RemovedOf(bc *report.CaseResult) CaseDelta {
	d := CaseDelta{Name: bc.Name, Kind: bc.Kind, Status: Removed, Baseline: side(bc), Flips: []Flip{}}
	d.Targets, d.Counts, d.Labels = targets(bc, nil, false), counts(bc, nil, false), labels(bc, nil)
	return d
}

func ref(e *report.Envelope) RunRef {
	return RunRef{SchemaVersion: e.SchemaVersion, Tool: e.Tool, RunID: e.Run.ID, Shard: e.Run.Shard,
		Source: e.Source, Suite: e.Suite, Verdict: e.Verdict, Totals: e.Totals}
}

func side(c *report.CaseResult) *CaseSide {
	return &CaseSide{Verdict: c.Verdict, Runs: c.Runs, Position: c.Position}
}

// warnings notes the differences between the runs that do not stop a
// comparison but that a reader should weigh.
func (c *Comparison) warnings(base, cur *report.Envelope) {
	if base.Tool != cur.Tool {
		c.Warnings = append(c.Warnings, fmt.Sprintf("the baseline was written by %s %s and the current run by %s %s: a change may come from mcptest itself",
			base.Tool.Name, base.Tool.Version, cur.Tool.Name, cur.Tool.Version))
	}
	if base.Run.Mode != cur.Run.Mode {
		c.Warnings = append(c.Warnings, fmt.Sprintf("the baseline is a %s run and the current one a %s run", base.Run.Mode, cur.Run.Mode))
	}
	for _, s := range []struct{ which, shard string }{{"baseline", base.Run.Shard}, {"current run", cur.Run.Shard}} {
		if s.shard != "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("the %s is shard %s only: cases of the other shards show as new or removed; merge the shards first (mcptest report merge)", s.which, s.shard))
		}
	}
}

// sameCase is compareCase(c, c) for a case whose assertions (by block,
// index and target) and floors (by name) are each given once: what both
// runs say alike (a case whose bytes are the baseline's, the most cases
// of a run compared with the run before it) has no flip, and every
// figure a delta of 0, so no map is built to find them.
// TestSameCaseIsCompareCase holds the two to the same delta.
func sameCase(c *report.CaseResult) CaseDelta {
	d := CaseDelta{Name: c.Name, Kind: c.Kind, Status: Same, Baseline: side(c), Current: side(c), Flips: []Flip{}}
	if c.DefinitionSHA256 == "" {
		d.Reasons = []string{NoDefinitionDigest}
		d.Status = NotComparable
	}
	comparable := d.Status == Same
	d.Targets, d.Counts, d.Labels = targets(c, c, comparable), counts(c, c, comparable), labels(c, c)
	return d
}

// NoDefinitionDigest is why a case whose definition_sha256 is missing on
// either side is not comparable.
const NoDefinitionDigest = "a definition_sha256 is missing, so it cannot be told whether the case's definition changed"

// uniqueKeys reports whether a case's assertions (by block, index and
// target) and floors (by name) are each given once, for the few a case
// holds (at most 16 of each; more are reported as not unique).
func uniqueKeys(c *report.CaseResult) bool {
	as, fs := c.Assertions, c.Floors
	if len(as) > 16 || len(fs) > 16 {
		return false
	}
	for i := range as {
		for j := range i {
			if as[i].Index == as[j].Index && as[i].Target == as[j].Target && as[i].Block == as[j].Block {
				return false
			}
		}
	}
	for i := range fs {
		for j := range i {
			if fs[i].Name == fs[j].Name {
				return false
			}
		}
	}
	return true
}

// compareCase compares a case both runs hold.
func compareCase(bc, cc *report.CaseResult) CaseDelta {
	d := CaseDelta{Name: cc.Name, Kind: cc.Kind, Status: Same, Baseline: side(bc), Current: side(cc), Flips: []Flip{}}
	d.Reasons = notComparable(bc, cc)
	if len(d.Reasons) > 0 {
		d.Status = NotComparable
	}
	comparable := d.Status == Same
	d.Targets, d.Counts, d.Labels = targets(bc, cc, comparable), counts(bc, cc, comparable), labels(bc, cc)
	if bc.Cassettes != nil && cc.Cassettes != nil && bc.Cassettes.SHA256 != cc.Cassettes.SHA256 {
		d.CassettesChanged = true
	}
	if !comparable {
		return d
	}
	if f, ok := flip(bc.Verdict, cc.Verdict); ok {
		f.Subject = SubjectCase
		d.Flips = append(d.Flips, f)
	}
	ba := map[string]report.AssertionResult{}
	for _, a := range bc.Assertions {
		ba[assertionKey(a)] = a
	}
	for _, a := range cc.Assertions {
		b := ba[assertionKey(a)]
		if f, ok := flip(verdictOf(b.Passed), verdictOf(a.Passed)); ok {
			i, pos := a.Index, a.Position
			f.Subject, f.Name, f.Block, f.Index, f.Message, f.Position = SubjectAssertion, a.Target, a.Block, &i, a.Message, &pos
			d.Flips = append(d.Flips, f)
		}
	}
	bf := map[string]report.Floor{}
	for _, fl := range bc.Floors {
		bf[fl.Name] = fl
	}
	for _, fl := range cc.Floors {
		if f, ok := flip(verdictOf(bf[fl.Name].Passed), verdictOf(fl.Passed)); ok {
			f.Subject, f.Name, f.Message = SubjectFloor, fl.Name, fl.Message
			d.Flips = append(d.Flips, f)
		}
	}
	if f, ok := classFlip(bc, cc); ok {
		d.Flips = append(d.Flips, f)
	}
	if bothFlakyFailing(bc, cc) {
		perRun := map[string]bool{}
		for _, a := range append(slices.Clone(bc.Assertions), cc.Assertions...) {
			if a.FailedRuns > 0 {
				perRun[assertionKey(a)] = true
			}
		}
		for i, f := range d.Flips {
			if f.Subject == SubjectAssertion && perRun[assertionKeyOf(f)] {
				d.Flips[i].Change = Noise
			}
		}
	}
	return d
}

// classFlip is the flip of a case's reliability class: a move down the
// order stable_pass, flaky, stable_fail is a regression (stable_pass ->
// flaky: the case started failing some runs; flaky -> stable_fail: it now
// fails every run), a move up a fix.
func classFlip(bc, cc *report.CaseResult) (Flip, bool) {
	from, to := stats.ReliabilityClass(bc.Labels["reliability.class"]), stats.ReliabilityClass(cc.Labels["reliability.class"])
	if from.Rank() < 0 || to.Rank() < 0 || from == to {
		return Flip{}, false
	}
	f := Flip{Subject: SubjectClass, Name: "reliability.class", From: report.Verdict(from), To: report.Verdict(to), Change: Fix}
	if to.Rank() > from.Rank() {
		f.Change = Regression
	}
	if r := cc.Reliability; r != nil {
		f.Message = fmt.Sprintf("%d of %d runs passed now", r.PassedRuns, r.Runs)
		if b := bc.Reliability; b != nil {
			f.Message = fmt.Sprintf("%d of %d runs passed in the baseline, %d of %d now", b.PassedRuns, b.Runs, r.PassedRuns, r.Runs)
		}
	}
	return f, true
}

// bothFlakyFailing reports whether a case is flaky and failing in both
// runs: it failed in the baseline too, so it is not a regression, and its
// per-run assertions moving between runs is noise.
func bothFlakyFailing(bc, cc *report.CaseResult) bool {
	flaky := string(stats.Flaky)
	return bc.Verdict == report.Fail && cc.Verdict == report.Fail &&
		bc.Labels["reliability.class"] == flaky && cc.Labels["reliability.class"] == flaky
}

func assertionKeyOf(f Flip) string {
	return fmt.Sprintf("%s\x00%d\x00%s", f.Block, *f.Index, f.Name)
}

// notComparable lists why two cases of the same name cannot be compared.
func notComparable(bc, cc *report.CaseResult) []string {
	var why []string
	if bc.Kind != cc.Kind {
		why = append(why, fmt.Sprintf("the case's kind is %s in the baseline and %s now", bc.Kind, cc.Kind))
	}
	switch {
	case bc.DefinitionSHA256 == "" || cc.DefinitionSHA256 == "":
		why = append(why, NoDefinitionDigest)
	case bc.DefinitionSHA256 != cc.DefinitionSHA256:
		why = append(why, "the case's definition in the suite changed")
	}
	if bc.Runs != cc.Runs {
		why = append(why, fmt.Sprintf("a different number of recorded runs: %d in the baseline, %d now", bc.Runs, cc.Runs))
	}
	switch b, c := bc.Cassettes, cc.Cassettes; {
	case (b == nil) != (c == nil):
		why = append(why, fmt.Sprintf("a different cassette set: %s in the baseline, %s now", cassetteWords(b), cassetteWords(c)))
	case b != nil && b.Files != c.Files:
		why = append(why, fmt.Sprintf("a different cassette set: %s in the baseline, %s now", cassetteWords(b), cassetteWords(c)))
	}
	if !sameKeys(bc.Assertions, cc.Assertions, assertionKey) {
		why = append(why, "the assertions (block, index, target) differ although the definition does not")
	}
	if !sameKeys(bc.Floors, cc.Floors, func(f report.Floor) string { return f.Name }) {
		why = append(why, "the floors differ")
	}
	return why
}

func cassetteWords(s *report.CassetteSet) string {
	switch {
	case s == nil:
		return "no cassettes"
	case s.Files == 1:
		return "1 cassette file"
	}
	return fmt.Sprintf("%d cassette files", s.Files)
}

func sameKeys[T any](a, b []T, key func(T) string) bool {
	if len(a) != len(b) {
		return false
	}
	set := map[string]int{}
	for _, x := range a {
		set[key(x)]++
	}
	for _, x := range b {
		k := key(x)
		if set[k] == 0 {
			return false
		}
		set[k]--
	}
	return true
}

func assertionKey(a report.AssertionResult) string {
	return fmt.Sprintf("%s\x00%d\x00%s", a.Block, a.Index, a.Target)
}

func verdictOf(passed bool) report.Verdict {
	if passed {
		return report.Pass
	}
	return report.Fail
}

// flip reports a change between pass and fail; changes to or from
// inconclusive are not flips.
func flip(from, to report.Verdict) (Flip, bool) {
	switch {
	case from == report.Pass && to == report.Fail:
		return Flip{From: from, To: to, Change: Regression}, true
	case from == report.Fail && to == report.Pass:
		return Flip{From: from, To: to, Change: Fix}, true
	}
	return Flip{}, false
}

func targets(bc, cc *report.CaseResult, comparable bool) []TargetDelta {
	var b, c map[string]float64
	if bc != nil {
		b = bc.Targets
	}
	if cc != nil {
		c = cc.Targets
	}
	keys := unionKeys(b, c)
	out := make([]TargetDelta, 0, len(keys))
	// The figures the deltas point at, three a target, in one array.
	vals := make([]float64, 0, 3*len(keys))
	at := func(v float64) *float64 {
		vals = append(vals, v)
		return &vals[len(vals)-1]
	}
	for _, k := range keys {
		d := TargetDelta{Name: k}
		if v, ok := b[k]; ok {
			d.Baseline = at(v)
		}
		if v, ok := c[k]; ok {
			d.Current = at(v)
		}
		if comparable && d.Baseline != nil && d.Current != nil {
			x := math.Round((*d.Current-*d.Baseline)*1e9) / 1e9
			if x == 0 {
				x = 0 // no -0
			}
			d.Delta = at(x)
		}
		out = append(out, d)
	}
	return out
}

func labels(bc, cc *report.CaseResult) []LabelDelta {
	var b, c map[string]string
	if bc != nil {
		b = bc.Labels
	}
	if cc != nil {
		c = cc.Labels
	}
	var out []LabelDelta
	for _, k := range unionKeys(b, c) {
		d := LabelDelta{Name: k}
		if v, ok := b[k]; ok {
			d.Baseline = &v
		}
		if v, ok := c[k]; ok {
			d.Current = &v
		}
		out = append(out, d)
	}
	return out
}

// compareSummaries compares the runs' reliability summaries figure by
// figure and the suite floors: a floor that passed in the baseline and
// fails now is a regression, one that fails now and was not in the
// baseline (or deferred there) is a failure the baseline cannot vouch
// for, one that failed in both is vouched for.
func (c *Comparison) compareSummaries(base, cur *report.Envelope) {
	if base.Summary != nil || cur.Summary != nil {
		c.Reliability = &ReliabilityDelta{Figures: summaryDeltas(base.Summary, cur.Summary)}
	}
	bf := map[string]report.SuiteFloor{}
	for _, f := range base.Floors {
		bf[fmt.Sprintf("%d\x00%s", f.Index, f.Target)] = f
	}
	for _, f := range cur.Floors {
		if f.Deferred {
			continue
		}
		b, had := bf[fmt.Sprintf("%d\x00%s", f.Index, f.Target)]
		had = had && !b.Deferred
		if !f.Passed {
			c.Summary.FailingFloors++
			if !had {
				c.Summary.UnvouchedFloors++
			}
		}
		if !had {
			continue
		}
		if fl, ok := flip(verdictOf(b.Passed), verdictOf(f.Passed)); ok {
			i, pos := f.Index, f.Position
			fl.Subject, fl.Name, fl.Index, fl.Message, fl.Position = SubjectSuiteFloor, f.Target, &i, f.Message, &pos
			c.Floors = append(c.Floors, fl)
			if fl.Change == Regression {
				c.Summary.FloorRegressions++
			}
		}
	}
}

// summaryDeltas lists each figure of either summary: summary.pass_hat_<k>
// in order of k, then summary.pass_at_<k>, summary.pass_rate and the cases
// per class.
func summaryDeltas(b, c *report.Summary) []TargetDelta {
	var ks []int64
	for _, s := range []*report.Summary{b, c} {
		if s == nil {
			continue
		}
		for _, p := range s.PassHat {
			if !slices.Contains(ks, p.K) {
				ks = append(ks, p.K)
			}
		}
	}
	slices.Sort(ks)
	var names []string
	for _, k := range ks {
		names = append(names, fmt.Sprintf("summary.pass_hat_%d", k))
	}
	for _, k := range ks {
		names = append(names, fmt.Sprintf("summary.pass_at_%d", k))
	}
	names = append(names, "summary.pass_rate", "summary.cases", "summary.stable_pass", "summary.flaky", "summary.stable_fail")
	var out []TargetDelta
	for _, n := range names {
		d := TargetDelta{Name: n}
		if v, ok := b.Value(n); ok {
			d.Baseline = &v
		}
		if v, ok := c.Value(n); ok {
			d.Current = &v
		}
		if d.Baseline != nil && d.Current != nil {
			x := math.Round((*d.Current-*d.Baseline)*10) / 10
			if x == 0 {
				x = 0 // no -0
			}
			d.Delta = &x
		}
		out = append(out, d)
	}
	return out
}

func counts(bc, cc *report.CaseResult, comparable bool) []CountDelta {
	var b, c map[string]int64
	if bc != nil {
		b = bc.Counts
	}
	if cc != nil {
		c = cc.Counts
	}
	keys := unionKeys(b, c)
	out := make([]CountDelta, 0, len(keys))
	vals := make([]int64, 0, 3*len(keys))
	at := func(v int64) *int64 {
		vals = append(vals, v)
		return &vals[len(vals)-1]
	}
	for _, k := range keys {
		d := CountDelta{Name: k}
		if v, ok := b[k]; ok {
			d.Baseline = at(v)
		}
		if v, ok := c[k]; ok {
			d.Current = at(v)
		}
		if comparable && d.Baseline != nil && d.Current != nil {
			d.Delta = at(*d.Current - *d.Baseline)
		}
		out = append(out, d)
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, max(len(a), len(b)))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func (c *Comparison) summarize() {
	s := Summary{}
	for _, d := range c.Cases {
		s.Add(d)
	}
	c.Summary = s
}

// Add counts one case of the comparison.
func (s *Summary) Add(d CaseDelta) {
	s.Cases++
	switch d.Status {
	case Same:
		s.Same++
	case New:
		s.New++
	case Removed:
		s.Removed++
	case NotComparable:
		s.NotComparable++
	}
	if d.Current != nil && d.Current.Verdict == report.Fail {
		s.Failing++
		if d.Status != Same || d.Baseline.Verdict == report.Inconclusive {
			s.Unvouched++
		}
	}
	switch d.Outcome() {
	case Regression:
		s.Regressions++
	case Fix:
		s.Fixes++
	}
	s.Flips += len(d.Flips)
	if !d.Changed() {
		s.Unchanged++
	}
}

// Outcome is Regression when any of the case's flips is one, else Fix when
// it has a fix, else "" (noise is neither).
func (d CaseDelta) Outcome() Change {
	var out Change
	for _, f := range d.Flips {
		switch f.Change {
		case Regression:
			return Regression
		case Fix:
			out = Fix
		}
	}
	return out
}

// Changed reports whether a comparable case shows anything a reader should
// see: a flip, a verdict change or a target that moved.
func (d CaseDelta) Changed() bool {
	if d.Status != Same || len(d.Flips) > 0 || d.Baseline.Verdict != d.Current.Verdict {
		return true
	}
	for _, t := range d.Targets {
		if t.Delta == nil || *t.Delta != 0 {
			return true
		}
	}
	for _, l := range d.Labels {
		if l.Baseline == nil || l.Current == nil || *l.Baseline != *l.Current {
			return true
		}
	}
	return false
}

// plural renders "1 regression" or "2 regressions".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Policy is a --fail-on value.
type Policy string

// The --fail-on policies.
const (
	FailOnRegressions Policy = "regressions"
	FailOnFlips       Policy = "flips"
	FailOnFailures    Policy = "failures"
	FailOnNone        Policy = "none"
)

// Policies lists the --fail-on values in the order help shows them.
var Policies = []Policy{FailOnRegressions, FailOnFlips, FailOnFailures, FailOnNone}

// ParsePolicy reads a --fail-on value.
func ParsePolicy(s string) (Policy, error) {
	for _, p := range Policies {
		if string(p) == s {
			return p, nil
		}
	}
	names := make([]string, len(Policies))
	for i, p := range Policies {
		names[i] = string(p)
	}
	return "", fmt.Errorf("--fail-on %q: expected one of %s", s, strings.Join(names, ", "))
}

// Evaluate applies a --fail-on policy to a comparison's summary:
//
//   - regressions (the default, also for ""): fail on a pass -> fail flip
//     and on any failing case the baseline cannot vouch for (new, not
//     comparable, or inconclusive in the baseline), so a change can neither
//     break a passing gate nor slip in a failing one, while failures the
//     baseline already had do not block;
//   - flips: fail only on pass -> fail flips;
//   - failures: fail on any failing case of the current run;
//   - none: never fail.
func Evaluate(s Summary, p Policy) Gate {
	if p == "" {
		p = FailOnRegressions
	}
	g := Gate{FailOn: p, Reasons: []string{}}
	regressions := fmt.Sprintf("%s (pass -> fail)", plural(s.Regressions, "regression", "regressions"))
	floorRegressions := fmt.Sprintf("%s (pass -> fail)", plural(s.FloorRegressions, "suite floor regression", "suite floor regressions"))
	switch p {
	case FailOnRegressions:
		if s.Regressions > 0 {
			g.Reasons = append(g.Reasons, regressions)
		}
		if s.Unvouched > 0 {
			g.Reasons = append(g.Reasons, plural(s.Unvouched, "failing case", "failing cases")+" the baseline cannot vouch for (new, not comparable or inconclusive there)")
		}
		if s.FloorRegressions > 0 {
			g.Reasons = append(g.Reasons, floorRegressions)
		}
		if s.UnvouchedFloors > 0 {
			g.Reasons = append(g.Reasons, plural(s.UnvouchedFloors, "failing suite floor", "failing suite floors")+" the baseline cannot vouch for (new there)")
		}
	case FailOnFlips:
		if s.Regressions > 0 {
			g.Reasons = append(g.Reasons, regressions)
		}
		if s.FloorRegressions > 0 {
			g.Reasons = append(g.Reasons, floorRegressions)
		}
	case FailOnFailures:
		if s.Failing > 0 {
			g.Reasons = append(g.Reasons, plural(s.Failing, "failing case", "failing cases"))
		}
		if s.FailingFloors > 0 {
			g.Reasons = append(g.Reasons, plural(s.FailingFloors, "failing suite floor", "failing suite floors"))
		}
	}
	g.Failed = len(g.Reasons) > 0
	return g
}

// Headline summarizes the comparison in one line: "1 regression, 1 fix,
// 1 new, 1 removed, 2 not comparable, 1 unchanged (7 cases)".
func (c *Comparison) Headline() string {
	s := c.Summary
	parts := []string{
		plural(s.Regressions, "regression", "regressions"),
		plural(s.Fixes, "fix", "fixes"),
		fmt.Sprintf("%d new", s.New),
		fmt.Sprintf("%d removed", s.Removed),
		fmt.Sprintf("%d not comparable", s.NotComparable),
		fmt.Sprintf("%d unchanged", s.Unchanged),
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (%s)", plural(s.Cases, "case", "cases"))
}
