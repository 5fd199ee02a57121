package mcpserver

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openRoot opens the workspace as an os.Root: the front door reads and
// writes its files through one, so neither ".." nor a symbolic link in a
// name leads outside the workspace.
func (s *server) openRoot() (*os.Root, error) {
	return os.OpenRoot(s.opt.Root)
}

// isNotExist reports a name that names nothing (or runs through a file
// where a directory was expected).
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
