//go:build unix

package safefile

import (
	"io"
	"io/fs"
	"os"
	"syscall"
)

// openRaw opens path as openPath does (read only, without blocking, not
// inherited by a child) and returns its descriptor and stat, without an
// *os.File: os.OpenFile registers every file it opens with the runtime's
// network poller, and for a regular file the kernel refuses it (a failing
// epoll_ctl a file, 2,086 of them a run over 2,000 transcripts). A file
// that is not regular, or over limit, is handed to check as an *os.File
// (ok false, f set), so its refusal is worded as before; an open that
// fails returns the *fs.PathError os.OpenFile returns. fd is -1 unless ok:
// the descriptor is then f's, or there is none.
func openRaw(path string, limit int64) (fd int, size int64, f *os.File, ok bool, err error) {
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return -1, 0, nil, false, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	for {
		err = syscall.Fstat(fd, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size > limit {
		return -1, 0, os.NewFile(uintptr(fd), path), false, nil
	}
	return fd, st.Size, nil, true, nil
}

// fdReader reads a descriptor as os.File's Read does: a read of no bytes
// is the end of the file, and an error is an *fs.PathError naming the
// file.
type fdReader struct {
	fd   int
	path string
}

func (r fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) > maxRW {
		p = p[:maxRW]
	}
	for {
		n, err := syscall.Read(r.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: r.path, Err: err}
		}
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

// maxRW is the most one read asks for, as in package os.
const maxRW = 1 << 30

// readRaw is readWith for a path opened as it is, through openRaw; a file
// openRaw hands over as an *os.File is checked and read as before.
func readRaw(path string, limit int64, buf []byte, sized func(int64)) ([]byte, error) {
	fd, size, f, ok, err := openRaw(path, limit)
	if err != nil {
		return nil, err
	}
	if !ok {
		return readWith(path, limit, buf, sized, func() (*os.File, fs.FileInfo, error) { return check(f, path, limit) })
	}
	defer syscall.Close(fd)
	return readSized(fdReader{fd, path}, path, size, limit, buf, sized)
}
