// Package agentsuite proposes an agents: suite from recordings: the step
// from "I recorded my agent" to "CI gates it" without hand-written YAML.
//
// Each cassette becomes one agent test, built from what every recorded run
// agrees on and measured on the recordings themselves:
//
//   - classes (equal_function_sets) from the tools every run called, with
//     the tools only some runs called listed for review;
//   - tool edges from the recorded catalog: the tools that may change
//     state (gate.MayWrite: annotations not readOnlyHint, or with none a
//     write or delete verb in the name) are restricted, the others allowed;
//   - per-run expect: lines on the tools every run called and on the facts
//     (numbers, codes, quoted names) every run's final response states;
//   - floors at the recorded values: selection F1, the reliability pass
//     rate over the runs, the largest total tokens of a run.
//
// The draft suite is run on the recordings it came from (package engine),
// and each floor is written at the value that run measured, so the proposal
// passes on its own recordings unless a recording called a tool that may
// change state, which the proposal says. Every line is marked for review: the
// proposal says what the recordings did, not what the agent should do.
package agentsuite
