package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
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
	f, _, err := openPath(path, limit)
	return limited(f, limit, err)
}

// openPath is Open returning the file's stat instead of the reader.
func openPath(path string, limit int64) (*os.File, fs.FileInfo, error) {
	// O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	return check(f, path, limit)
}

// OpenIn is Open for name inside root: neither ".." nor a symbolic link
// in name may lead outside root (os.Root refuses such a name from the
// name and the links inside root alone, whatever lies outside).
func OpenIn(root *os.Root, name string, limit int64) (*os.File, io.Reader, error) {
	f, _, err := openIn(root, name, limit)
	return limited(f, limit, err)
}

// openIn is OpenIn returning the file's stat instead of the reader.
func openIn(root *os.Root, name string, limit int64) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	return check(f, name, limit)
}

// check refuses an open file that is not regular or is over limit, closing
// it then, and returns its stat: the one stat of the file an open takes.
func check(f *os.File, path string, limit int64) (*os.File, fs.FileInfo, error) {
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
	return f, fi, nil
}

// limited is the file of an open and the reader of Open: it stops after
// limit+1 bytes.
func limited(f *os.File, limit int64, err error) (*os.File, io.Reader, error) {
	if err != nil {
		return nil, nil, err
	}
	return f, io.LimitReader(f, limit+1), nil
}

// OpenOwn is Open for a file mcptest keeps for itself (a cache entry, a
// stored run): a symbolic link at path is refused with *NotRegularError
// instead of followed, so a link planted in the store cannot make it read a
// file outside. The file opened is checked to be the one Lstat saw.
func OpenOwn(path string, limit int64) (*os.File, io.Reader, error) {
	f, _, err := openOwn(path, limit)
	return limited(f, limit, err)
}

// openOwn is OpenOwn returning the file's stat instead of the reader.
func openOwn(path string, limit int64) (*os.File, fs.FileInfo, error) {
	li, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !li.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Mode: li.Mode()}
	}
	f, fi, err := openPath(path, limit)
	if err != nil {
		return nil, nil, err
	}
	if !os.SameFile(li, fi) {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: fs.ModeSymlink}
	}
	return f, fi, nil
}

// ReadOwnFile is ReadFile through OpenOwn: a symbolic link is refused.
func ReadOwnFile(path string, limit int64) ([]byte, error) {
	return readWith(path, limit, nil, nil, func() (*os.File, fs.FileInfo, error) { return openOwn(path, limit) })
}

// ReadFile reads the regular file at path, refusing it before the read
// starts when its stat says it is over limit bytes, and stopping the read
// at limit+1 bytes when it grows. See Open for the errors.
func ReadFile(path string, limit int64) ([]byte, error) {
	return readRaw(path, limit, nil, nil)
}

// ReadFileInto is ReadFile calling sized, when not nil, with the size of
// the file (from its stat, at most limit) once it is open and checked and
// before a byte of it is read, for a reader that bounds the bytes several
// reads hold at once without a stat of its own; and reading into buf when
// its capacity holds the file and one byte more, for a reader that reads
// many files one after the other and is done with each before the next.
func ReadFileInto(path string, limit int64, buf []byte, sized func(int64)) ([]byte, error) {
	return readRaw(path, limit, buf, sized)
}

// ReadFileIn is ReadFile for name inside root (see OpenIn).
func ReadFileIn(root *os.Root, name string, limit int64) ([]byte, error) {
	return readWith(name, limit, nil, nil, func() (*os.File, fs.FileInfo, error) { return openIn(root, name, limit) })
}

// readWith opens a file with open (one of the open functions), calls
// sized (when not nil) with the size its stat gave, and reads the file to
// its end, at most limit+1 bytes, into buf when it has room, else into one
// buffer sized from the stat, as os.ReadFile does, instead of a doubling
// series of them.
func readWith(path string, limit int64, buf []byte, sized func(int64), open func() (*os.File, fs.FileInfo, error)) ([]byte, error) {
	f, fi, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSized(f, path, fi.Size(), limit, buf, sized)
}

// readSized is readWith's read of an open file of size bytes by its
// stat: it calls sized (when not nil) with the size, then reads r to its
// end, at most limit+1 bytes.
func readSized(r io.Reader, path string, statSize, limit int64, buf []byte, sized func(int64)) ([]byte, error) {
	if sized != nil {
		sized(statSize)
	}
	size := int64(512)
	if statSize > 0 {
		size = statSize + 1 // one more, to see the end of the file
	}
	data, err := readAll(io.LimitReader(r, limit+1), min(size, limit+1), buf)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Size: int64(len(data)), Limit: limit}
	}
	return data, nil
}

// readAll reads r to its end into buf when its capacity is size or more,
// else into a buffer of capacity size, grown as needed.
func readAll(r io.Reader, size int64, buf []byte) ([]byte, error) {
	data := buf[:0]
	if int64(cap(buf)) < size {
		data = make([]byte, 0, size)
	}
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
//
// On Linux the temporary file has no name while fill writes it
// (O_TMPFILE, where the file system makes one): it is named only for the
// rename, so a process killed while it writes (a merge written as it
// merges, for minutes at a million cases) leaves nothing behind.
func Write(path string, perm fs.FileMode, fill func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if f, ok := createUnnamed(dir, filepath.Join(dir, "."+base+tempMark+"unnamed")); ok {
		return writeUnnamed(f, dir, base, path, perm, fill)
	}
	return writeNamed(dir, base, path, perm, fill)
}

// writeNamed is Write through a temporary file named from the start
// (.<base>.tmp-<random>).
func writeNamed(dir, base, path string, perm fs.FileMode, fill func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(dir, "."+base+tempMark+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = named(err, tmp.Name(), path)
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

// linkFile is linkUnnamed (a test makes it fail, as where /proc is
// missing).
var linkFile = linkUnnamed

// writeUnnamed is Write into f, a file of no name in dir: filled, then
// linked at a temporary name and renamed over path. Where the link fails
// (no /proc), its content is copied to a named temporary file instead.
func writeUnnamed(f *os.File, dir, base, path string, perm fs.FileMode, fill func(io.Writer) error) (err error) {
	defer func() {
		if err != nil {
			f.Close()
			err = named(err, f.Name(), path)
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	for i := 0; ; i++ {
		tmp := filepath.Join(dir, "."+base+tempMark+strconv.FormatInt(time.Now().UnixNano()+int64(i), 36))
		err = linkFile(f, tmp)
		switch {
		case errors.Is(err, fs.ErrExist) && i < 100:
			continue
		case err != nil:
			if _, err = f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			err = writeNamed(dir, base, path, perm, func(w io.Writer) error {
				_, err := io.Copy(w, f)
				return err
			})
			f.Close()
			return err
		}
		if err = f.Close(); err != nil {
			os.Remove(tmp)
			return err
		}
		if err = os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
		}
		return err
	}
}

// named returns err with the temporary file's name replaced by path when
// err is the temporary file's *fs.PathError, so a message names the file
// the user asked for.
func named(err error, tmp, path string) error {
	if pe, ok := err.(*fs.PathError); ok && pe.Path == tmp {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return err
}

// tempMark is in the name of every temporary file Write creates:
// .<base>.tmp-<random>.
const tempMark = ".tmp-"

// IsTemp reports whether name (a base name) is one of Write's temporary
// files, which a process killed during a write leaves behind: a directory
// that mcptest keeps can sweep them.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMark)
}

// WriteOutput is WriteFile for a path the user named (an --output FILE).
// Missing parent directories are created (--output reports/run.html on a
// fresh checkout). A symbolic link is followed, so the file it names is
// replaced rather than the link. A path that exists and is not a regular file (/dev/stdout, a
// named pipe) is written in place: there is no file there to leave half
// written, and no directory it could be renamed in.
func WriteOutput(path string, data []byte, perm fs.FileMode) error {
	return WriteOutputFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// ByRename reports whether WriteOutputFunc would write path as a new file
// renamed into place once fill succeeds (not in place, as a device or a
// pipe is written): a fill that fails then leaves nothing behind, so it
// may write what it has not yet checked. A path that cannot be looked at
// is not.
func ByRename(path string) bool {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && fi.Mode().IsRegular()
}

// WriteOutputFunc is WriteOutput for content produced by fill, as Write is
// for WriteFile: a report written as it is produced, never held whole.
func WriteOutputFunc(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	case err == nil && fi.IsDir():
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	case err == nil && !fi.Mode().IsRegular():
		return writeInPlace(path, fill)
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return Write(path, perm, fill)
}

// writeInPlace writes what fill produces to an existing special file such
// as a device or a pipe.
func writeInPlace(path string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteFileIn is WriteFile for name inside root: the temporary file and the
// rename both go through root, so neither ".." nor a symbolic link in the
// directory part of name leads outside it, and a symbolic link at name
// itself is replaced, never followed.
func WriteFileIn(root *os.Root, name string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(name)
	var tmp *os.File
	var tmpName string
	for i := 0; ; i++ {
		tmpName = filepath.Join(dir, "."+base+tempMark+strconv.FormatInt(time.Now().UnixNano()+int64(i), 36))
		tmp, err = root.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, fs.ErrExist) || i == 100 {
			break
		}
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			root.Remove(tmpName)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return root.Rename(tmpName, name)
}

// Resolve is the file path names, as the system finds it: absolute,
// cleaned, with every symbolic link resolved, of the file itself when it
// exists, else of the deepest directory above it that exists, and through
// a link whose target does not exist yet (a dangling link is where a
// write goes). Two spellings of one file (a link, ./a.json, an absolute
// path) resolve to one path, so a lock, a containment check or a
// comparison keyed on it holds for both. A path that cannot be made
// absolute is returned cleaned.
func Resolve(path string) string {
	return resolve(path, 40)
}

func resolve(path string, links int) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for p := abs; ; {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		if target, err := os.Readlink(p); err == nil && links > 0 { // a dangling link
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			return filepath.Join(resolve(target, links-1), rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
