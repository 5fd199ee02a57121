// Package yamlpos is mcptest's one reader of YAML: suites, catalogs, the
// tool-bench spec and the scaffolder's size checks all go through it.
//
// Bytes flow in; out come a yaml.Node tree (Parse) or a Doc of generic
// values (map[string]any, []any, string, float64, bool, nil) with the
// position of every value and every mapping key by RFC 6901 pointer
// (Read). Every problem of a file is a positioned diag.Error, and all of
// them are collected before the reader stops: invalid UTF-8 and control
// characters, a text past its read budget (budget.go: refused from an
// estimate of its bytes before yaml.v3 parses any, on every path), YAML
// syntax (placed on the line where it is, including the
// first line, which yaml.v3 leaves unnamed), nesting over the depth
// limits, a second document, duplicate, merge and non-string keys, numbers
// that are not finite, and aliases that expand to too many values (an
// alias bomb). UnknownKey words an unexpected key the same way for every
// file, with its valid set and a did-you-mean. With Options.Release, the
// lists of the root mapping of a text of 64 KiB or more (a long suite's
// tests:) are parsed item by item, in chunks on every core, so memory
// holds the YAML nodes of a few items, not the file's; with
// Options.Items too, one such list is left for Doc.Items, which hands its
// items over one at a time and drops each after, so memory holds the
// values of one item, not the list's; the text is then let go, kept
// compressed chunk by chunk (Doc.Text, Doc.Packed), and Doc.Again hands
// the items over a second time from it. ListNodes hands the items of one
// such list (a catalog's tools:) over as node trees placed in the file,
// one at a time, the rest of the root parsed on its own.
//
// Lines and columns are 1-based; columns count characters. The package is
// a leaf: it imports diag and yaml.v3 only.
package yamlpos
