package redact

import (
	"bytes"
	"io"
	"os"
)

// CleanRecorder passes what is written through it on to the writer
// underneath (a spool) as it is, and notes whether it holds anything
// the mask of a Known would change: a text proven clean
// (Known.Clean, line by line, a line cut between two writes read whole)
// is later passed on from the spool as it is (Writer.SpliceFrom), with
// no read into memory and no second look, and what it writes is what
// writing it through the Writer would write. A text that starts or ends
// anywhere but at a line break, or that the set of secrets could change
// meanwhile, proves nothing: SpliceFrom then declines.
type CleanRecorder struct {
	w     io.Writer
	k     *Known
	kLen  int
	n     int64
	clean bool
	// line is the text written after the last line break (a line cut
	// between writes), at most MaxHold bytes.
	line []byte
}

// NewCleanRecorder returns w behind a recorder of whether what is
// written needs no mask under k (a nil k: the URLs alone). A k whose
// secrets span lines proves nothing.
func NewCleanRecorder(w io.Writer, k *Known) *CleanRecorder {
	return &CleanRecorder{w: w, k: k, kLen: knownLen(k), clean: !k.multiline()}
}

// knownLen is k.Len(), 0 for a nil k.
func knownLen(k *Known) int {
	if k == nil {
		return 0
	}
	return k.Len()
}

// Write notes whether p, with the line of the last write it continues,
// needs no mask, and passes p on.
func (c *CleanRecorder) Write(p []byte) (int, error) {
	if c.clean && len(p) > 0 {
		c.check(p)
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *CleanRecorder) check(p []byte) {
	if c.n == 0 && p[0] != '\n' {
		c.clean = false // the text must start a line
		return
	}
	first := bytes.IndexAny(p, "\n\r")
	if first < 0 {
		c.line = append(c.line, p...)
		c.clean = len(c.line) <= MaxHold && c.k.Clean(c.line)
		return
	}
	if len(c.line) > 0 {
		c.line = append(c.line, p[:first]...)
		if !c.k.Clean(c.line) {
			c.clean = false
			return
		}
	}
	if !c.k.Clean(p) {
		c.clean = false
		return
	}
	last := bytes.LastIndexAny(p, "\n\r")
	c.line = append(c.line[:0], p[last+1:]...)
	c.clean = len(c.line) <= MaxHold
}

// Clean reports whether everything written so far was proven to need
// no mask, and ended with a line break.
func (c *CleanRecorder) Clean() bool {
	return c.clean && len(c.line) == 0 && knownLen(c.k) == c.kLen
}

// SpliceFrom passes the first n bytes of f on to the writer underneath
// as they are (io.Copy: copy_file_range between two files) where rec
// recorded them, all n, as needing no mask under this Writer's Known:
// what is held is passed on first, masked, and the text after the
// spliced bytes starts a line, as it would had they been written
// through. It reports false, having done nothing, where rec proves
// nothing for this Writer (another Known, a secret added since, a text
// not clean, a Writer of NewWriter); the caller then writes the bytes
// through.
func (x *Writer) SpliceFrom(rec *CleanRecorder, f *os.File, n int64) (bool, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.isKnown || rec == nil || rec.k != x.known || rec.n != n || n == 0 || !rec.Clean() || x.known.multiline() {
		return false, nil
	}
	if err := x.pass(len(x.held)); err != nil {
		return true, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return true, err
	}
	if _, err := io.Copy(x.w, &io.LimitedReader{R: f, N: n}); err != nil {
		return true, err
	}
	x.scheme = x.scheme[:0] // the spliced text ended with a line break
	return true, nil
}
