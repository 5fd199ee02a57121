// Package distractor generates the plausible-but-irrelevant tools a
// distractors: block injects into the tool list an agent is shown: draws from
// a bundled catalog of real MCP tools, or near-duplicate look-alikes of the
// task's own tools. Generation is deterministic: the same block gives the
// same tools, in the same order, on every machine.
package distractor
