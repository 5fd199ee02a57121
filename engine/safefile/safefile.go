package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// TooLargeError reports a file over the limit its reader accepts.
type TooLargeError struct {
	Path  string
	Size  int64 // the size seen, or Limit+1 when the file grew while it was read
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: the file is %s, over the %s limit", e.Path, Size(e.Size), Size(e.Limit))
}

// NotRegularError reports a path that names a directory, a FIFO, a device
// or a socket where a regular file was expected.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return e.Path + ": " + e.Reason()
}

// Reason is the error without the path, for a message that carries the
// path elsewhere: "is a device, not a regular file".
func (e *NotRegularError) Reason() string {
	return "is " + describe(e.Mode) + ", not a regular file"
}

func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file (mode " + m.String() + ")"
}

// Size renders a byte count for a message: bytes below 1 MiB, MiB below
// 1 GiB, else GiB; a whole number of MiB or GiB without decimals, any other
// with one.
func Size(n int64) string {
	switch {
	case n < 1<<20:
		return strconv.FormatInt(n, 10) + " bytes"
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// Open opens path for reading without blocking, checks that it is a regular
// file of at most limit bytes, and returns the file and a reader that stops
// after limit+1 bytes. The caller closes the file; a read that reaches
// limit+1 bytes should be reported with Over. Errors are *TooLargeError,
// *NotRegularError or the *fs.PathError of the open.
func Open(path string, limit int64) (*os.File, io.Reader, error) {
	// O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if fi.Size() > limit {
		f.Close()
		return nil, nil, &TooLargeError{Path: path, Size: fi.Size(), Limit: limit}
	}
	return f, io.LimitReader(f, limit+1), nil
}

// ReadFile reads the regular file at path, refusing it before the read
// starts when its stat says it is over limit bytes, and stopping the read
// at limit+1 bytes when it grows. See Open for the errors.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, r, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized from the stat, as os.ReadFile does, so a file is read into one
	// buffer instead of a doubling series of them.
	size := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		size = fi.Size() + 1 // one more, to see the end of the file
	}
	data, err := readAll(r, min(size, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Size: int64(len(data)), Limit: limit}
	}
	return data, nil
}

// readAll reads r to its end into a buffer of capacity size, grown as
// needed.
func readAll(r io.Reader, size int64) ([]byte, error) {
	data := make([]byte, 0, size)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// ReadAll reads r up to limit bytes; more is a *TooLargeError naming name.
func ReadAll(name string, r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: name, Size: int64(len(data)), Limit: limit}
	}
	return data, nil
}

// IsLimit reports whether err is a *TooLargeError or a *NotRegularError: a
// refusal of the file itself rather than a failure to reach it.
func IsLimit(err error) bool {
	var tl *TooLargeError
	var nr *NotRegularError
	return errors.As(err, &tl) || errors.As(err, &nr)
}

// WriteFile writes data to path through a temporary file in the same
// directory, renamed over path once it is complete and closed, so path
// holds either its old content or all of data, never a part. perm is the
// mode of the new file.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write is WriteFile for content produced by fill: fill writes to the
// temporary file; when it fails, the temporary file is removed and path is
// left as it was.
func Write(path string, perm fs.FileMode, fill func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
