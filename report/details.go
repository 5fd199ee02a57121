package report

import (
	"github.com/mcptest/mcptest/internal/diag"
)

// ToolSelectionDetail is the envelope's per-run detail of a tool_selection:
// floor.
type ToolSelectionDetail struct {
	ExpectedTool     string  `json:"expected_tool"`
	MinSelectionRate float64 `json:"min_selection_rate"`
	MaxTotalTokens   *int64  `json:"max_total_tokens,omitempty"`
	// Pairs aggregates each (agent, model) pair: one entry, or one per
	// model of a matrix, in order of first appearance.
	Pairs []SelectionPair `json:"pairs"`
	// Runs are the rows of the first MaxSelectionRows runs; OmittedRuns
	// counts the runs past them, which Pairs and the floors count.
	Runs        []SelectionRow `json:"runs"`
	OmittedRuns int            `json:"omitted_runs,omitempty"`
}

// MaxSelectionRows bounds the runs a tool_selection: detail lists one by
// one: a cassette of thousands of runs keeps the rows of the first 100.
const MaxSelectionRows = 100

// SelectionPair is the aggregation of one (agent, model) pair's runs.
type SelectionPair struct {
	Name          string `json:"name"`
	Model         string `json:"model,omitempty"`
	Runs          int64  `json:"runs"`
	Selected      int64  `json:"selected"`
	PassKRuns     int64  `json:"pass_k_runs"`
	SelectionRate int64  `json:"selection_rate"`
	PassK         int64  `json:"pass_k"`
	// TokensMedian and TokensMax are absent when no run recorded tokens.
	TokensMedian *int64 `json:"tokens_median,omitempty"`
	TokensMax    *int64 `json:"tokens_max,omitempty"`
	OverBudget   int64  `json:"over_budget"`
	Passed       bool   `json:"passed"`
}

// SelectionRow is one run of a tool_selection: floor, named as reports show
// it: "weather selection #3", or "weather selection [gpt-5] #3" across a
// model matrix.
type SelectionRow struct {
	Name string `json:"name"`
	PassKRun
}

// DistractorsDetail is the envelope's description of a distractors: block:
// what was injected. complexity: is descriptive metadata.
type DistractorsDetail struct {
	Source     string   `json:"source"`
	Count      int      `json:"count"`
	Complexity string   `json:"complexity,omitempty"`
	Correct    []string `json:"correct"`
	Injected   []string `json:"injected"`
}

// DiscoveryDetail is the envelope's record of a discovery: block.
type DiscoveryDetail struct {
	NameFree bool `json:"name_free"`
}

// MaxScenarioRuns bounds the runs whose world the scenario object keeps: a
// cassette of thousands of runs keeps the numbers of every run and the
// final state and diff of the first 100.
const MaxScenarioRuns = 100

// ScenarioDetail is the envelope's structured record of a scenario case:
// what each recorded run, replayed on a world of its own, left behind.
type ScenarioDetail struct {
	Runs []ScenarioRun `json:"runs"`
	// OmittedRuns counts the runs past the first 100, whose world is not
	// kept (their numbers are in the targets and the run verdicts).
	OmittedRuns int `json:"omitted_runs,omitempty"`
}

// ScenarioRun is one replayed run: the world it left (redacted), the
// changes from the seed in path order, the calls in order, and the calls
// the world refused, each located by turn and call (1-based).
type ScenarioRun struct {
	Run                  int            `json:"run"`
	StateMatched         bool           `json:"state_matched"`
	FinalState           map[string]any `json:"final_state"`
	Diff                 []StateChange  `json:"diff"`
	ToolNames            []string       `json:"tool_names"`
	InvalidActions       []WorldEvent   `json:"invalid_actions"`
	ForbiddenTransitions []WorldEvent   `json:"forbidden_transitions"`
}

// StateChange is one path whose value differs between the seed and the
// final state: op is add (absent in the seed), remove (absent at the end)
// or replace. Objects are compared key by key; any other value, a list
// included, is compared whole.
type StateChange struct {
	Path   string `json:"path"`
	Op     string `json:"op"`
	Before any    `json:"before,omitempty"`
	After  any    `json:"after,omitempty"`
}

// WorldEvent is a call the world refused: an invalid action or a
// forbidden transition, with the rule it is about when there is one.
type WorldEvent struct {
	Turn     int       `json:"turn"`
	Call     int       `json:"call"`
	Tool     string    `json:"tool"`
	Reason   string    `json:"reason"`
	Position *diag.Pos `json:"position,omitempty"`
}

// Kind names what a case is; it is the envelope's case kind.
type Kind string

// The kinds of case a suite declares.
const (
	KindAgent       Kind = "agent"
	KindScenario    Kind = "scenario"
	KindToolQuality Kind = "tool_quality"
	KindTool        Kind = "tool"
	KindCompliance  Kind = "compliance"
	KindRedteam     Kind = "redteam"
	KindEval        Kind = "eval"
)

// PassKRun is one run's row of the pass^k floor (tool_selection:).
type PassKRun struct {
	// Run is the run's 1-based number within its model group.
	Run   int    `json:"run"`
	Model string `json:"model,omitempty"`
	// Selected is true when any call named the expected tool.
	Selected bool `json:"selected"`
	// Tokens is conversation.tokens.total; nil when not recorded.
	Tokens *int64 `json:"tokens,omitempty"`
	// WithinBudget is true when there is no budget, or the run's recorded
	// tokens are at most the budget.
	WithinBudget bool `json:"within_budget"`
	// PassK is Selected and WithinBudget.
	PassK bool `json:"pass_k"`
	// Called names the tools the run called, first call first, each once,
	// at most 50 of them.
	Called []string `json:"called"`
}
