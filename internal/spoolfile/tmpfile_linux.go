package spoolfile

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a file of no name in dir (O_TMPFILE): there is no
// moment at which a killed process would leave it behind. ok is false
// where the kernel or the file system does not make such files.
func openUnnamed(dir, pattern string) (f *os.File, ok bool) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, pattern)), true
}
