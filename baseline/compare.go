package baseline

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/engine/diag"
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

// The two directions of a flip.
const (
	Regression Change = "regression" // pass -> fail
	Fix        Change = "fix"        // fail -> pass
)

// Subjects of a flip.
const (
	SubjectCase      = "case"
	SubjectAssertion = "assertion"
	SubjectFloor     = "floor"
)

// Comparison is the stable result of comparing a current run with a
// baseline run. Its JSON form is read by the GitHub Action and other tools.
type Comparison struct {
	ComparisonVersion int    `json:"comparison_version"`
	Baseline          RunRef `json:"baseline"`
	Current           RunRef `json:"current"`
	// NotComparable is set when the two runs cannot be compared at all
	// (another schema_version); every case is then not comparable.
	NotComparable string      `json:"not_comparable,omitempty"`
	Warnings      []string    `json:"warnings"`
	Summary       Summary     `json:"summary"`
	Gate          Gate        `json:"gate"`
	Cases         []CaseDelta `json:"cases"`
}

// RunRef identifies one of the two runs.
type RunRef struct {
	SchemaVersion int              `json:"schema_version"`
	Tool          engine.ToolInfo  `json:"tool"`
	RunID         string           `json:"run_id"`
	Shard         string           `json:"shard,omitempty"`
	Source        *engine.Source   `json:"source,omitempty"`
	Suite         engine.SuiteInfo `json:"suite"`
	Verdict       engine.Verdict   `json:"verdict"`
	Totals        engine.Totals    `json:"totals"`
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
	Kind   engine.Kind `json:"kind"`
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
	// Flips lists the case's floor flips in order: the case verdict, then
	// its assertions in declaration order, then its floors.
	Flips []Flip `json:"flips"`
}

// CaseSide is what one run says about a case.
type CaseSide struct {
	Verdict  engine.Verdict `json:"verdict"`
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
	From   engine.Verdict `json:"from"`
	To     engine.Verdict `json:"to"`
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
func Compare(base, cur *engine.Envelope, opt Options) *Comparison {
	c := &Comparison{
		ComparisonVersion: Version,
		Baseline:          ref(base),
		Current:           ref(cur),
		Warnings:          []string{},
		Cases:             []CaseDelta{},
	}
	whole := ""
	if base.SchemaVersion != cur.SchemaVersion {
		whole = fmt.Sprintf("the baseline envelope has schema_version %d and the current one %d: runs of different envelope versions are not compared", base.SchemaVersion, cur.SchemaVersion)
		c.NotComparable = whole
	} else {
		c.warnings(base, cur)
	}

	baseCases := map[string]*engine.CaseResult{}
	var baseOrder []string
	if whole == "" {
		for _, bc := range base.Cases {
			if bc == nil {
				continue
			}
			if _, dup := baseCases[bc.Name]; dup {
				c.Warnings = append(c.Warnings, fmt.Sprintf("the baseline holds case %q twice: the first is compared", bc.Name))
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
			c.Warnings = append(c.Warnings, fmt.Sprintf("the current run holds case %q twice: the first is compared", cc.Name))
			continue
		}
		seen[cc.Name] = true
		var d CaseDelta
		switch bc := baseCases[cc.Name]; {
		case whole != "":
			d = CaseDelta{Name: cc.Name, Kind: cc.Kind, Status: NotComparable, Reasons: []string{whole}, Current: side(cc)}
			d.Targets, d.Counts = targets(nil, cc, false), counts(nil, cc, false)
			d.Flips = []Flip{}
		case bc == nil:
			d = CaseDelta{Name: cc.Name, Kind: cc.Kind, Status: New, Current: side(cc)}
			d.Targets, d.Counts = targets(nil, cc, false), counts(nil, cc, false)
			d.Flips = []Flip{}
		default:
			d = compareCase(bc, cc)
		}
		c.Cases = append(c.Cases, d)
	}
	for _, name := range baseOrder {
		if seen[name] {
			continue
		}
		bc := baseCases[name]
		d := CaseDelta{Name: bc.Name, Kind: bc.Kind, Status: Removed, Baseline: side(bc), Flips: []Flip{}}
		d.Targets, d.Counts = targets(bc, nil, false), counts(bc, nil, false)
		c.Cases = append(c.Cases, d)
	}
	c.summarize()
	c.Gate = Evaluate(c.Summary, opt.FailOn)
	return c
}

func ref(e *engine.Envelope) RunRef {
	return RunRef{SchemaVersion: e.SchemaVersion, Tool: e.Tool, RunID: e.Run.ID, Shard: e.Run.Shard,
		Source: e.Source, Suite: e.Suite, Verdict: e.Verdict, Totals: e.Totals}
}

func side(c *engine.CaseResult) *CaseSide {
	return &CaseSide{Verdict: c.Verdict, Runs: c.Runs, Position: c.Position}
}

// warnings notes the differences between the runs that do not stop a
// comparison but that a reader should weigh.
func (c *Comparison) warnings(base, cur *engine.Envelope) {
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

// compareCase compares a case both runs hold.
func compareCase(bc, cc *engine.CaseResult) CaseDelta {
	d := CaseDelta{Name: cc.Name, Kind: cc.Kind, Status: Same, Baseline: side(bc), Current: side(cc), Flips: []Flip{}}
	d.Reasons = notComparable(bc, cc)
	if len(d.Reasons) > 0 {
		d.Status = NotComparable
	}
	comparable := d.Status == Same
	d.Targets, d.Counts = targets(bc, cc, comparable), counts(bc, cc, comparable)
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
	ba := map[string]engine.AssertionResult{}
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
	bf := map[string]engine.Floor{}
	for _, fl := range bc.Floors {
		bf[fl.Name] = fl
	}
	for _, fl := range cc.Floors {
		if f, ok := flip(verdictOf(bf[fl.Name].Passed), verdictOf(fl.Passed)); ok {
			f.Subject, f.Name, f.Message = SubjectFloor, fl.Name, fl.Message
			d.Flips = append(d.Flips, f)
		}
	}
	return d
}

// notComparable lists why two cases of the same name cannot be compared.
func notComparable(bc, cc *engine.CaseResult) []string {
	var why []string
	if bc.Kind != cc.Kind {
		why = append(why, fmt.Sprintf("the case's kind is %s in the baseline and %s now", bc.Kind, cc.Kind))
	}
	switch {
	case bc.DefinitionSHA256 == "" || cc.DefinitionSHA256 == "":
		why = append(why, "a definition_sha256 is missing, so it cannot be told whether the case's definition changed")
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
	if !sameKeys(bc.Floors, cc.Floors, func(f engine.Floor) string { return f.Name }) {
		why = append(why, "the floors differ")
	}
	return why
}

func cassetteWords(s *engine.CassetteSet) string {
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

func assertionKey(a engine.AssertionResult) string {
	return fmt.Sprintf("%s\x00%d\x00%s", a.Block, a.Index, a.Target)
}

func verdictOf(passed bool) engine.Verdict {
	if passed {
		return engine.Pass
	}
	return engine.Fail
}

// flip reports a change between pass and fail; changes to or from
// inconclusive are not flips.
func flip(from, to engine.Verdict) (Flip, bool) {
	switch {
	case from == engine.Pass && to == engine.Fail:
		return Flip{From: from, To: to, Change: Regression}, true
	case from == engine.Fail && to == engine.Pass:
		return Flip{From: from, To: to, Change: Fix}, true
	}
	return Flip{}, false
}

func targets(bc, cc *engine.CaseResult, comparable bool) []TargetDelta {
	var b, c map[string]float64
	if bc != nil {
		b = bc.Targets
	}
	if cc != nil {
		c = cc.Targets
	}
	out := []TargetDelta{}
	for _, k := range unionKeys(b, c) {
		d := TargetDelta{Name: k}
		if v, ok := b[k]; ok {
			d.Baseline = &v
		}
		if v, ok := c[k]; ok {
			d.Current = &v
		}
		if comparable && d.Baseline != nil && d.Current != nil {
			x := math.Round((*d.Current-*d.Baseline)*1e9) / 1e9
			if x == 0 {
				x = 0 // no -0
			}
			d.Delta = &x
		}
		out = append(out, d)
	}
	return out
}

func counts(bc, cc *engine.CaseResult, comparable bool) []CountDelta {
	var b, c map[string]int64
	if bc != nil {
		b = bc.Counts
	}
	if cc != nil {
		c = cc.Counts
	}
	out := []CountDelta{}
	for _, k := range unionKeys(b, c) {
		d := CountDelta{Name: k}
		if v, ok := b[k]; ok {
			d.Baseline = &v
		}
		if v, ok := c[k]; ok {
			d.Current = &v
		}
		if comparable && d.Baseline != nil && d.Current != nil {
			x := *d.Current - *d.Baseline
			d.Delta = &x
		}
		out = append(out, d)
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func (c *Comparison) summarize() {
	s := Summary{}
	for _, d := range c.Cases {
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
		if d.Current != nil && d.Current.Verdict == engine.Fail {
			s.Failing++
			if d.Status != Same || d.Baseline.Verdict == engine.Inconclusive {
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
	c.Summary = s
}

// Outcome is Regression when any of the case's flips is one, else Fix when
// it has a flip, else "".
func (d CaseDelta) Outcome() Change {
	var out Change
	for _, f := range d.Flips {
		if f.Change == Regression {
			return Regression
		}
		out = Fix
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
	switch p {
	case FailOnRegressions:
		if s.Regressions > 0 {
			g.Reasons = append(g.Reasons, regressions)
		}
		if s.Unvouched > 0 {
			g.Reasons = append(g.Reasons, plural(s.Unvouched, "failing case", "failing cases")+" the baseline cannot vouch for (new, not comparable or inconclusive there)")
		}
	case FailOnFlips:
		if s.Regressions > 0 {
			g.Reasons = append(g.Reasons, regressions)
		}
	case FailOnFailures:
		if s.Failing > 0 {
			g.Reasons = append(g.Reasons, plural(s.Failing, "failing case", "failing cases"))
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
