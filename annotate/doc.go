// Package annotate holds every surface that shows a run to a reader. Each
// reporter renders from the run envelope (engine.Envelope) and nothing
// else, so `mcptest report run.json --format X` gives what `mcptest run
// --reporter X` gave, without a second run.
//
// New picks a reporter by name. The pretty reporter is for people at a
// terminal (colour only when asked for); the json reporter writes the
// canonical envelope, byte for byte deterministic.
package annotate
