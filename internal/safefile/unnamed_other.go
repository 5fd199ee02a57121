//go:build !(linux && (amd64 || arm64))

package safefile

import (
	"errors"
	"os"
)

// createUnnamed makes no file of no name outside Linux: Write names its
// temporary file from the start.
func createUnnamed(dir, temp string) (f *os.File, ok bool) { return nil, false }

func linkUnnamed(f *os.File, path string) error {
	return errors.New("safefile: no file of no name on this system")
}
