// Package cassette is the model of a recorded agent run and its readers.
//
// A cassette file is read into a Cassette: the tools the agent was shown and,
// for each run, the calls it made, what came back, what it finally said and
// what it cost. Three recordings are read, detected by their content, never
// by their file name: the mcptest cassette format v1, an OpenAI Chat
// Completions transcript and an Anthropic Messages transcript. Every gate of
// mcptest reads Cassette values and nothing else.
//
// A malformed file is a *diag.Error (or a diag.List) that names
// file:line:col and says what was expected.
package cassette
