package history

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// MaxEnvelopeBytes bounds the bytes read of one envelope, as the
// reporters bound a saved envelope.
const MaxEnvelopeBytes = 256 << 20

// caseView is what history decodes of a case: names, kind, verdict,
// figures, counts, labels and the reliability class, never the evidence
// (the decoder skips every other field without keeping it).
type caseView struct {
	Name             string             `json:"name"`
	Kind             report.Kind        `json:"kind"`
	Verdict          report.Verdict     `json:"verdict"`
	Position         diag.Pos           `json:"position"`
	DefinitionSHA256 string             `json:"definition_sha256"`
	Model            string             `json:"model"`
	Targets          map[string]float64 `json:"targets"`
	Counts           map[string]int64   `json:"counts"`
	Labels           map[string]string  `json:"labels"`
	Reliability      *struct {
		Class string `json:"class"`
	} `json:"reliability"`
}

// head is what history decodes of an envelope outside its cases.
type head struct {
	schema  *int
	tool    report.ToolInfo
	run     report.RunInfo
	source  *report.Source
	suite   report.SuiteInfo
	verdict report.Verdict
	totals  report.Totals
	summary *report.Summary
	floors  []report.SuiteFloor
}

// check applies the envelope's own check (report.Envelope.Check) to the
// head: a verdict or mode outside its set, a control character in a
// one-line field, another schema version.
func (h *head) check(name string) error {
	if h.schema == nil {
		return fmt.Errorf("%s: not a run envelope: no schema_version", name)
	}
	if *h.schema != report.SchemaVersion {
		return fmt.Errorf("%s: run envelope schema_version %d, this mcptest reads %d", name, *h.schema, report.SchemaVersion)
	}
	env := report.Envelope{SchemaVersion: *h.schema, Tool: h.tool, Run: h.run, Source: h.source, Suite: h.suite, Verdict: h.verdict}
	if err := env.Check(); err != nil {
		return fmt.Errorf("%s: not a run envelope: %w", name, err)
	}
	return nil
}

func (h *head) runInfo(name string) Run {
	r := Run{Name: name, ID: h.run.ID, StartedAt: h.run.StartedAt, Suite: h.suite.Path, Verdict: string(h.verdict)}
	if h.source != nil {
		r.Commit, r.Branch = h.source.Commit, h.source.Branch
	}
	return r
}

// ReadHead reads the run of one envelope (its run, source, suite and
// verdict), so a window can be ordered before it is folded: it stops at
// the cases when the fields before them named the run (as mcptest writes
// an envelope), else skips the cases token by token. r is read up to
// MaxEnvelopeBytes.
func ReadHead(r io.Reader, name string) (Run, error) {
	h, err := decode(r, name, nil)
	if err != nil {
		return Run{}, err
	}
	return h.runInfo(name), nil
}

// ReadSnapshot reads one envelope from r case by case and returns what
// history keeps of it: a case is decoded, checked as report.CaseResult.Check
// checks it, reduced to its figures and dropped before the next is read,
// so the memory is that of one case and the snapshot. An envelope of
// more than maxCases cases (0: DefaultMaxCells) is refused. name names the
// envelope in messages and in the Run; a problem is an error naming it.
func ReadSnapshot(r io.Reader, name string, maxCases int) (*Snapshot, error) {
	if maxCases <= 0 {
		maxCases = DefaultMaxCells
	}
	s := &Snapshot{}
	var agg suiteAgg
	h, err := decode(r, name, func(i int, c *caseView) error {
		if i >= maxCases {
			return fmt.Errorf("more than %d cases", maxCases)
		}
		cr := report.CaseResult{Name: c.Name, Kind: c.Kind, Verdict: c.Verdict, Position: c.Position,
			DefinitionSHA256: c.DefinitionSHA256, Model: c.Model, Labels: c.Labels}
		if c.Reliability != nil {
			cr.Reliability = &report.ReliabilityDetail{Class: c.Reliability.Class}
		}
		if err := cr.Check(fmt.Sprintf("cases[%d]", i)); err != nil {
			return err
		}
		cr.Targets, cr.Counts = c.Targets, c.Counts
		cs := caseSnapshot(&cr)
		agg.add(&cr, &cs)
		s.Cases = append(s.Cases, cs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Run = h.runInfo(name)
	s.Figures, s.K = agg.figures(h.totals, h.summary)
	s.Floors = floorValues(h.floors)
	return s, nil
}

// SnapshotOf takes the snapshot of an envelope already decoded and
// checked (report.Read, baseline.ReadBaseline), named name. An envelope
// of another schema version has no cases to take and is refused.
func SnapshotOf(env *report.Envelope, name string) (*Snapshot, error) {
	if env.SchemaVersion != report.SchemaVersion {
		return nil, fmt.Errorf("%s: run envelope schema_version %d, this mcptest reads %d", name, env.SchemaVersion, report.SchemaVersion)
	}
	if err := env.Check(); err != nil {
		return nil, fmt.Errorf("%s: not a run envelope: %w", name, err)
	}
	h := head{tool: env.Tool, run: env.Run, source: env.Source, suite: env.Suite, verdict: env.Verdict, totals: env.Totals, summary: env.Summary}
	s := &Snapshot{Run: h.runInfo(name), Cases: make([]CaseSnapshot, 0, len(env.Cases))}
	var agg suiteAgg
	for _, c := range env.Cases {
		cs := caseSnapshot(c)
		agg.add(c, &cs)
		s.Cases = append(s.Cases, cs)
	}
	s.Figures, s.K = agg.figures(env.Totals, env.Summary)
	s.Floors = floorValues(env.Floors)
	return s, nil
}

// decode reads an envelope's top level token by token: the head fields
// into a head, each element of cases to onCase (nil: cases are skipped
// without being kept), every other field skipped.
func decode(r io.Reader, name string, onCase func(i int, c *caseView) error) (*head, error) {
	lr := &io.LimitedReader{R: r, N: MaxEnvelopeBytes + 1}
	dec := json.NewDecoder(lr)
	bad := func(err error) error {
		if lr.N <= 0 {
			return fmt.Errorf("%s: larger than %d MiB, which no run envelope is", name, MaxEnvelopeBytes>>20)
		}
		// A text that is not JSON is refused as every reader refuses it.
		return report.Placed(fmt.Errorf("%s: not a run envelope: %w", name, err), r, name)
	}
	if err := delim(dec, '{'); err != nil {
		return nil, bad(err)
	}
	h := &head{}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		key, _ := t.(string)
		if seen[key] {
			return nil, bad(fmt.Errorf("the field %s appears twice", strconv.Quote(clip(key, 60))))
		}
		seen[key] = true
		if key == "cases" && onCase == nil && seen["schema_version"] && seen["run"] && seen["suite"] && seen["verdict"] {
			// A head read stops at the cases when it has what orders and
			// names the run; the fold reads the rest and checks it.
			return h, h.check(name)
		}
		err = h.field(dec, key, onCase)
		if err != nil {
			var ce caseError
			var ba budgetAt
			switch {
			case errors.As(err, &ce):
				return nil, report.Placed(fmt.Errorf("%s: not a run envelope: %w", name, ce.err), r, name)
			case errors.As(err, &ba):
				return nil, fmt.Errorf("%s: %w", ba.placeIn(r, name), ba.be)
			}
			return nil, bad(fmt.Errorf("%s: %w", key, err))
		}
	}
	if err := delim(dec, '}'); err != nil {
		return nil, bad(err)
	}
	// nothing but white space after the envelope, as every reader holds it
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(cmp.Or(err, errors.New("data after the envelope's closing brace")))
	}
	if err := h.check(name); err != nil {
		return nil, err
	}
	return h, nil
}

// floorValues are the figures the suite's floors read, of the percent
// targets (summary.pass_rate, summary.pass_hat_<k>, summary.pass_at_<k>);
// a floor deferred to a merge, or with no number, has none.
func floorValues(floors []report.SuiteFloor) []FloorValue {
	var out []FloorValue
	for _, f := range floors {
		var v float64
		ok := true
		switch n := f.Actual.(type) {
		case float64:
			v = n
		case int:
			v = float64(n)
		case int64:
			v = float64(n)
		default:
			ok = false
		}
		if !ok || f.Deferred || math.IsNaN(v) || math.IsInf(v, 0) || !strings.HasPrefix(f.Target, "summary.pass_") || strings.ContainsFunc(f.Target, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
			continue
		}
		out = append(out, FloorValue{Target: clip(f.Target, 60), Value: v})
	}
	return out
}

// field decodes the top-level field key into h, the cases to onCase (nil:
// skipped without being kept), any other field skipped.
func (h *head) field(dec *json.Decoder, key string, onCase func(i int, c *caseView) error) error {
	switch key {
	case "schema_version":
		return dec.Decode(&h.schema)
	case "tool":
		return dec.Decode(&h.tool)
	case "run":
		return dec.Decode(&h.run)
	case "source":
		return dec.Decode(&h.source)
	case "suite":
		return dec.Decode(&h.suite)
	case "verdict":
		return dec.Decode(&h.verdict)
	case "totals":
		return dec.Decode(&h.totals)
	case "summary":
		return dec.Decode(&h.summary)
	case "floors":
		// a floor's matcher decodes into a generic value: held to the
		// decode budget first
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := report.CheckBudget("floors", raw); err != nil {
			// the decoder stands just past the floors
			return budgetAt{be: err.(*report.BudgetError), start: dec.InputOffset() - int64(len(raw))}
		}
		return json.Unmarshal(raw, &h.floors)
	case "cases":
		if onCase != nil {
			return cases(dec, onCase)
		}
	}
	return skip(dec)
}

// caseError is a case that decoded but does not pass the check.
type caseError struct{ err error }

func (e caseError) Error() string { return e.err.Error() }

// cases reads the cases array one element at a time.
func cases(dec *json.Decoder, onCase func(int, *caseView) error) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return errors.New("want an array of cases")
	}
	for i := 0; dec.More(); i++ {
		var c *caseView
		if err := dec.Decode(&c); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
		if c == nil {
			return caseError{fmt.Errorf("cases[%d] is null: every case is an object", i)}
		}
		if err := onCase(i, c); err != nil {
			return caseError{err}
		}
	}
	_, err = dec.Token()
	return err
}

// skip reads one value without keeping it.
func skip(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func delim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q", string(want))
	}
	return nil
}

// caseSnapshot reads a case's figures (see the Figure constants).
func caseSnapshot(c *report.CaseResult) CaseSnapshot {
	cs := CaseSnapshot{Name: c.Name, Kind: string(c.Kind), Verdict: c.Verdict}
	for f := range cs.Figures {
		cs.Figures[f] = math.NaN()
	}
	t := c.Targets
	switch {
	case has(t, "reliability.pass_rate"):
		cs.Figures[PassRate] = t["reliability.pass_rate"]
	case c.Verdict == report.Pass:
		cs.Figures[PassRate] = 100
	case c.Verdict == report.Fail:
		cs.Figures[PassRate] = 0
	}
	for name, v := range t {
		rest, ok := strings.CutPrefix(name, "reliability.pass_hat_")
		if !ok {
			continue
		}
		if k, err := strconv.Atoi(rest); err == nil && k > cs.K && k <= 1<<20 {
			cs.K, cs.Figures[PassHat] = k, v
		}
	}
	cs.Figures[CertifiedLower] = first(t, "reliability.certified_lower", "distractors.certified_lower")
	cs.Figures[SelectionF1] = first(t, "tool_selection.f1", "token_efficiency.f1")
	cs.Figures[Tokens] = first(t, "tool_selection.tokens_median")
	cs.Figures[Cost] = first(t, "token_efficiency.cost")
	if micros, ok := c.Counts["cost_micros"]; ok && math.IsNaN(cs.Figures[Cost]) {
		cs.Figures[Cost] = float64(micros) / 1e6
	}
	cs.Figures[SurfaceTokens] = first(t, "token_efficiency.tool_surface_tokens")
	for f, v := range cs.Figures {
		if math.IsInf(v, 0) {
			cs.Figures[f] = math.NaN()
		}
	}
	return cs
}

func has(m map[string]float64, k string) bool {
	_, ok := m[k]
	return ok
}

// first is the value of the first of names m has, NaN for none.
func first(m map[string]float64, names ...string) float64 {
	for _, n := range names {
		if v, ok := m[n]; ok {
			return v
		}
	}
	return math.NaN()
}

// suiteAgg sums what a suite's figures read of its cases.
type suiteAgg struct {
	lowerSum                     float64
	lowers                       int
	tp, fp, fn                   int64
	selections                   bool
	tokens, cost, surface        float64
	hasTokens, hasCost, hasSurfc bool
}

func (a *suiteAgg) add(c *report.CaseResult, cs *CaseSnapshot) {
	if v := cs.Figures[CertifiedLower]; !math.IsNaN(v) {
		a.lowerSum += v
		a.lowers++
	}
	if tp, ok := c.Counts["tool_selection.tp"]; ok {
		a.selections = true
		a.tp += max(tp, 0)
		a.fp += max(c.Counts["tool_selection.fp"], 0)
		a.fn += max(c.Counts["tool_selection.fn"], 0)
	}
	if v := cs.Figures[Tokens]; !math.IsNaN(v) {
		a.tokens += v
		a.hasTokens = true
	}
	if v := cs.Figures[Cost]; !math.IsNaN(v) {
		a.cost += v
		a.hasCost = true
	}
	if v := cs.Figures[SurfaceTokens]; !math.IsNaN(v) {
		a.surface = max(a.surface, v)
		a.hasSurfc = true
	}
}

// figures are the suite's figures (see the Figure constants).
func (a *suiteAgg) figures(totals report.Totals, sum *report.Summary) (fs [NumFigures]float64, k int) {
	for f := range fs {
		fs[f] = math.NaN()
	}
	switch decided := totals.Passed + totals.Failed; {
	case sum != nil && sum.PassRate.Cases > 0:
		fs[PassRate] = sum.PassRate.Value
	case decided > 0 && totals.Passed >= 0 && totals.Failed >= 0:
		fs[PassRate] = 100 * float64(totals.Passed) / float64(decided)
	}
	if sum != nil {
		for _, p := range sum.PassHat {
			if p.K > int64(k) && p.K <= 1<<20 && p.Cases > 0 {
				k, fs[PassHat] = int(p.K), p.Value
			}
		}
	}
	if a.lowers > 0 {
		fs[CertifiedLower] = a.lowerSum / float64(a.lowers)
	}
	if d := 2*a.tp + a.fp + a.fn; a.selections && d > 0 {
		fs[SelectionF1] = 200 * float64(a.tp) / float64(d)
	}
	if a.hasTokens {
		fs[Tokens] = a.tokens
	}
	if a.hasCost {
		fs[Cost] = round(a.cost, 6)
	}
	if a.hasSurfc {
		fs[SurfaceTokens] = a.surface
	}
	return fs, k
}

// round rounds v half away from zero to places decimals.
func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}
