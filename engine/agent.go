package engine

import (
	"fmt"
	"slices"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/report"
)

// runAgent computes an agent test, reading its cassettes one file at a
// time and keeping only what its gates and assertions need.
func runAgent(s *Suite, p casePlan, res *report.CaseResult, progress func()) (*report.CaseResult, diag.List) {
	c := p.c
	a := newAgentRun(c, res)
	use := cassetteUse{open: a.open, run: a.run, tally: &a.tools}
	for _, g := range a.gates {
		if _, ok := g.(*argumentsGate); ok {
			// only an arguments: gate reads the file's bytes again; a
			// file no gate holds is done with once streamed
			// (readArrays)
			use.bytes = a.fileBytes
		}
	}
	if a.aheadChecks || a.scorers {
		use.prep = a.prep
	}
	var j *joiner
	var errs diag.List
	if len(c.Sources) > 0 || len(c.Aliases) > 0 {
		j, errs = newJoiner(s, p, res, progress)
		use.adapt, use.files, use.digest = j.adapt, j.files, j.digest
	}
	if len(errs) > 0 {
		return res, errs
	}
	errs = eachCassette(s, p, res, progress, use)
	if j != nil && len(errs) == 0 {
		errs = j.finish()
	}
	res.Runs = a.runN

	for _, g := range a.gates {
		g.result(res)
	}
	res.Findings = append(res.Findings, aliasedRefFindings(c)...)
	offered := &toolIndex{}
	if len(toolRefs(c)) > 0 {
		offered = a.tools.offeredIndex()
	}
	res.Findings = append(res.Findings, unknownToolFindings(c, offered, &a.called)...)
	a.verdicts.reliability(c, res)
	a.evaluate(res)
	for _, g := range a.gates {
		g.floors(res)
	}
	a.verdicts.judge(c, res)

	if a.runN == 0 && len(errs) == 0 {
		res.Findings = append(res.Findings, report.Finding{Level: "error",
			Message: "no recorded runs: the cassettes hold no runs, so nothing could be gated"})
	}
	res.Findings = append(res.Findings, a.noCalls.findings(c, a.runN)...)
	if c.Runs > 0 && a.runN > 0 && c.Runs != a.runN {
		res.Findings = append(res.Findings, report.Finding{Level: "warning",
			Message: fmt.Sprintf("the suite asks for %d runs and %d are recorded: every figure is over the %d recorded runs", c.Runs, a.runN, a.runN)})
	}
	res.Verdict = caseVerdict(res, c.Reliability != nil)
	a.finishEvidence()
	leanEvidence(res)
	return res, errs
}

// agentRun is the state of one agent test while its runs stream by: a
// gate per block (in registry order), the assertions on one run's fields
// and on the case's figures, and each run's verdict.
type agentRun struct {
	c     *Case
	res   *report.CaseResult
	gates []caseGate
	// marker marks the calls of a run's evidence.
	marker evidenceMarker
	// perRun are the assertions on a run's fields, checked on every run;
	// perCase those on gate and reliability targets, evaluated once.
	perRun  []*runCheck
	perCase []*Assertion
	// callDocs is what of the run's calls the per-run checks evaluated in
	// the fold read (runDoc); aheadCalls the same of those prep evaluates.
	callDocs, aheadCalls callParts
	// aheadChecks is whether a per-run check reads the run alone
	// (runCheck.readsRunAlone): prep evaluates those.
	aheadChecks bool
	// scorers is whether a gate of the case is a runScorer.
	scorers bool
	checks  *gateChecks
	runN    int
	// tools counts the case's tools (eachCassette's tally), the ones its
	// recordings' catalogs offered among them: what a name a gate block
	// writes is checked against, with no copy of each.
	tools toolTally
	// called are the tools the runs called, which a name is checked
	// against when no cassette recorded its catalog.
	called   toolIndex
	verdicts runVerdicts
	failed   []string
	noCalls  callTally
	// pending is the passing run whose evidence is held unrendered (see
	// pendingEvidence); nil when none is.
	pending *pendingEvidence
}

func newAgentRun(c *Case, res *report.CaseResult) *agentRun {
	a := &agentRun{c: c, res: res, marker: newEvidenceMarker(c)}
	byKey := map[string]caseGate{}
	for _, b := range c.Blocks {
		g := b.newGate(c)
		a.gates = append(a.gates, g)
		byKey[b.Key()] = g
	}
	for _, as := range c.Expect {
		name := as.Target.String()
		if _, ok := reliabilityTarget(name); ok {
			a.perCase = append(a.perCase, as)
			continue
		}
		if _, ok := targetBlock(name); ok {
			a.perCase = append(a.perCase, as)
			continue
		}
		a.perRun = append(a.perRun, newRunCheck(as))
	}
	a.checks = newGateChecks(a.gates, byKey, a.perCase)
	var fold, ahead []*runCheck
	for _, rc := range a.perRun {
		if rc.readsRunAlone() {
			ahead = append(ahead, rc)
		} else {
			fold = append(fold, rc)
		}
	}
	a.callDocs, a.aheadCalls, a.aheadChecks = readsCalls(fold), readsCalls(ahead), len(ahead) > 0
	for _, g := range a.gates {
		if _, ok := g.(runScorer); ok {
			a.scorers = true
		}
	}
	return a
}

// prep does the part of a run's work that needs nothing folded before
// it, on whichever goroutine decoded the run (cassetteUse.prep): the
// per-run checks that read the run alone, one outcome per check of
// a.perRun (the others' left zero), and each runScorer gate's score. It
// reads only what the case declared.
func (a *agentRun) prep(cas *cassette.Cassette, r *cassette.Run, pr *runPrep) {
	if a.aheadChecks {
		doc := runDoc(0, cas, r, a.aheadCalls) // run is not read by these checks
		done := paceCalls(a.aheadCalls, r)
		pr.checks = make([]checkOutcome, len(a.perRun))
		for k, rc := range a.perRun {
			if rc.readsRunAlone() {
				pr.checks[k] = rc.outcome(doc)
			}
		}
		done()
	}
	if a.scorers {
		pr.scores = make([]any, len(a.gates))
		for i, g := range a.gates {
			if _, args := g.(*argumentsGate); args && !pr.ahead {
				// Scored ahead only: a run prepared just before its fold
				// is checked call by call in the fold, its verdicts
				// never held (a run of a million calls).
				continue
			}
			if sc, ok := g.(runScorer); ok {
				pr.scores[i] = sc.score(cas, r)
			}
		}
	}
}

// open shows every gate a cassette before its runs.
func (a *agentRun) open(cas *cassette.Cassette) {
	for _, g := range a.gates {
		g.addCassette(cas)
	}
}

// fileBytes hands the bytes of the file being streamed (nil once done) to
// the gates that read them again.
func (a *agentRun) fileBytes(data []byte) {
	for _, g := range a.gates {
		if ag, ok := g.(*argumentsGate); ok {
			ag.shared = data
		}
	}
}

// run feeds one recorded run to every gate, gives the run its verdict (the
// checks it failed) and keeps its evidence.
func (a *agentRun) run(cas *cassette.Cassette, r *cassette.Run, pr *runPrep) {
	a.runN++
	a.noCalls.add(a.runN, r)
	if a.tools.offered == 0 {
		for _, t := range r.Turns {
			for _, c := range t.Calls {
				a.called.addTool(c.Server, c.Tool)
			}
		}
	}
	for i, g := range a.gates {
		if sc, ok := g.(runScorer); ok && pr.scores != nil && pr.scores[i] != nil {
			sc.addScored(cas, r, pr.scores[i])
		} else {
			g.add(cas, r)
		}
	}
	a.failed = a.failed[:0]
	var doc map[string]any
	done := func() {}
	for k, rc := range a.perRun {
		var passed bool
		if rc.readsRunAlone() {
			passed = rc.record(a.runN, pr.checks[k])
		} else {
			if doc == nil {
				doc = runDoc(a.runN, cas, r, a.callDocs)
				done = paceCalls(a.callDocs, r)
			}
			passed = rc.check(a.runN, doc)
		}
		if !passed {
			a.failed = append(a.failed, rc.label)
		}
	}
	done()
	a.failed = a.checks.check(a.failed)
	a.verdicts.add(a.runN, a.failed)
	a.keepEvidence(cas, r, len(a.failed) > 0)
}

// keepEvidence keeps the evidence of the run just added, which failed or
// not, as addEvidence keeps it (within evidenceRoom), a passing run's
// held unrendered (hold) until the next run or the case's verdict
// (finishEvidence) says whether it is wanted.
func (a *agentRun) keepEvidence(cas *cassette.Cassette, r *cassette.Run, failed bool) {
	if failed {
		a.pending = nil // a failing run takes its place, as addEvidence gives it
	} else {
		a.settle()
	}
	if want, limit := evidenceRoom(a.res, failed); want {
		if !failed && a.hold(cas, r, limit) {
			return
		}
		ev, ok := runEvidenceWithin(a.runN, cas.Model, r, a.marker, missedClasses(a.gates), limit)
		if !ok {
			dropEvidence(a.res, failed)
			return
		}
		markArguments(&ev, a.gates)
		ev.Figures, ev.Notes = runFigures(a.gates)
		addEvidence(a.res, ev, failed)
	}
}

// finishEvidence renders the passing run held, once the case's verdict
// is known, where the case did not pass (a passing case keeps no
// evidence: leanEvidence), and lets it go.
func (a *agentRun) finishEvidence() {
	if a.res.Verdict != report.Pass {
		a.settle()
	}
	a.pending = nil
}

// pendingEvidence is a passing run whose evidence addEvidence would keep
// (the case has kept none), held unrendered: a case that passes drops it
// (leanEvidence), and most cases pass, so rendering it (decoding each
// call's arguments, redacting and encoding them again) at once was a
// sixth of what a run of small transcripts allocated. What the gates say
// of the run (the classes it missed, its figures and notes) is taken when
// it is held; the marks of its calls depend on the call alone.
type pendingEvidence struct {
	n       int
	model   string
	r       *cassette.Run
	limit   int
	missed  []string
	figures map[string]float64
	notes   []string
}

// hold holds the evidence of the passing run r, which evidenceRoom wants
// within limit, for settle to render; false, nothing held, where it is
// rendered at once: a case with an arguments: gate (its marks are the
// gate's state of the run), or a run over maxEvidenceCalls calls, or
// whose call names alone are over limit (given up at once, nothing
// rendered), so what a case holds is one run of few calls.
func (a *agentRun) hold(cas *cassette.Cassette, r *cassette.Run, limit int) bool {
	if callNamesBytes(r) > limit {
		return false
	}
	calls := 0
	for _, t := range r.Turns {
		calls += len(t.Calls)
	}
	if calls > maxEvidenceCalls {
		return false
	}
	for _, g := range a.gates {
		if _, ok := g.(*argumentsGate); ok {
			return false
		}
	}
	p := &pendingEvidence{n: a.runN, model: cas.Model, r: r, limit: limit, missed: slices.Clone(missedClasses(a.gates))}
	p.figures, p.notes = runFigures(a.gates)
	a.pending = p
	return true
}

// settle renders the evidence of the passing run held, if any, and adds
// it as run would have when the run was added: called before the next
// run is (so a passing run that does not fit gives its place to the next
// passing run, as before) and once the case's verdict is not a pass.
func (a *agentRun) settle() {
	p := a.pending
	if p == nil {
		return
	}
	a.pending = nil
	ev, ok := runEvidenceWithin(p.n, p.model, p.r, a.marker, p.missed, p.limit)
	if !ok {
		return // dropEvidence of a passing run: nothing to drop
	}
	ev.Figures, ev.Notes = p.figures, p.notes
	addEvidence(a.res, ev, false)
}

// runFigures gathers the figures the gates give of the last run added
// (latency.run_ms, steps.calls, trajectory.match_pct) and their notes
// (a trajectory's first divergence, redacted: it quotes arguments), for
// the run's evidence; nil when no gate gives any.
func runFigures(gates []caseGate) (map[string]float64, []string) {
	var figures map[string]float64
	var notes []string
	for _, g := range gates {
		f, ok := g.(interface {
			runFigures() (map[string]float64, []string)
		})
		if !ok {
			continue
		}
		fs, ns := f.runFigures()
		if figures == nil {
			figures = map[string]float64{}
		}
		for k, v := range fs {
			figures[k] = v
		}
		for _, n := range ns {
			notes = append(notes, redact.String(n))
		}
	}
	return figures, notes
}

// evaluate adds the result of every assertion, in declaration order: those
// on the case's figures evaluated now, those on a run's fields as their
// runs checked them.
func (a *agentRun) evaluate(res *report.CaseResult) {
	for _, as := range a.perCase {
		actual, ok := caseValue(res, as.Target.String())
		res.Assertions = append(res.Assertions, evaluate(as, actual, ok))
	}
	judged := a.c.Reliability != nil
	for _, rc := range a.perRun {
		ar := rc.result(a.runN)
		if !ar.Passed && judged {
			ar.Message += judgedNote
		}
		res.Assertions = append(res.Assertions, ar)
	}
	sortAssertions(res.Assertions, a.c.Expect)
}
