package engine

import "strings"

// gateBlock is a per-test gate block: the targets it provides and whether
// this version computes it.
type gateBlock struct {
	key         string
	implemented bool
	targets     []string
}

// gateBlocks lists every gate block of an agent test in the order blocks
// are reported.
var gateBlocks = []gateBlock{
	{"equal_function_sets", true, []string{"tool_selection.f1", "tool_selection.precision", "tool_selection.recall"}},
	{"tool_edges", true, []string{"edges.allowed_pct", "edges.restricted_attempts", "edges.delegation_pct", "edges.gate_passed"}},
	{"tool_selection", true, []string{"tool_selection.selection_rate", "tool_selection.pass_k", "tool_selection.tokens_median", "tool_selection.tokens_max"}},
	{"distractors", true, []string{"distractors.accuracy", "distractors.chose_distractor", "distractors.certified_lower"}},
	{"discovery", true, nil},
	{"orchestration", true, []string{"orchestration.discovery", "orchestration.parameterization", "orchestration.syntax", "orchestration.error_recovery", "orchestration.efficiency"}},
	{"token_efficiency", true, []string{"token_efficiency.f1", "token_efficiency.tool_surface_tokens", "token_efficiency.correct_selections", "token_efficiency.cost", "token_efficiency.tokens_per_correct", "token_efficiency.cost_per_correct", "token_efficiency.grade"}},
}

// defaultGates is the assertion a block applies when its expect: list is
// omitted or empty.
var defaultGates = map[string]struct {
	target string
	op     string
	value  float64
}{
	"equal_function_sets": {"tool_selection.f1", ">=", 50},
	"tool_edges":          {"edges.restricted_attempts", "<=", 0},
	"distractors":         {"distractors.accuracy", ">=", 50},
	"token_efficiency":    {"token_efficiency.f1", ">=", 50},
}

// runRoots are the fields of one recorded run that a test's expect: list
// can reach: `final_response`, `calls[0].arguments.city`, `tokens.total`.
var runRoots = []string{"agent", "calls", "cost_micros", "delegations", "final_response", "model", "run", "tokens", "tool_names", "turns"}

// targetBlock returns the gate block that provides target, if any.
func targetBlock(target string) (gateBlock, bool) {
	for _, b := range gateBlocks {
		for _, t := range b.targets {
			if t == target {
				return b, true
			}
		}
	}
	return gateBlock{}, false
}

// gateNamespace reports whether a target's first segment belongs to a gate
// (tool_selection., edges., ...), so an unknown name there is a typo.
func gateNamespace(target string) bool {
	ns, _, _ := strings.Cut(target, ".")
	if ns == "reliability" {
		return true
	}
	for _, b := range gateBlocks {
		for _, t := range b.targets {
			if strings.HasPrefix(t, ns+".") {
				return true
			}
		}
	}
	return false
}

// knownTargets lists every gate target and run root, for did-you-mean.
func knownTargets() []string {
	out := append([]string(nil), runRoots...)
	for _, b := range gateBlocks {
		out = append(out, b.targets...)
	}
	return append(out, reliabilityTargetNames...)
}
