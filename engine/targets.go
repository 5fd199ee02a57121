package engine

import "strings"

// runRoots are the fields of one recorded run that a test's expect: list
// can reach: `final_response`, `calls[0].arguments.city`, `tokens.total`.
var runRoots = []string{"agent", "calls", "cost_micros", "delegations", "final_response", "model", "run", "tokens", "tool_names", "turns"}

// targetBlock returns the registry row of the gate block that provides
// target, if any.
func targetBlock(target string) (gateRow, bool) {
	for _, r := range gateRows {
		for _, t := range r.targets {
			if t == target {
				return r, true
			}
		}
	}
	return gateRow{}, false
}

// gateNamespace reports whether a target's first segment belongs to a gate
// (tool_selection., edges., ...), so an unknown name there is a typo.
func gateNamespace(target string) bool {
	ns, _, _ := strings.Cut(target, ".")
	if ns == "reliability" {
		return true
	}
	for _, r := range gateRows {
		for _, t := range r.targets {
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
	for _, r := range gateRows {
		out = append(out, r.targets...)
	}
	return append(out, reliabilityTargetNames...)
}
