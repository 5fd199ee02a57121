// Package quality scores and lints tool descriptions, deterministically and
// without a model: the TDQS score of each tool (six heuristics, 0..1), the
// thirteen DESC-NNN description rules of `mcptest doctor
// --lint-descriptions`, the strict SCH-NNN input-schema rules, and the
// smells the DESC findings group into.
//
// A tools/list entry (decoded JSON) flows in; scores and findings flow out,
// in catalog order. The `tool_quality:` gate of a suite is the Report of a
// whole catalog.
package quality
