// Package world is the hidden state of a scenario: a JSON object seeded by
// the suite and updated call by call as a recorded trajectory is replayed.
//
// What flows through it: a seed (decoded JSON: map[string]any, []any,
// string, float64, bool, nil), the Rules of a scenario (transitions with
// their guards and effects, forbidden tools, escalation tools), and one
// Step per recorded tool call. Each Step yields a Result: applied, left
// unchanged, an invalid action or a forbidden transition, with the reason.
//
// A World is a plain value: no goroutines, no clock, no randomness. New
// clones the seed, so the seed is never mutated; Diff compares the final
// state with it. A step that fails (a guard, a type mismatch, a number out
// of range) changes nothing: effects are applied to a copy that replaces
// the state only when every effect succeeded.
//
// Paths are dotted object keys, "inventory.widgets": each segment names a
// key of an object. A path cannot step into a list or address a key that
// contains a dot.
package world
