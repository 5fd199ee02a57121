package engine

import (
	"fmt"
	"strings"

	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/report"
	"github.com/mcptest/mcptest/gate"
)

// runAgent computes an agent test, reading its cassettes one file at a
// time and keeping only what its gates and assertions need.
func runAgent(s *Suite, p casePlan, res *report.CaseResult, progress func()) (*report.CaseResult, diag.List) {
	c := p.c

	var sel *gate.Selection
	if c.Selection != nil {
		sel = gate.NewSelectionBy(c.Selection.Classes, c.Selection.Counting)
	}
	var edges *gate.EdgeCoverage
	if c.Edges != nil {
		edges = gate.NewEdges(c.Edges.Edges)
	}
	var te *gate.TokenEfficiency
	if c.TokenEfficiency != nil {
		te = gate.NewTokenEfficiency(c.TokenEfficiency.Classes)
	}
	multi := newMultiRun(c)
	marker := newEvidenceMarker(c, multi.injectedNames())
	var perRun []*runCheck
	var perCase []*Assertion
	pendingTargets := map[string][]string{}
	for _, a := range c.Expect {
		name := a.Target.String()
		if _, ok := reliabilityTarget(name); ok {
			perCase = append(perCase, a)
			continue
		}
		if gb, ok := targetBlock(name); ok {
			if !gb.implemented {
				pendingTargets[gb.key] = append(pendingTargets[gb.key], name)
				continue
			}
			perCase = append(perCase, a)
			continue
		}
		perRun = append(perRun, newRunCheck(a))
	}
	checks := newGateChecks(c, perCase)

	runN := 0
	var catalogs []cassette.ServerCatalog
	var verdicts runVerdicts
	var failedChecks []string
	errs := eachCassette(s, p, res, progress, cassetteUse{
		open: func(cas *cassette.Cassette) {
			catalogs = append(catalogs, cas.Catalog...)
			multi.addCassette(cas)
			if te != nil {
				te.AddCatalog(cas.Catalog)
			}
		},
		run: func(cas *cassette.Cassette, r *cassette.Run) {
			runN++
			var fig runFigures
			if sel != nil {
				rs := sel.Add(r)
				fig.sel = &rs
			}
			if edges != nil {
				er := edges.Add(r)
				fig.edges = &er
			}
			if te != nil {
				tr := te.Add(r)
				fig.te = &tr
			}
			multi.add(cas, r, &fig)
			failedChecks = failedChecks[:0]
			if len(perRun) > 0 {
				doc := runDoc(runN, cas, r)
				for _, rc := range perRun {
					if !rc.check(runN, doc) {
						failedChecks = append(failedChecks, rc.label)
					}
				}
			}
			failedChecks = checks.check(&fig, failedChecks)
			verdicts.add(runN, failedChecks)
			addEvidence(res, runEvidence(runN, cas.Model, r, marker, fig.missed()), len(failedChecks) > 0)
		},
	})
	res.Runs = runN

	if sel != nil {
		addGate(res, sel.Result())
	}
	if edges != nil {
		addGate(res, edges.Result())
	}
	if te != nil {
		addGate(res, te.Result())
	}
	multi.results(res)
	res.Findings = append(res.Findings, unknownToolFindings(c, catalogs)...)
	verdicts.reliability(c, res)
	for _, a := range perCase {
		actual, ok := caseValue(res, a.Target.String())
		res.Assertions = append(res.Assertions, evaluate(a, actual, ok))
	}
	judged := c.Reliability != nil
	for _, rc := range perRun {
		ar := rc.result(runN)
		if !ar.Passed && judged {
			ar.Message += judgedNote
		}
		res.Assertions = append(res.Assertions, ar)
	}
	sortAssertions(res.Assertions, c.Expect)
	multi.floors(res)
	verdicts.judge(c, res)

	if runN == 0 && len(errs) == 0 {
		res.Findings = append(res.Findings, report.Finding{Level: "error",
			Message: "no recorded runs: the cassettes hold no runs, so nothing could be gated"})
	}
	if c.Runs > 0 && runN > 0 && c.Runs != runN {
		res.Findings = append(res.Findings, report.Finding{Level: "warning",
			Message: fmt.Sprintf("the suite asks for %d runs and %d are recorded: every figure is over the %d recorded runs", c.Runs, runN, runN)})
	}
	for _, pb := range c.Pending {
		f := pendingFinding(pb)
		if ts := pendingTargets[pb.Key]; len(ts) > 0 {
			f.Message += fmt.Sprintf("; %d assertion(s) on %s not evaluated", len(ts), strings.Join(dedupe(ts), ", "))
		}
		res.Findings = append(res.Findings, f)
	}
	res.Verdict = caseVerdict(res, len(c.Pending) > 0, judged)
	return res, errs
}
