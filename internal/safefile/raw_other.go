//go:build !unix

package safefile

import (
	"io/fs"
	"os"
)

// readRaw is readWith through openPath where no raw descriptor is read.
func readRaw(path string, limit int64, buf []byte, sized func(int64)) ([]byte, error) {
	return readWith(path, limit, buf, sized, func() (*os.File, fs.FileInfo, error) { return openPath(path, limit) })
}
