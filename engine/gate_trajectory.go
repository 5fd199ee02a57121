package engine

import (
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/internal/yamlpos"
	"github.com/mcptest/mcptest/report"
)

// TrajectoryBlock is a trajectory: block: the calls a run must make, by a
// match mode of gate.Trajectory.
type TrajectoryBlock struct {
	Pos        diag.Pos
	Trajectory gate.Trajectory
}

// Key returns "trajectory".
func (*TrajectoryBlock) Key() string { return "trajectory" }

// argChecks are a step's args: every entry must hold.
type argChecks []argCheck

// argCheck is one entry of a step's args: a path into the call's
// arguments and the matcher its value must pass, as an expect: shorthand.
type argCheck struct {
	key     string
	path    expr.Path
	matcher *expr.Matcher
}

func readTrajectory(b *builder, raw rawBlock) Block {
	t := &TrajectoryBlock{Pos: raw.pos}
	t.Trajectory.Match, _ = raw.m["match"].(string)
	for i, v := range list(raw.m["steps"]) {
		sm, _ := v.(map[string]any)
		tool, _ := sm["tool"].(string)
		step := gate.Step{Tool: tool}
		if args, ok := sm["args"].(map[string]any); ok && len(args) > 0 {
			step.Args = b.argChecks(raw.ptr+"/steps/"+strconv.Itoa(i)+"/args", args)
		}
		t.Trajectory.Steps = append(t.Trajectory.Steps, step)
	}
	return t
}

// argChecks parses the args of a step: each key a target into the
// arguments, each value a matcher or a value to equal, positioned errors
// for either.
func (b *builder) argChecks(ptr string, args map[string]any) argChecks {
	var out argChecks
	for _, k := range sortedKeys(args) {
		kptr := ptr + "/" + yamlpos.EscapePointer(k)
		if b.broken(kptr) {
			continue
		}
		p, err := b.parsePath(k)
		if err != nil {
			b.pathError(kptr, b.doc.KeyAt(kptr), err)
			continue
		}
		m, err := b.parseMatcher(expr.ParseShorthand, args[k])
		if err != nil {
			b.matcherError(kptr, err)
			continue
		}
		out = append(out, argCheck{key: k, path: p, matcher: m})
	}
	return out
}

// MatchArgs checks a call's arguments: every entry holds, checked in key
// order, and the first that does not says why.
func (checks argChecks) MatchArgs(arguments any) (bool, string) {
	for _, c := range checks {
		v, ok := c.path.Lookup(arguments)
		if passed, why := c.matcher.Match(v, ok); !passed {
			return false, "`" + c.key + "`: " + why
		}
	}
	return true, ""
}

// HoldsArgs is MatchArgs without the why (expr.Matcher.Holds).
func (checks argChecks) HoldsArgs(arguments any) bool {
	for _, c := range checks {
		v, ok := c.path.Lookup(arguments)
		if !c.matcher.Holds(v, ok) {
			return false
		}
	}
	return true
}

// toolRefs names the tools of the steps.
func (t *TrajectoryBlock) toolRefs() []toolRef {
	var refs []toolRef
	for _, s := range t.Trajectory.Steps {
		refs = append(refs, toolRef{t.Key(), "step", s.Tool, ""})
	}
	return refs
}

func (t *TrajectoryBlock) newGate(*Case) caseGate {
	return &trajectoryGate{m: gate.NewTrajectory(t.Trajectory)}
}

// trajectoryGate matches each run against the reference (gate.TrajectoryMatch).
type trajectoryGate struct {
	gateDefaults
	m    *gate.TrajectoryMatch
	last gate.TrajectoryRun
}

func (g *trajectoryGate) add(cas *cassette.Cassette, r *cassette.Run) {
	g.addScored(cas, r, g.score(cas, r))
}

func (g *trajectoryGate) score(_ *cassette.Cassette, r *cassette.Run) any { return g.m.Score(r) }

func (g *trajectoryGate) addScored(_ *cassette.Cassette, _ *cassette.Run, s any) {
	g.last = s.(gate.TrajectoryRun)
	g.m.Fold(g.last)
}

// runValue gives trajectory.match_pct of the run: 100 when it matched.
func (g *trajectoryGate) runValue(string) (any, bool) { return boolPercent(g.last.Matched), true }

// runFigures gives the run's match and its first divergence.
func (g *trajectoryGate) runFigures() (map[string]float64, []string) {
	var notes []string
	if !g.last.Matched {
		notes = []string{"trajectory: " + g.last.Divergence}
	}
	return map[string]float64{"trajectory.match_pct": boolPercent(g.last.Matched)}, notes
}

func (g *trajectoryGate) result(res *report.CaseResult) { addGate(res, g.m.Result()) }

// stepShapeHint is the hint of a trajectory step that is not a mapping,
// failing the schema keyword at absLoc: a step written as a bare tool
// name is {tool: name}. "" for anything else.
func stepShapeHint(absLoc string, v any) string {
	s, ok := v.(string)
	if !strings.HasSuffix(absLoc, "/$defs/trajectoryStep/type") || !ok {
		return ""
	}
	return "a step is a mapping: write { tool: " + s + " }"
}

// stepKeyHint is the did-you-mean of an unknown key of a trajectory step
// that diag.Suggest cannot find: arguments, the call's own field, for
// args. "" for anything else.
func stepKeyHint(absLoc, key string) string {
	if strings.HasSuffix(absLoc, "/$defs/trajectoryStep/additionalProperties") && (key == "arguments" || key == "arg" || key == "params") {
		return "did you mean `args`?"
	}
	return ""
}
