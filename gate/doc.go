// Package gate holds the metric gates: pure functions from recorded runs and
// a gate's configuration to numbers and findings.
//
// Each gate is an accumulator. The runner feeds it one recorded run at a time
// (so memory does not grow with the number of cassettes) and then asks for a
// Result: the assertable targets by their dotted names, the raw counts behind
// every ratio (so shards merge and baselines compare without averaging
// percentages) and findings that name what was missed. A failing gate is a
// value, never a Go error. Nothing here reads a clock, a file or the network.
//
// A gate reaches a suite through one row of the engine's gate registry
// (engine/registry.go) and one file of engine (engine/gate_<name>.go) that
// reads its block and feeds it a case's runs; docs/architecture.md walks
// through adding one.
package gate
