//go:build linux && (amd64 || arm64)

package safefile

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// oTmpfile is O_TMPFILE on these architectures (__O_TMPFILE of
// asm-generic with O_DIRECTORY): the syscall package does not name it,
// and the formats (report, cassette) link no library beyond the standard
// one (TestFormatsAreLeaves).
const oTmpfile = 0o20000000 | syscall.O_DIRECTORY

// atSymlinkFollow is linkat's AT_SYMLINK_FOLLOW, and atFdcwd its
// AT_FDCWD.
const (
	atSymlinkFollow = 0x400
	atFdcwd         = -100
)

// createUnnamed opens a file of no name in dir for reading and writing,
// readable by its owner only (O_TMPFILE): a process killed while it
// writes leaves nothing behind. ok is false where the kernel or the file
// system makes no such file. The file is named temp in errors.
func createUnnamed(dir, temp string) (f *os.File, ok bool) {
	fd, err := syscall.Open(dir, oTmpfile|syscall.O_RDWR|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), temp), true
}

// linkUnnamed gives f, a file createUnnamed made, the name path in its
// directory (which must not exist), through /proc.
func linkUnnamed(f *os.File, path string) error {
	proc, err := syscall.BytePtrFromString("/proc/self/fd/" + strconv.FormatUint(uint64(f.Fd()), 10))
	if err != nil {
		return err
	}
	to, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	cwd := atFdcwd
	if _, _, e := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(cwd), uintptr(unsafe.Pointer(proc)), uintptr(cwd), uintptr(unsafe.Pointer(to)), atSymlinkFollow, 0); e != 0 {
		return &os.LinkError{Op: "link", Old: f.Name(), New: path, Err: e}
	}
	return nil
}
