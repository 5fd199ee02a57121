// Package toolbench measures whether tool descriptions carry the selection
// signal: a deterministic lexical selector picks, for each intent, the tool
// whose name and description best overlap the request; each declared
// mutation of one description (blank, genericize, truncate, drop_keyword)
// is applied alone and the drop in selection accuracy, the smells it
// introduced and the tokens it removed are reported.
//
// A catalog, intents and mutations flow in; a Report flows out. No model,
// no randomness: the same spec always gives the same report.
//
// spec.go reads a spec file (ReadSpec, ParseSpec; RunFile reads and runs
// it) through internal/yamlpos: every problem of the file is collected as a
// positioned diag.Error (file:line:col, 1-based), and a problem Validate
// finds is placed back in the file (SpecPos). The spec's catalog is read
// by the readers the caller hands in (Catalogs), so the package stays a
// leaf that links no MCP client. text.go renders a Report for a terminal
// (Text), escaping the spec's text with the caller's Clean.
package toolbench
