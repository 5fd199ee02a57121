// Package toolbench measures whether tool descriptions carry the selection
// signal: a deterministic lexical selector picks, for each intent, the tool
// whose name and description best overlap the request; each declared
// mutation of one description (blank, genericize, truncate, drop_keyword)
// is applied alone and the drop in selection accuracy, the smells it
// introduced and the tokens it removed are reported.
//
// A catalog, intents and mutations flow in; a Report flows out. No model,
// no randomness: the same spec always gives the same report.
package toolbench
