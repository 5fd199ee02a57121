//go:build !linux

package spoolfile

import "os"

// openUnnamed is Linux's O_TMPFILE: elsewhere the file is created with
// a name, removed at once.
func openUnnamed(dir, pattern string) (*os.File, bool) { return nil, false }
