// Package jsonpos is mcptest's one reader of positioned JSON: the
// cassette reader and the catalog reader both find where a value of a
// JSON document is through it.
//
// Its input is a document json.Valid has accepted, so it does not check
// syntax: it scans bytes for where each value starts and ends. Strings
// decode as encoding/json decodes them (String, Unquote). Locate finds
// the byte offsets of the values and member keys that RFC 6901 pointers
// address, descending only into the values on their way; LineCols and
// Lines turn offsets into 1-based lines and columns (columns count
// characters), in one pass over the bytes however many offsets there
// are, so a document is placed in time linear in its bytes whatever its
// layout (one line or pretty-printed). Values decodes values as
// encoding/json decodes them into an interface, keeping each key and
// short value once however often a document repeats it; AppendCanonical
// writes a value as encoding/json writes its decoded form (members in key
// order, numbers as float64 writes them) straight from the bytes, with no
// map. The cassette reader decodes and locates with it; the catalog
// reader walks a JSON catalog's bytes with it for its checks and keeps
// each tool as the text AppendCanonical writes; yamlpos.ParseJSON reads a JSON document with it into the node
// tree the YAML reader gives.
//
// DecodeCost estimates, in one pass over a text, the memory its value
// takes decoded into an interface, and DecodeBudget is what untrusted
// JSON may take: the cassette reader's decoder spends the same estimate
// as it builds values, the report's readers cost each case of a run
// envelope before decoding it, and the catalog reader each tool.
//
// The package is a leaf: it imports the standard library, diag and
// safefile (for the sizes its messages give) only.
package jsonpos
