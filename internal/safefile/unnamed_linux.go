package safefile

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createUnnamed opens a file of no name in dir for reading and writing,
// readable by its owner only (O_TMPFILE): a process killed while it
// writes leaves nothing behind. ok is false where the kernel or the file
// system makes no such file. The file is named temp in errors.
func createUnnamed(dir, temp string) (f *os.File, ok bool) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), temp), true
}

// linkUnnamed gives f, a file createUnnamed made, the name path in its
// directory (which must not exist), through /proc.
func linkUnnamed(f *os.File, path string) error {
	proc := filepath.Join("/proc/self/fd", strconv.FormatUint(uint64(f.Fd()), 10))
	if err := unix.Linkat(unix.AT_FDCWD, proc, unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW); err != nil {
		return &os.LinkError{Op: "link", Old: f.Name(), New: path, Err: err}
	}
	return nil
}
