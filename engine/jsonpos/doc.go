// Package jsonpos is mcptest's one reader of positioned JSON: the
// cassette reader and the catalog reader both find where a value of a
// JSON document is through it.
//
// Its input is a document json.Valid has accepted, so it does not check
// syntax: it scans bytes for where each value starts and ends. Strings
// decode as encoding/json decodes them (Unquote). Locate finds the byte
// offsets of the values and member keys that RFC 6901 pointers address,
// descending only into the values on their way; LineCols and Lines turn
// offsets into 1-based lines and columns (columns count characters), in
// one pass over the bytes however many offsets there are. Node reads a
// whole document into the yaml.Node tree the YAML reader gives, every
// node with its line and column, so a JSON catalog and a YAML one are
// checked by the same walk. Each reads in time linear in the bytes,
// whatever the layout (one line or pretty-printed).
//
// The package is a leaf: it imports diag and yaml.v3 (for the node type)
// only.
package jsonpos
