// Package diag holds the positioned error values that every parser of user
// files returns: a suite loader, a cassette reader and the assertion grammar
// all answer with file:line:col and a message that says what was wrong and
// what was expected. A Printer prints them the way compilers do, with the
// source line and a caret, from the bytes the reader attached to each
// error (Error.Source): it never opens a file, so what a reader keeps
// back (a file that may not be what it was named as) stays unshown.
//
// Path is how every reader names the value a message is about
// (tools[0].inputSchema.properties.q) within a fixed budget, however deep
// or long the path a hostile file makes.
//
// InputError is the unpositioned kind of wrong input (a flag's value, a
// missing file, a baseline that is not an envelope): whichever package
// finds it returns one, and every command exits 2 on it, as on a
// positioned error.
//
// Lines and columns are 1-based; a zero line means the position is unknown
// (the error is about the whole file). Columns count characters (runes), not
// bytes.
package diag
