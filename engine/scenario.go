package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/engine/world"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/internal/yamlpos"
	"github.com/mcptest/mcptest/report"
)

// Scenario is a scenarios: entry: a seeded hidden world, the rules that
// change it, and the oracles a replayed trajectory must meet.
type Scenario struct {
	Seed  map[string]any
	Rules world.Rules
	// TransitionPos and ForbiddenPos locate each rule, parallel to
	// Rules.Transitions and Rules.Forbidden.
	TransitionPos []diag.Pos
	ForbiddenPos  []diag.Pos

	RefusalMarkers    []string
	EscalationMarkers []string

	// Golden is nil when the scenario declares no golden: block.
	Golden *GoldenPath

	ExpectState    []world.Expected
	ExpectStatePos []diag.Pos

	// Rubric is the position of a rubric: block, zero when there is none.
	Rubric *diag.Pos
}

// GoldenPath is a golden: block.
type GoldenPath struct {
	Calls      []string
	Alternates [][]string
}

// scenarioTargets are the targets a scenario's expect: list may name; a
// state.<dotted> path and indexes into tool_names are also accepted.
var scenarioTargets = []string{
	"turns", "actions", "invalid_actions", "forbidden_transitions", "recovery_attempts",
	"escalations", "refusals", "state_matched",
	"golden.matched", "golden.exact", "golden.alternate", "golden.penalty", "golden.efficiency",
	"tool_names", "state", "cost_micros",
}

// effectOps and guardOps are the operator keys of effect and guard values.
var (
	effectOps = []string{"set", "inc", "dec", "from_arg"}
	guardOps  = []string{"eq", "min", "max"}
)

// scenario builds a scenarios: entry.
func (b *builder) scenario(ptr string, m map[string]any) {
	c := b.newCase(ptr, m, report.KindScenario)
	sc := &Scenario{}
	c.Scenario = sc
	if cas, ok := m["cassette"].(string); ok {
		c.Cassette, c.CassettePos = cas, b.doc.At(ptr+"/cassette")
		files, err := resolveCassettes(b.suite.Dir, cas)
		if err != nil {
			b.errorf(ptr+"/cassette", c.CassettePos, "%v", err)
		}
		c.cassetteFiles = files
	}
	sc.Seed, _ = m["seed"].(map[string]any)
	for i, item := range list(m["transitions"]) {
		tptr := ptr + "/transitions/" + strconv.Itoa(i)
		tm, _ := item.(map[string]any)
		if tm == nil {
			continue
		}
		t := world.Transition{}
		t.Tool, _ = tm["tool"].(string)
		t.When = b.guards(tptr+"/when", tm["when"])
		if eff, ok := tm["effect"].(map[string]any); ok {
			for _, k := range sortedKeys(eff) {
				if e, ok := b.effect(tptr+"/effect/"+yamlpos.EscapePointer(k), k, eff[k]); ok {
					t.Effects = append(t.Effects, e)
				}
			}
		}
		sc.Rules.Transitions = append(sc.Rules.Transitions, t)
		sc.TransitionPos = append(sc.TransitionPos, b.doc.At(tptr))
	}
	for i, item := range list(m["forbidden"]) {
		fptr := ptr + "/forbidden/" + strconv.Itoa(i)
		fm, _ := item.(map[string]any)
		if fm == nil {
			continue
		}
		f := world.Forbidden{}
		f.Tool, _ = fm["tool"].(string)
		f.Reason, _ = fm["reason"].(string)
		f.When = b.guards(fptr+"/when", fm["when"])
		sc.Rules.Forbidden = append(sc.Rules.Forbidden, f)
		sc.ForbiddenPos = append(sc.ForbiddenPos, b.doc.At(fptr))
	}
	if r, ok := m["refusal"].(map[string]any); ok {
		sc.RefusalMarkers = strings_(r["markers"])
	}
	if e, ok := m["escalation"].(map[string]any); ok {
		sc.Rules.Escalation = strings_(e["tools"])
		sc.EscalationMarkers = strings_(e["markers"])
	}
	if g, ok := m["golden"].(map[string]any); ok {
		sc.Golden = &GoldenPath{Calls: strings_(g["calls"])}
		for _, alt := range list(g["alternates"]) {
			sc.Golden.Alternates = append(sc.Golden.Alternates, strings_(alt))
		}
		b.goldenTools(ptr+"/golden", sc)
	}
	if es, ok := m["expect_state"].(map[string]any); ok {
		for _, k := range sortedKeys(es) {
			kptr := ptr + "/expect_state/" + yamlpos.EscapePointer(k)
			p, err := world.ParsePath(k)
			if err != nil {
				b.errorf(kptr, b.doc.KeyAt(kptr), "expect_state: %v", err)
				continue
			}
			sc.ExpectState = append(sc.ExpectState, world.Expected{Path: p, Value: es[k]})
			sc.ExpectStatePos = append(sc.ExpectStatePos, b.doc.KeyAt(kptr))
		}
	}
	if _, ok := m["rubric"]; ok {
		pos := b.doc.KeyAt(ptr + "/rubric")
		sc.Rubric = &pos
	}
	b.caseReliability(ptr, c, m)
	b.scenarioExpect(c, ptr, m)
}

// goldenTools checks that every golden call is a tool the scenario can
// apply: a golden path through an invalid action is a contradiction.
func (b *builder) goldenTools(ptr string, sc *Scenario) {
	known := map[string]bool{}
	var names []string
	for _, t := range sc.Rules.Transitions {
		known[t.Tool] = true
		names = append(names, t.Tool)
	}
	for _, e := range sc.Rules.Escalation {
		known[e] = true
		names = append(names, e)
	}
	check := func(p string, calls []string) {
		for i, name := range calls {
			if known[name] {
				continue
			}
			ip := p + "/" + strconv.Itoa(i)
			e := &diag.Error{Pos: b.doc.At(ip), Pointer: ip, Kind: "suite",
				Message: fmt.Sprintf("golden call `%s` has no transition: replaying it would be an invalid action", name)}
			if s := diag.Suggest(name, names); s != "" {
				e.Hint = "did you mean `" + s + "`?"
			}
			b.errs = append(b.errs, e)
		}
	}
	check(ptr+"/calls", sc.Golden.Calls)
	for i, alt := range sc.Golden.Alternates {
		check(ptr+"/alternates/"+strconv.Itoa(i), alt)
	}
}

// opMap reports whether v is an operator map: a mapping whose keys are all
// operators of ops. A mapping mixing operators with other keys, or whose
// one key is a near miss of an operator, is an error at ptr.
func (b *builder) opMap(ptr string, v any, ops []string, what, literal string) (map[string]any, bool, bool) {
	m, isMap := v.(map[string]any)
	if !isMap || len(m) == 0 {
		return nil, false, true
	}
	var opKeys, other []string
	for _, k := range sortedKeys(m) {
		if contains(ops, k) {
			opKeys = append(opKeys, k)
		} else {
			other = append(other, k)
		}
	}
	switch {
	case len(opKeys) > 0 && len(other) > 0:
		kp := ptr + "/" + yamlpos.EscapePointer(other[0])
		b.errorf(kp, b.doc.KeyAt(kp), "%s mixes the operator `%s` with the key `%s`: an operator stands alone; to use an object literal write {%s: {...}}", what, opKeys[0], other[0], literal)
		return nil, false, false
	case len(opKeys) == 0 && len(m) == 1:
		if s := diag.Suggest(other[0], ops); s != "" {
			kp := ptr + "/" + yamlpos.EscapePointer(other[0])
			b.errs = append(b.errs, &diag.Error{Pos: b.doc.KeyAt(kp), Pointer: kp, Kind: "suite",
				Message: fmt.Sprintf("unknown %s operator `%s`: expected one of %s; to use an object literal write {%s: {...}}", what, other[0], strings.Join(ops, ", "), literal),
				Hint:    "did you mean `" + s + "`?"})
			return nil, false, false
		}
	}
	return m, len(opKeys) > 0, true
}

// effect reads one entry of an effect: map.
func (b *builder) effect(ptr, key string, v any) (world.Effect, bool) {
	p, err := world.ParsePath(key)
	if err != nil {
		b.errorf(ptr, b.doc.KeyAt(ptr), "effect: %v", err)
		return world.Effect{}, false
	}
	e := world.Effect{Path: p, Op: world.OpSet, Value: v}
	m, isOp, ok := b.opMap(ptr, v, effectOps, "effect", "set")
	if !ok {
		return e, false
	}
	if !isOp {
		if n, bad := nonExact(v); bad {
			b.errorf(ptr, b.doc.At(ptr), "effect on `%s` sets the number %s, beyond ±2^53 where numbers stop being exact", key, expr.FormatNumber(n))
			return e, false
		}
		return e, true
	}
	if len(m) != 1 {
		ks := sortedKeys(m)
		kp := ptr + "/" + yamlpos.EscapePointer(ks[1])
		b.errorf(kp, b.doc.KeyAt(kp), "effect on `%s` has two operators, `%s` and `%s`: use one per path", key, ks[0], ks[1])
		return e, false
	}
	for op, arg := range m {
		aptr := ptr + "/" + yamlpos.EscapePointer(op)
		e.Op = world.Op(op)
		switch e.Op {
		case world.OpSet:
			e.Value = arg
			if n, bad := nonExact(arg); bad {
				b.errorf(aptr, b.doc.At(aptr), "effect on `%s` sets the number %s, beyond ±2^53 where numbers stop being exact", key, expr.FormatNumber(n))
				return e, false
			}
		case world.OpInc, world.OpDec:
			n, isNum := arg.(float64)
			if !isNum || math.IsInf(n, 0) || math.IsNaN(n) || math.Abs(n) > world.MaxExact {
				b.errorf(aptr, b.doc.At(aptr), "`%s:` on `%s` takes a finite number within ±2^53, got %s", op, key, world.Describe(arg))
				return e, false
			}
			e.N, e.Value = n, nil
		case world.OpFromArg:
			s, _ := arg.(string)
			ap, err := world.ParsePath(s)
			if err != nil {
				b.errorf(aptr, b.doc.At(aptr), "`from_arg:` on `%s` takes the dotted path of a call argument, got %s", key, world.Describe(arg))
				return e, false
			}
			e.Arg, e.Value = ap, nil
		}
	}
	return e, true
}

// nonExact finds a number beyond ±2^53 in a literal.
func nonExact(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) > world.MaxExact
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if n, bad := nonExact(x[k]); bad {
				return n, true
			}
		}
	case []any:
		for _, e := range x {
			if n, bad := nonExact(e); bad {
				return n, true
			}
		}
	}
	return 0, false
}

// guards reads a when: map. An entry may hold several operators, {min: 1,
// max: 5}, which must all hold.
func (b *builder) guards(ptr string, v any) []world.Guard {
	m, _ := v.(map[string]any)
	var out []world.Guard
	for _, k := range sortedKeys(m) {
		kptr := ptr + "/" + yamlpos.EscapePointer(k)
		p, err := world.ParsePath(k)
		if err != nil {
			b.errorf(kptr, b.doc.KeyAt(kptr), "when: %v", err)
			continue
		}
		ops, isOp, ok := b.opMap(kptr, m[k], guardOps, "guard", "eq")
		if !ok {
			continue
		}
		if !isOp {
			out = append(out, world.Guard{Path: p, Cmp: world.CmpEq, Value: m[k]})
			continue
		}
		for _, op := range sortedKeys(ops) {
			g := world.Guard{Path: p, Cmp: world.Cmp(op)}
			optr := kptr + "/" + yamlpos.EscapePointer(op)
			if g.Cmp == world.CmpEq {
				g.Value = ops[op]
			} else {
				n, isNum := ops[op].(float64)
				if !isNum || math.IsNaN(n) {
					b.errorf(optr, b.doc.At(optr), "`%s:` in the guard on `%s` takes a number, got %s", op, k, world.Describe(ops[op]))
					continue
				}
				g.N = n
			}
			out = append(out, g)
		}
	}
	return out
}

// scenarioExpect reads a scenario's expect: list and checks each target
// against the scenario report's targets.
func (b *builder) scenarioExpect(c *Case, ptr string, m map[string]any) {
	lptr := ptr + "/expect"
	items := list(m["expect"])
	b.expect(c, expectList{ptr: lptr, items: items, grammarOnly: true})
	kept := c.Expect[:0]
	for _, a := range c.Expect {
		item, _ := items[a.Index].(map[string]any)
		tptr, pos := lptr+"/"+strconv.Itoa(a.Index)+"/target", diag.Pos{}
		if _, long := item["target"]; long {
			pos = b.doc.At(tptr)
		} else {
			for k := range item {
				tptr = lptr + "/" + strconv.Itoa(a.Index) + "/" + yamlpos.EscapePointer(k)
			}
			pos = b.doc.KeyAt(tptr)
		}
		if msg, hint := scenarioTargetProblem(a.Target.String(), c.Scenario); msg != "" {
			b.errs = append(b.errs, &diag.Error{Pos: pos, Pointer: tptr, Kind: "expect", Message: msg, Hint: hint})
			continue
		}
		kept = append(kept, a)
	}
	c.Expect = kept
}

// scenarioTargetProblem says what is wrong with a scenario target, "" when
// it is one the report provides.
func scenarioTargetProblem(name string, sc *Scenario) (msg, hint string) {
	root, rest, _ := strings.Cut(name, ".")
	base, _, indexed := strings.Cut(root, "[")
	if _, ok := reliabilityTarget(name); ok {
		return "", ""
	}
	if base == "reliability" {
		msg = fmt.Sprintf("unknown reliability target `%s`: expected one of reliability.pass_rate, reliability.pass_hat_<k>, reliability.pass_at_<k> (k = 1, 2, ...), reliability.certified_lower, reliability.class", name)
		if s := diag.Suggest(name, reliabilityTargetNames); s != "" {
			hint = "did you mean `" + s + "`?"
		}
		return msg, hint
	}
	switch {
	case base == "state":
		return "", ""
	case base == "tool_names" && (rest == "" || indexed):
		if rest == "" {
			return "", ""
		}
	case base == "golden" && !indexed && contains(scenarioTargets, name):
		if sc.Golden == nil {
			return fmt.Sprintf("target `%s` comes from a `golden:` block, and this scenario has none", name), ""
		}
		return "", ""
	case !indexed && rest == "" && contains(scenarioTargets, name) && base != "golden":
		return "", ""
	}
	msg = fmt.Sprintf("unknown scenario target `%s`: expected one of %s, or `state.<dotted path>`", name, strings.Join(scenarioTargets, ", "))
	if s := diag.Suggest(name, scenarioTargets); s != "" {
		hint = "did you mean `" + s + "`?"
	}
	return msg, hint
}

// replay is one recorded run replayed against a scenario's world.
type replay struct {
	world    *world.World
	names    []string
	turns    int
	actions  int
	invalid  int
	forbid   int
	recovery int
	escal    int
	refusals int
	golden   world.Golden
	mismatch []world.Mismatch
	cost     *int64
	// findings name each invalid action and forbidden call.
	findings []report.Finding
	// invalidAt and forbiddenAt locate each invalid action and forbidden
	// call, for the scenario object.
	invalidAt, forbiddenAt []report.WorldEvent
}

// replayRun replays r against a fresh world seeded from sc.
func replayRun(sc *Scenario, r *cassette.Run) *replay {
	rp := &replay{world: world.New(sc.Seed, &sc.Rules), cost: r.CostMicros}
	prevErr := false
	for ti, t := range r.Turns {
		for ci, call := range t.Calls {
			rp.actions++
			rp.names = append(rp.names, call.Tool)
			if prevErr {
				rp.recovery++
			}
			prevErr = call.IsError
			if contains(sc.Rules.Escalation, call.Tool) || contains(sc.Rules.Escalation, call.ID()) {
				rp.escal++
			}
			res := rp.world.Call(world.Step{Tool: call.Tool, ID: call.ID(), Args: call.Arguments.Value(), IsError: call.IsError})
			where := fmt.Sprintf("turn %d, call %d `%s`", ti+1, ci+1, call.ID())
			ev := report.WorldEvent{Turn: ti + 1, Call: ci + 1, Tool: call.ID(), Reason: res.Reason}
			switch res.Outcome {
			case world.Invalid:
				rp.invalid++
				f := report.Finding{Level: "error", Gate: "scenario", Message: where + ": invalid action: " + res.Reason}
				if res.Rule >= 0 {
					pos := sc.TransitionPos[res.Rule]
					f.Position, ev.Position = &pos, &pos
				}
				rp.findings = append(rp.findings, f)
				rp.invalidAt = append(rp.invalidAt, ev)
			case world.ForbiddenCall:
				rp.forbid++
				pos := sc.ForbiddenPos[res.Rule]
				ev.Position = &pos
				rp.findings = append(rp.findings, report.Finding{Level: "error", Gate: "scenario", Position: &pos,
					Message: where + ": forbidden transition: " + res.Reason})
				rp.forbiddenAt = append(rp.forbiddenAt, ev)
			}
		}
		if t.FinalResponse != "" {
			rp.turns++
			if world.Refers(t.FinalResponse, sc.RefusalMarkers) {
				rp.refusals++
			}
			if world.Refers(t.FinalResponse, sc.EscalationMarkers) {
				rp.escal++
			}
		}
	}
	if sc.Golden != nil {
		rp.golden = world.Score(rp.names, sc.Golden.Calls, sc.Golden.Alternates)
	}
	rp.mismatch = rp.world.Check(sc.ExpectState)
	return rp
}

// doc is the document a scenario's expect: list reads for one run.
func (rp *replay) doc(sc *Scenario) map[string]any {
	names := make([]any, len(rp.names))
	for i, n := range rp.names {
		names[i] = n
	}
	d := map[string]any{
		"turns": float64(rp.turns), "actions": float64(rp.actions), "invalid_actions": float64(rp.invalid),
		"forbidden_transitions": float64(rp.forbid), "recovery_attempts": float64(rp.recovery),
		"escalations": float64(rp.escal), "refusals": float64(rp.refusals),
		"state_matched": len(rp.mismatch) == 0, "tool_names": names, "state": rp.world.State(),
	}
	if sc.Golden != nil {
		g := rp.golden
		d["golden"] = map[string]any{"matched": g.Matched, "exact": g.Exact, "alternate": g.Alternate,
			"penalty": float64(g.Penalty), "efficiency": g.Efficiency}
	}
	if rp.cost != nil {
		d["cost_micros"] = float64(*rp.cost)
	}
	return d
}

// runScenario replays a scenario's cassettes, one file at a time: every
// recorded run is replayed on a fresh clone of the seed.
func runScenario(s *Suite, p casePlan, res *report.CaseResult, progress func()) (*report.CaseResult, diag.List) {
	c, sc := p.c, p.c.Scenario
	var checks []*runCheck
	var perCase []*Assertion
	for _, a := range c.Expect {
		if _, ok := reliabilityTarget(a.Target.String()); ok {
			perCase = append(perCase, a)
			continue
		}
		checks = append(checks, newRunCheck(a))
	}
	var reps []*replay
	var verdicts runVerdicts
	var failedChecks []string
	detail := &report.ScenarioDetail{Runs: []report.ScenarioRun{}}
	runN := 0
	errs := eachCassette(s, p, res, progress, cassetteUse{run: func(cas *cassette.Cassette, r *cassette.Run, _ *runPrep) {
		runN++
		rp := replayRun(sc, r)
		doc := rp.doc(sc)
		failedChecks = rp.oracleFailures(failedChecks[:0])
		for _, rc := range checks {
			if !rc.check(runN, doc) {
				failedChecks = append(failedChecks, rc.label)
			}
		}
		verdicts.add(runN, failedChecks)
		failed := len(failedChecks) > 0
		if want, limit := evidenceRoom(res, failed); want {
			if ev, ok := runEvidenceWithin(runN, cas.Model, r, evidenceMarker{}, nil, limit); ok {
				markScenarioCalls(&ev, rp.invalidAt, rp.forbiddenAt)
				addEvidence(res, ev, failed)
			} else {
				dropEvidence(res, failed)
			}
		}
		addScenarioRun(detail, runN, rp)
		// Only the numbers and findings are kept; the world of a run is
		// dropped unless it is the only one.
		if runN > 1 {
			rp.world = nil
			if len(reps) == 1 {
				reps[0].world = nil
			}
		}
		reps = append(reps, rp)
	}})
	res.Runs = runN
	res.Scenario = detail
	judged := c.Reliability != nil
	for _, rc := range checks {
		ar := rc.result(runN)
		if !ar.Passed && judged {
			ar.Message += judgedNote
		}
		res.Assertions = append(res.Assertions, ar)
	}
	scenarioReport(sc, res, reps)
	verdicts.reliability(c, res)
	for _, a := range perCase {
		actual, ok := caseValue(res, a.Target.String())
		res.Assertions = append(res.Assertions, evaluate(a, actual, ok))
	}
	sortAssertions(res.Assertions, c.Expect)
	verdicts.judge(c, res)
	if runN == 0 && len(errs) == 0 {
		res.Findings = append(res.Findings, report.Finding{Level: "error",
			Message: "no recorded runs: the cassettes hold no runs, so there is no trajectory to replay"})
	}
	res.Verdict = caseVerdict(res, judged)
	leanEvidence(res)
	return res, errs
}

// oracleFailures appends the scenario oracles the run failed: its invalid
// actions, forbidden transitions and expect_state mismatches.
func (rp *replay) oracleFailures(failed []string) []string {
	if rp.invalid > 0 {
		failed = append(failed, fmt.Sprintf("%d invalid action(s)", rp.invalid))
	}
	if rp.forbid > 0 {
		failed = append(failed, fmt.Sprintf("%d forbidden transition(s)", rp.forbid))
	}
	if len(rp.mismatch) > 0 {
		failed = append(failed, fmt.Sprintf("expect_state: %d path(s) differ", len(rp.mismatch)))
	}
	return failed
}

// scenarioReport fills the targets, counts and findings of a scenario case
// from its replayed runs. An invalid action, a forbidden transition and a
// state mismatch are error findings of the scenario and expect_state gates,
// which fail the case unless a reliability: block judges it by its runs
// (see caseVerdict).
//
// Over several runs the count targets are totals, the boolean targets hold
// only when they hold in every run, golden.efficiency is the lowest and
// golden.penalty the highest of the runs.
func scenarioReport(sc *Scenario, res *report.CaseResult, reps []*replay) {
	var t scenarioTotals
	t.start(len(reps))
	for i, rp := range reps {
		run := 0
		if len(reps) > 1 {
			run = i + 1
		}
		t.add(sc, rp)
		scenarioRunFindings(sc, res, rp, run)
	}
	for k, v := range t.counts {
		res.Counts[k] = v
		res.Targets[k] = float64(v)
	}
	if len(reps) == 0 {
		return
	}
	t.targets(sc, res)
	if len(reps) == 1 && reps[0].world != nil {
		finalStateTargets(sc, res, reps[0].world)
	}
	if sc.Rubric != nil {
		pos := *sc.Rubric
		res.Findings = append(res.Findings, report.Finding{Level: "warning", Gate: "rubric", Position: &pos,
			Message: "`rubric:` is deferred: it is judged only with a live provider, and this is an offline replay; the deterministic oracles decided the verdict"})
	}
}

// scenarioTotals pools the figures of a scenario's runs.
type scenarioTotals struct {
	counts     map[string]int64
	allMatched bool
	goldenAll  map[string]bool
	efficiency float64
	penalty    int
	cost       int64
	costKnown  bool
}

func (t *scenarioTotals) start(runs int) {
	t.counts = map[string]int64{}
	t.allMatched, t.goldenAll = true, map[string]bool{"matched": true, "exact": true, "alternate": true}
	t.efficiency, t.penalty = math.Inf(1), 0
	t.costKnown = runs > 0
}

// add pools one run's counts, cost, state match and golden scores.
func (t *scenarioTotals) add(sc *Scenario, rp *replay) {
	t.counts["turns"] += int64(rp.turns)
	t.counts["actions"] += int64(rp.actions)
	t.counts["invalid_actions"] += int64(rp.invalid)
	t.counts["forbidden_transitions"] += int64(rp.forbid)
	t.counts["recovery_attempts"] += int64(rp.recovery)
	t.counts["escalations"] += int64(rp.escal)
	t.counts["refusals"] += int64(rp.refusals)
	if rp.cost != nil {
		t.cost += *rp.cost
	} else {
		t.costKnown = false
	}
	if len(rp.mismatch) > 0 {
		t.allMatched = false
	}
	if sc.Golden != nil {
		g := rp.golden
		t.goldenAll["matched"] = t.goldenAll["matched"] && g.Matched
		t.goldenAll["exact"] = t.goldenAll["exact"] && g.Exact
		t.goldenAll["alternate"] = t.goldenAll["alternate"] && g.Alternate
		t.efficiency = math.Min(t.efficiency, g.Efficiency)
		t.penalty = max(t.penalty, g.Penalty)
	}
}

// targets adds the state, golden and cost targets of at least one run.
func (t *scenarioTotals) targets(sc *Scenario, res *report.CaseResult) {
	res.Targets["state_matched"] = boolTarget(t.allMatched)
	if sc.Golden != nil {
		for k, v := range t.goldenAll {
			res.Targets["golden."+k] = boolTarget(v)
		}
		res.Targets["golden.efficiency"] = t.efficiency
		res.Targets["golden.penalty"] = float64(t.penalty)
	}
	if t.costKnown {
		res.Targets["cost_micros"] = float64(t.cost)
		res.Counts["cost_micros"] = t.cost
	}
}

// scenarioRunFindings adds the findings of one run (numbered run, 0 for
// the only one): its invalid actions and forbidden calls, then each
// expect_state mismatch and what the replay changed in the world.
func scenarioRunFindings(sc *Scenario, res *report.CaseResult, rp *replay, run int) {
	for _, f := range rp.findings {
		f.Run = run
		f.Message = redact.String(f.Message)
		res.Findings = append(res.Findings, f)
	}
	if len(rp.mismatch) == 0 {
		return
	}
	for _, mm := range rp.mismatch {
		pos := expectStatePos(sc, mm.Path)
		res.Findings = append(res.Findings, report.Finding{Level: "error", Gate: "expect_state", Run: run, Position: pos,
			Message: redact.String("expect_state " + mm.String())})
	}
	if rp.world != nil {
		res.Findings = append(res.Findings, report.Finding{Level: "info", Gate: "expect_state", Run: run,
			Message: redact.String(changesText(rp.world.Changes()))})
	}
}

// finalStateTargets adds the final value of every expect_state path of a
// single run: a number or a boolean as a target, a string as a label.
func finalStateTargets(sc *Scenario, res *report.CaseResult, w *world.World) {
	st := w.State()
	for _, e := range sc.ExpectState {
		v, ok := world.Get(st, e.Path)
		if n, isNum := expr.Number(v); ok && isNum {
			res.Targets["state."+e.Path.String()] = n
		} else if bv, isBool := v.(bool); ok && isBool {
			res.Targets["state."+e.Path.String()] = boolTarget(bv)
		} else if sv, isString := v.(string); ok && isString {
			if res.Labels == nil {
				res.Labels = map[string]string{}
			}
			res.Labels["state."+e.Path.String()] = redact.String(sv)
		}
	}
}

func expectStatePos(sc *Scenario, path string) *diag.Pos {
	for i, e := range sc.ExpectState {
		if e.Path.String() == path {
			pos := sc.ExpectStatePos[i]
			return &pos
		}
	}
	return nil
}

// changesText summarises what the replay changed in the world, at most 20
// paths.
func changesText(cs []world.Change) string {
	if len(cs) == 0 {
		return "the replay left the world as seeded"
	}
	parts := make([]string, 0, len(cs))
	for i, c := range cs {
		if i == 20 {
			parts = append(parts, fmt.Sprintf("and %d more", len(cs)-20))
			break
		}
		parts = append(parts, c.String())
	}
	return "the replay changed the world: " + strings.Join(parts, "; ")
}

func boolTarget(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// add records a replayed run, while its world is still there.
func addScenarioRun(d *report.ScenarioDetail, run int, rp *replay) {
	if len(d.Runs) == report.MaxScenarioRuns {
		d.OmittedRuns++
		return
	}
	sr := report.ScenarioRun{Run: run, StateMatched: len(rp.mismatch) == 0, Diff: []report.StateChange{},
		ToolNames: orEmptyStrings(rp.names), InvalidActions: orEmptyEvents(rp.invalidAt), ForbiddenTransitions: orEmptyEvents(rp.forbiddenAt)}
	sr.FinalState, _ = redact.Value(rp.world.State()).(map[string]any)
	for _, c := range rp.world.Changes() {
		sc := report.StateChange{Path: c.Path, Op: "replace", Before: redact.Value(c.Before), After: redact.Value(c.After)}
		switch {
		case !c.HadBefore:
			sc.Op, sc.Before = "add", nil
		case !c.HasAfter:
			sc.Op, sc.After = "remove", nil
		}
		sr.Diff = append(sr.Diff, sc)
	}
	for i := range sr.InvalidActions {
		sr.InvalidActions[i].Reason = redact.String(sr.InvalidActions[i].Reason)
	}
	for i := range sr.ForbiddenTransitions {
		sr.ForbiddenTransitions[i].Reason = redact.String(sr.ForbiddenTransitions[i].Reason)
	}
	d.Runs = append(d.Runs, sr)
}

func orEmptyEvents(evs []report.WorldEvent) []report.WorldEvent {
	if evs == nil {
		return []report.WorldEvent{}
	}
	return evs
}
