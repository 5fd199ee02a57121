package engine

import (
	"slices"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// gateRow is one row of the gate registry: everything the loader, the
// runner and the docs know about one gate block of an agent test. The
// loader reads a block through its row, the runner builds its gate from
// the block, and TestGateRegistry checks every row against the suite
// schema, the golden envelopes and the docs.
type gateRow struct {
	// key is the block's key under an agent test: equal_function_sets.
	key string
	// schema names the block's fragment of the suite schema: the
	// agentTest property key refers to #/$defs/<schema>.
	schema string
	// targets are the dotted targets the gate provides, in report order.
	targets []string
	// runTargets are the targets that also have a value on one run alone,
	// which a run's verdict is checked against. A bound over runs, a
	// coverage over their union or a catalog figure has none.
	runTargets []string
	// def is the assertion the block applies when its expect: list is
	// omitted or empty; nil for none.
	def *defaultGate
	// read decodes the block, already checked against the schema fragment,
	// into its Block, reporting what the schema cannot say through b.
	read func(b *builder, raw rawBlock) Block
}

// defaultGate is a block's default assertion: `target op value`.
type defaultGate struct {
	target string
	op     string
	value  float64
}

// rawBlock is a gate block as the schema-checked suite holds it.
type rawBlock struct {
	// ptr is the block's RFC 6901 pointer in the suite document.
	ptr string
	// pos is the position of the block's key.
	pos diag.Pos
	// m is the block's mapping; nil when the schema refused it.
	m map[string]any
}

// gateRows is the gate registry: one row per gate block, in the order
// blocks are read, computed and reported (their assertions, results,
// findings and the tools they name).
var gateRows = []gateRow{
	{key: "equal_function_sets", schema: "equalFunctionSets",
		targets:    []string{"tool_selection.f1", "tool_selection.precision", "tool_selection.recall"},
		runTargets: []string{"tool_selection.f1", "tool_selection.precision", "tool_selection.recall"},
		def:        &defaultGate{"tool_selection.f1", ">=", 50}, read: readSelection},
	{key: "tool_edges", schema: "toolEdges",
		targets:    []string{"edges.allowed_pct", "edges.restricted_attempts", "edges.delegation_pct", "edges.gate_passed"},
		runTargets: []string{"edges.restricted_attempts", "edges.gate_passed"},
		def:        &defaultGate{"edges.restricted_attempts", "<=", 0}, read: readEdges},
	{key: "tool_selection", schema: "toolSelection",
		targets:    []string{"tool_selection.selection_rate", "tool_selection.pass_k", "tool_selection.tokens_median", "tool_selection.tokens_max"},
		runTargets: []string{"tool_selection.selection_rate", "tool_selection.pass_k", "tool_selection.tokens_median", "tool_selection.tokens_max"},
		read:       readToolSelection},
	{key: "distractors", schema: "distractors",
		targets:    []string{"distractors.accuracy", "distractors.chose_distractor", "distractors.certified_lower"},
		runTargets: []string{"distractors.accuracy", "distractors.chose_distractor"},
		def:        &defaultGate{"distractors.accuracy", ">=", 50}, read: readDistractors},
	{key: "discovery", schema: "discovery", read: readDiscovery},
	{key: "orchestration", schema: "orchestration",
		targets:    []string{"orchestration.discovery", "orchestration.parameterization", "orchestration.syntax", "orchestration.error_recovery", "orchestration.efficiency"},
		runTargets: []string{"orchestration.discovery", "orchestration.parameterization", "orchestration.syntax", "orchestration.error_recovery", "orchestration.efficiency"},
		read:       readOrchestration},
	{key: "token_efficiency", schema: "tokenEfficiency",
		targets:    []string{"token_efficiency.f1", "token_efficiency.tool_surface_tokens", "token_efficiency.correct_selections", "token_efficiency.cost", "token_efficiency.tokens_per_correct", "token_efficiency.cost_per_correct", "token_efficiency.grade"},
		runTargets: []string{"token_efficiency.f1", "token_efficiency.correct_selections", "token_efficiency.grade"},
		def:        &defaultGate{"token_efficiency.f1", ">=", 50}, read: readTokenEfficiency},
	// issue 29: trajectories and run budgets.
	{key: "trajectory", schema: "trajectory",
		targets:    []string{"trajectory.match_pct"},
		runTargets: []string{"trajectory.match_pct"},
		def:        &defaultGate{"trajectory.match_pct", ">=", 100}, read: readTrajectory},
	{key: "budget", schema: "budget",
		targets:    []string{"latency.run_ms", "latency.run_ms_p50", "latency.run_ms_p95", "steps.calls", "steps.turns"},
		runTargets: []string{"latency.run_ms", "steps.calls", "steps.turns"},
		read:       readBudgetBlock},
	// arguments: every call's arguments against its tool's inputSchema.
	{key: "arguments", schema: "arguments",
		targets:    []string{"arguments.valid_pct", "arguments.invalid", "arguments.unchecked"},
		runTargets: []string{"arguments.invalid"},
		def:        &defaultGate{"arguments.invalid", "<=", 0}, read: readArguments},
}

// rowOf returns the registry row of a block key.
func rowOf(key string) (gateRow, bool) {
	for _, r := range gateRows {
		if r.key == key {
			return r, true
		}
	}
	return gateRow{}, false
}

// hasRunForm reports whether the row's target has a value on one run.
func (r gateRow) hasRunForm(target string) bool {
	return slices.Contains(r.runTargets, target)
}

// Block is one gate block of an agent test as the suite declared it and
// its registry row read it: *SelectionBlock for equal_function_sets:,
// *EdgesBlock for tool_edges:, and so on.
type Block interface {
	// Key is the block's key in the suite.
	Key() string
	// newGate starts the gate that computes the block over the runs of
	// case c, which holds the block (and the sibling blocks a gate may
	// read: orchestration: reads the classes of equal_function_sets:).
	newGate(c *Case) caseGate
}

// caseGate computes one gate block over the recorded runs of one case. The
// runner feeds it every cassette and run in order, one at a time, then asks
// for its result: memory does not grow with the number of runs.
type caseGate interface {
	// addCassette sees a cassette before its runs: its catalog, its
	// prompt and its model.
	addCassette(cas *cassette.Cassette)
	// add feeds one recorded run of cas and keeps the run's own figures.
	add(cas *cassette.Cassette, r *cassette.Run)
	// runValue returns the value of one of the row's runTargets on the
	// last run added; ok is false when that run has none (no tokens
	// recorded).
	runValue(target string) (v any, ok bool)
	// runFailed appends to failed the label of every check of the gate's
	// own that the last run added fails, beyond the assertions on its
	// targets: the pass^k row of tool_selection:.
	runFailed(failed []string) []string
	// result adds the gate's targets, counts, findings and detail to res.
	result(res *report.CaseResult)
	// floors adds the floors the gate decides from the evaluated
	// assertions of res: the certified floor of distractors:.
	floors(res *report.CaseResult)
}

// runScorer is a caseGate whose work on a run splits in two: score reads
// the run and what the block declared, never what the gate has folded,
// and is safe for several runs at once, so the worker that decoded a run
// scores it (agentRun.prep); addScored folds that score in run order. add
// is addScored of score, so a run folds the same whichever goroutine
// scored it.
type runScorer interface {
	score(cas *cassette.Cassette, r *cassette.Run) any
	addScored(cas *cassette.Cassette, r *cassette.Run, s any)
}

// gateDefaults gives a gate the methods it has nothing to do in: embed it
// and write only add, runValue and result.
type gateDefaults struct{}

func (gateDefaults) addCassette(*cassette.Cassette)        {}
func (gateDefaults) runFailed(failed []string) []string    { return failed }
func (gateDefaults) floors(*report.CaseResult)             {}
func (gateDefaults) runValue(string) (v any, ok bool)      { return nil, false }
func (gateDefaults) add(*cassette.Cassette, *cassette.Run) {}

// blockOf returns the block of type T of c, if it declares one.
func blockOf[T Block](c *Case) (T, bool) {
	for _, b := range c.Blocks {
		if t, ok := b.(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}

// Block returns the gate block of c under key (equal_function_sets,
// distractors, ...), nil when the test declares none.
func (c *Case) Block(key string) Block {
	for _, b := range c.Blocks {
		if b.Key() == key {
			return b
		}
	}
	return nil
}
