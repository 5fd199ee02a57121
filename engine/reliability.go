package engine

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/stats"
	"github.com/mcptest/mcptest/report"
)

// ReliabilityBlock is a reliability: block: the floors that judge a case by
// the verdicts of its recorded runs. A case's own block replaces the
// suite's default; a case with neither is judged as it always was (every
// assertion must pass on every run).
type ReliabilityBlock struct {
	Pos diag.Pos
	// FromSuite is true when the case took the suite's default block.
	FromSuite bool
	// MinPassRate, MinCertifiedLower and MinPassHat.Min are percents; nil
	// when the block does not set them.
	MinPassRate       *float64
	MinPassHat        *PassHatFloor
	MinCertifiedLower *float64
	// MinPassAt is a min_pass_at: {k, min} floor on pass@k; nil when unset.
	MinPassAt *PassHatFloor
	// AllowFlaky is false when the block says `allow_flaky: false`.
	AllowFlaky bool
}

// PassHatFloor is a min_pass_hat: or min_pass_at: {k, min} floor.
type PassHatFloor struct {
	K   int64
	Min float64
}

// DefaultConfidence is the confidence of a certified bound when the suite
// does not set `reliability.confidence`, in percent.
const DefaultConfidence = 95

// Confidence is the confidence of the one-sided Clopper-Pearson bounds of
// reliability.certified_lower, in percent with at most three decimals; 0
// means DefaultConfidence.
type Confidence float64

// Percent is the confidence in percent, the default applied.
func (c Confidence) Percent() float64 {
	if c == 0 {
		return DefaultConfidence
	}
	return float64(c)
}

// alpha is 1 - confidence as the fraction num/100000 that
// stats.LowerPercent decides with.
func (c Confidence) alpha() (num, den int64) {
	return int64(math.Round((100 - c.Percent()) * 1000)), 100000
}

// String renders the confidence as "95%".
func (c Confidence) String() string {
	return strconv.FormatFloat(c.Percent(), 'f', -1, 64) + "%"
}

// reliabilityTargetNames are the fixed reliability targets; pass_hat_<k>
// and pass_at_<k> complete them.
var reliabilityTargetNames = []string{"reliability.pass_rate", "reliability.pass_hat_1", "reliability.pass_at_1", "reliability.certified_lower", "reliability.class"}

// reliabilityTarget reports whether name is a reliability target, and for
// reliability.pass_hat_<k> or reliability.pass_at_<k> its k (0 for the
// others).
func reliabilityTarget(name string) (k int64, ok bool) {
	rest, found := strings.CutPrefix(name, "reliability.")
	if !found {
		return 0, false
	}
	switch rest {
	case "pass_rate", "certified_lower", "class":
		return 0, true
	}
	ks, found := strings.CutPrefix(rest, "pass_hat_")
	if !found {
		ks, found = strings.CutPrefix(rest, "pass_at_")
	}
	if found {
		k, err := strconv.ParseInt(ks, 10, 64)
		if err == nil && k >= 1 && strconv.FormatInt(k, 10) == ks {
			return k, true
		}
	}
	return 0, false
}

// runVerdicts collects the verdicts of a case's runs, in order.
type runVerdicts struct {
	rows   []report.RunVerdict
	passed int64
}

// add records run's verdict: failed names the checks it failed (copied).
func (v *runVerdicts) add(run int, failed []string) {
	row := report.RunVerdict{Run: run, Passed: len(failed) == 0}
	if row.Passed {
		v.passed++
	} else {
		row.Failed = slices.Clone(failed)
	}
	v.rows = append(v.rows, row)
}

// reliability adds a case's reliability figures from its run verdicts: the
// targets, the counts behind them, the class and the per-run rows. A case
// gets them when it has two runs or more, a reliability: block, or an
// assertion on a reliability target.
func (v *runVerdicts) reliability(c *Case, res *report.CaseResult) {
	n := int64(len(v.rows))
	if n == 0 || (n < 2 && c.Reliability == nil && !assertsReliability(c)) {
		return
	}
	passed := v.passed
	class := stats.Classify(passed, n)
	res.Targets["reliability.pass_rate"] = float64(stats.Percent(passed, n))
	for _, k := range passHatKs(c, n) {
		res.Targets["reliability.pass_hat_"+strconv.FormatInt(k, 10)] = float64(stats.RatPercent(stats.PassHat(passed, n, k)))
		res.Targets["reliability.pass_at_"+strconv.FormatInt(k, 10)] = float64(stats.RatPercent(stats.PassAt(passed, n, k)))
	}
	an, ad := c.Confidence.alpha()
	res.Targets["reliability.certified_lower"] = float64(stats.LowerPercent(passed, n, an, ad))
	res.Counts["reliability.runs"] = n
	res.Counts["reliability.passed_runs"] = passed
	if res.Labels == nil {
		res.Labels = map[string]string{}
	}
	res.Labels["reliability.class"] = string(class)
	res.Reliability = &report.ReliabilityDetail{Runs: n, PassedRuns: passed, Class: string(class), Confidence: c.Confidence.Percent(),
		Judged: c.Reliability != nil, Rows: v.rows}
}

// judge adds the reliability floor of a case under a reliability: block,
// after its other floors.
func (v *runVerdicts) judge(c *Case, res *report.CaseResult) {
	if c.Reliability != nil && res.Reliability != nil {
		res.Floors = append(res.Floors, v.floor(c, res))
	}
}

// assertsReliability reports whether an assertion of c names a reliability
// target.
func assertsReliability(c *Case) bool {
	for _, a := range c.Expect {
		if _, ok := reliabilityTarget(a.Target.String()); ok {
			return true
		}
	}
	return false
}

// passHatKs lists the k of the pass_hat_<k> and pass_at_<k> targets of a
// case with n runs: 1..min(n, 20), and any k <= n that the block or an
// assertion names.
func passHatKs(c *Case, n int64) []int64 {
	var ks []int64
	for k := int64(1); k <= min(n, report.MaxPassHatTargets); k++ {
		ks = append(ks, k)
	}
	extra := func(k int64) {
		if k > report.MaxPassHatTargets && k <= n && !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	if r := c.Reliability; r != nil && r.MinPassHat != nil {
		extra(r.MinPassHat.K)
	}
	if r := c.Reliability; r != nil && r.MinPassAt != nil {
		extra(r.MinPassAt.K)
	}
	for _, a := range c.Expect {
		if k, ok := reliabilityTarget(a.Target.String()); ok && k > 0 {
			extra(k)
		}
	}
	slices.Sort(ks)
	return ks
}

// floor decides the reliability floor of a case under a reliability:
// block. It holds when at least one run passed and every floor the block
// sets holds: the pass rate, pass^k and the certified lower bound (each
// compared exactly, before rounding) and, with `allow_flaky: false`, the
// case is not flaky.
func (v *runVerdicts) floor(c *Case, res *report.CaseResult) report.Floor {
	r := c.Reliability
	n, passed := int64(len(v.rows)), v.passed
	rate := big.NewRat(passed, n)
	bound := res.Targets["reliability.certified_lower"]
	class := stats.Classify(passed, n)
	parts := []string{fmt.Sprintf("%d/%d runs passed (%d%%)", passed, n, stats.Percent(passed, n))}
	if r.MinPassHat != nil && r.MinPassHat.K <= n {
		parts = append(parts, fmt.Sprintf("pass^%d %d%%", r.MinPassHat.K, stats.RatPercent(stats.PassHat(passed, n, r.MinPassHat.K))))
	}
	if r.MinPassAt != nil && r.MinPassAt.K <= n {
		parts = append(parts, fmt.Sprintf("pass@%d %d%%", r.MinPassAt.K, stats.RatPercent(stats.PassAt(passed, n, r.MinPassAt.K))))
	}
	parts = append(parts, fmt.Sprintf("certified lower bound %s%% at %s confidence", formatNumber(bound), c.Confidence))
	f := report.Floor{Name: "reliability floor", Passed: true, Message: fmt.Sprintf("%s: %s: %s", c.Name, strings.Join(parts, ", "), class)}
	breach := func(format string, args ...any) {
		f.Passed = false
		f.Lines = append(f.Lines, "FLOOR "+c.Name+": "+fmt.Sprintf(format, args...))
	}
	if passed == 0 {
		breach("no run passed (0 of %d): a reliability floor vouches for runs that pass", n)
	}
	if r.MinPassRate != nil && !stats.MeetsPercent(rate, *r.MinPassRate) {
		breach("pass rate %d%% is below the %s%% floor (%d of %d runs passed)", stats.Percent(passed, n), formatNumber(*r.MinPassRate), passed, n)
	}
	if ph := r.MinPassHat; ph != nil {
		if ph.K > n {
			breach("pass^%d needs at least %d runs and %d are recorded", ph.K, ph.K, n)
		} else if est := stats.PassHat(passed, n, ph.K); !stats.MeetsPercent(est, ph.Min) {
			breach("pass^%d %d%% is below the %s%% floor (C(%d,%d)/C(%d,%d))", ph.K, stats.RatPercent(est), formatNumber(ph.Min), passed, ph.K, n, ph.K)
		}
	}
	if pa := r.MinPassAt; pa != nil {
		if pa.K > n {
			breach("pass@%d needs at least %d runs and %d are recorded", pa.K, pa.K, n)
		} else if est := stats.PassAt(passed, n, pa.K); !stats.MeetsPercent(est, pa.Min) {
			breach("pass@%d %d%% is below the %s%% floor (1 - C(%d,%d)/C(%d,%d))", pa.K, stats.RatPercent(est), formatNumber(pa.Min), n-passed, pa.K, n, pa.K)
		}
	}
	if r.MinCertifiedLower != nil && bound < *r.MinCertifiedLower {
		breach("certified lower bound %s%% at %s confidence is below the %s%% floor", formatNumber(bound), c.Confidence, formatNumber(*r.MinCertifiedLower))
		if passed == n {
			f.Lines = append(f.Lines, fmt.Sprintf("  all %d runs passed, and %d runs certify only %s%%: a higher floor needs more runs", n, n, formatNumber(bound)))
		}
	}
	if !r.AllowFlaky && class == stats.Flaky {
		breach("the case is flaky (%d of %d runs passed) and `allow_flaky: false`", passed, n)
	}
	if f.Passed {
		return f
	}
	shown := 0
	for _, row := range v.rows {
		if row.Passed {
			continue
		}
		if shown == maxRunLines {
			f.Lines = append(f.Lines, fmt.Sprintf("  and %d more failing runs", n-passed-int64(shown)))
			break
		}
		shown++
		f.Lines = append(f.Lines, fmt.Sprintf("  run %d: %s", row.Run, strings.Join(row.Failed, "; ")))
	}
	return f
}

// maxRunLines bounds the failing runs a floor names one by one.
const maxRunLines = 20

// suiteReliability reads the suite's reliability: block: the confidence of
// certified bounds and the default floors of every agent test and scenario
// without a block of its own. It is read before the cases.
func (b *builder) suiteReliability(root map[string]any) {
	m, ok := root["reliability"].(map[string]any)
	if !ok {
		return
	}
	if v, ok := m["confidence"].(float64); ok {
		if math.Abs(v*1000-math.Round(v*1000)) > 1e-6 {
			b.errorf("/reliability/confidence", b.doc.At("/reliability/confidence"), "confidence %s has more than three decimals: write it as 95, 99 or 99.9", formatNumber(v))
		} else {
			b.suite.Confidence = Confidence(v)
		}
	}
	for k := range m {
		if k != "confidence" {
			b.suite.Reliability = b.reliabilityBlock("/reliability", m)
			b.suite.Reliability.FromSuite = true
			return
		}
	}
}

// reliabilityBlock reads a reliability: block at ptr; the schema has
// checked its keys and ranges.
func (b *builder) reliabilityBlock(ptr string, m map[string]any) *ReliabilityBlock {
	r := &ReliabilityBlock{Pos: b.doc.KeyAt(ptr), AllowFlaky: true}
	if v, ok := m["min_pass_rate"].(float64); ok {
		r.MinPassRate = &v
	}
	if v, ok := m["min_certified_lower"].(float64); ok {
		r.MinCertifiedLower = &v
	}
	r.MinPassHat = passFloor(m["min_pass_hat"])
	r.MinPassAt = passFloor(m["min_pass_at"])
	if v, ok := m["allow_flaky"].(bool); ok {
		r.AllowFlaky = v
	}
	return r
}

// passFloor reads a {k, min} floor the schema has checked; nil when absent.
func passFloor(v any) *PassHatFloor {
	m, _ := v.(map[string]any)
	k, kok := m["k"].(float64)
	floor, mok := m["min"].(float64)
	if !kok || !mok {
		return nil
	}
	return &PassHatFloor{K: int64(k), Min: floor}
}

// caseReliability gives a case its reliability: block (or the suite's
// default) and the suite's confidence, and checks that a min_pass_hat k
// fits the runs the test declares (runs:).
func (b *builder) caseReliability(ptr string, c *Case, m map[string]any) {
	c.Confidence = b.suite.Confidence
	if rm, ok := m["reliability"].(map[string]any); ok {
		c.Reliability = b.reliabilityBlock(ptr+"/reliability", rm)
	} else if b.suite.Reliability != nil {
		r := *b.suite.Reliability
		c.Reliability = &r
	}
	// A suite default may ask for more runs than a test has: its floor
	// then fails with a line that says so, rather than the suite not loading.
	r := c.Reliability
	if r == nil || r.FromSuite || c.Runs == 0 {
		return
	}
	for key, f := range map[string]*PassHatFloor{"min_pass_hat": r.MinPassHat, "min_pass_at": r.MinPassAt} {
		if f == nil || f.K <= int64(c.Runs) {
			continue
		}
		kptr := ptr + "/reliability/" + key + "/k"
		b.errorf(kptr, b.doc.At(kptr), "%s k = %d needs at least %d runs, and test %q declares `runs: %d`: lower k or record more runs",
			key, f.K, f.K, c.Name, c.Runs)
	}
}

// judgedNote ends the message of an assertion checked on every run that
// failed on some, when a reliability: block judges the case: the failure
// counts against those runs, not the case.
const judgedNote = "; `reliability:` judges the case by its runs, so this counts against the runs that failed it"

// caseValue returns the value of a case target: a number of Targets or a
// word of Labels.
func caseValue(res *report.CaseResult, name string) (any, bool) {
	if v, ok := res.Targets[name]; ok {
		return v, true
	}
	if v, ok := res.Labels[name]; ok {
		return v, true
	}
	return nil, false
}
