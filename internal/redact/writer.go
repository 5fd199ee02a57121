package redact

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// Writer masks what is written through it with a mask function (such as
// Known.Mask) before it reaches the writer underneath: the one door
// every message, report and written file of a command passes, so no
// call site can forget to mask. A Write ends with what it wrote passed
// on, except the part after the last line break of a large write
// (StreamChunk bytes or more, a buffered stream's chunk), which is held
// until the next line break, Flush, or MaxHold bytes, so a secret cut
// in two by a chunk boundary is still seen whole. Small writes (a
// message, a progress line) pass at once, except, behind a Known
// (NewKnownWriter), an end that may be the start of a known secret or
// of a URL's credentials (Known.holdFrom): held until the next write
// shows what it is, so a secret written in pieces is masked whole.
// Safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	mask func(string) string
	held []byte
	// known is the set mask is the Mask of (NewKnownWriter), whose
	// Clean lets the lines of a large write that hold nothing to mask
	// pass on from the caller's bytes, with no copy (see Write).
	known *Known
	// isKnown says the writer was made by NewKnownWriter (known may be
	// nil: the URLs alone are masked).
	isKnown bool
	// scheme is the end of the text passed so far that may be a URL's
	// scheme (letters, digits, + . -, at most maxScheme bytes): masked
	// again in front of the next text passed, so a "://" and its
	// credentials that come in a later write are read as the URL they
	// are (pass).
	scheme []byte
	// run is what the URL rule of holdFrom has read of held.
	run urlRun
	// buf is the array held is reused from once all it held is passed:
	// passing the front of held reslices it rather than moving the bytes
	// after it (a byte passed per write moved 64 KiB per write).
	buf []byte
}

// maxScheme bounds the scheme a Writer keeps from one pass to the next.
const maxScheme = 32

const (
	// StreamChunk is the size from which a write is read as a chunk of a
	// longer stream, whose last line may go on in the next write.
	StreamChunk = 1024
	// MaxHold bounds what a Writer holds back: a line longer than this
	// is passed on up to its last space, comma or quote, else whole.
	MaxHold = 64 << 10
)

// NewWriter returns w behind mask.
func NewWriter(w io.Writer, mask func(string) string) *Writer {
	return &Writer{w: w, mask: mask}
}

// NewKnownWriter returns w behind k.Mask (a nil k masks the URLs
// alone). It masks exactly as NewWriter(w, k.Mask) does, cheaper: the
// whole lines of a large write that hold no spelling of a secret of k
// and no URL (Known.Clean) are passed on as they are, with no copy and
// no allocation, which is most of a report.
func NewKnownWriter(w io.Writer, k *Known) *Writer {
	return &Writer{w: w, mask: k.Mask, known: k, isKnown: true}
}

// Unwrap is the writer underneath, so a check of whether output goes to
// a terminal sees through the mask.
func (x *Writer) Unwrap() io.Writer { return x.w }

// Write masks and passes on p (see Writer); it reports p's length as
// written once what it passed on was written.
func (x *Writer) Write(p []byte) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.isKnown && len(p) >= StreamChunk && !x.known.multiline() {
		if done, err := x.writeLines(p); done || err != nil {
			if err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	x.hold(p)
	cut := len(x.held)
	if len(p) < StreamChunk && x.isKnown {
		cut = x.known.holdFromRun(x.held, &x.run)
	}
	if len(p) >= StreamChunk {
		if i := bytes.LastIndexAny(x.held, "\n\r"); i >= 0 {
			cut = i + 1
		} else {
			cut = 0
		}
		if len(x.held)-cut > MaxHold {
			cut = len(x.held)
			if i := bytes.LastIndexAny(x.held, " \t,\"'<>"); i >= 0 {
				cut = i + 1
			}
		}
	}
	if err := x.pass(cut); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeLines is Write of a large p for a Writer of a Known whose
// secrets hold no line break: what is held and p's first line are
// masked together (a secret cut by the chunk boundary is seen whole),
// the lines after it up to p's last line break are passed on as they
// are when Known.Clean proves the mask leaves them so (else masked
// together, as one string), and what follows the last line break is
// held. No secret spans a line break, and the URL rules read runs of
// text that a line break ends (urls), so masking the lines apart gives
// what masking them together gives. done is false, nothing done, when
// p holds no line break (Write's general path then holds it).
func (x *Writer) writeLines(p []byte) (done bool, err error) {
	last := bytes.LastIndexAny(p, "\n\r")
	if last < 0 {
		return false, nil
	}
	first := bytes.IndexAny(p, "\n\r")
	x.hold(p[:first+1])
	if err := x.pass(len(x.held)); err != nil {
		return true, err
	}
	if body := p[first+1 : last+1]; len(body) > 0 {
		if x.known.Clean(body) {
			_, err = x.w.Write(body)
		} else {
			err = x.maskLines(body)
		}
		if err != nil {
			return true, err
		}
	}
	x.hold(p[last+1:]) // nothing is held: all was passed
	if len(x.held) > MaxHold {
		cut := len(x.held)
		if i := bytes.LastIndexAny(x.held, " \t,\"'<>"); i >= 0 {
			cut = i + 1
		}
		return true, x.pass(cut)
	}
	return true, nil
}

// maskLines writes body, whole lines of a write whose Known is not
// multiline (writeLines), masked line by line: the runs of lines that
// Known.Clean proves the mask leaves as they are are passed on with no
// copy, and each other line is masked alone, so a chunk with one URL is
// not copied whole (as a string, then by the URL rules) to mask one line.
// Masking the lines apart gives what masking them together gives, for
// the reasons writeLines names.
func (x *Writer) maskLines(body []byte) error {
	clean := 0 // body[clean:at] is a run of clean lines not yet written
	for at := 0; at < len(body); {
		end := len(body)
		if i := bytes.IndexAny(body[at:], "\n\r"); i >= 0 {
			end = at + i + 1
		}
		if line := body[at:end]; !x.known.Clean(line) {
			if clean < at {
				if _, err := x.w.Write(body[clean:at]); err != nil {
					return err
				}
			}
			if _, err := io.WriteString(x.w, x.mask(string(line))); err != nil {
				return err
			}
			clean = end
		}
		at = end
	}
	if clean < len(body) {
		_, err := x.w.Write(body[clean:])
		return err
	}
	return nil
}

// pass writes the first n held bytes, masked. A scheme kept from the
// last pass is masked in front of them and taken off again (the URL
// rules change what follows a "://", never the scheme before it); where
// the mask changed it, the bytes are masked alone.
func (x *Writer) pass(n int) error {
	if n == 0 {
		return nil
	}
	var out string
	if len(x.scheme) > 0 && bytes.HasPrefix(x.held, []byte("://")) {
		out = x.mask(string(x.scheme) + string(x.held[:n]))
		if s, ok := strings.CutPrefix(out, string(x.scheme)); ok {
			out = s
		} else {
			out = x.mask(string(x.held[:n]))
		}
	} else {
		out = x.mask(string(x.held[:n]))
	}
	x.keepScheme(x.held[:n])
	x.held = x.held[n:]
	if len(x.held) == 0 {
		x.held = x.buf[:0]
	}
	x.run.drop(n)
	_, err := io.WriteString(x.w, out)
	return err
}

// hold appends p to what is held, keeping the largest array held has
// had as buf.
func (x *Writer) hold(p []byte) {
	x.held = append(x.held, p...)
	if cap(x.held) > cap(x.buf) {
		x.buf = x.held[:0]
	}
}

// keepScheme keeps the end of p passed that may be a URL's scheme
// (Writer.scheme): the letters, digits, + . - that end it, following
// what was kept if all of p is such.
func (x *Writer) keepScheme(p []byte) {
	i := len(p)
	for i > 0 && isSchemeByte(p[i-1]) {
		i--
	}
	if i > 0 {
		x.scheme = x.scheme[:0]
	}
	x.scheme = append(x.scheme, p[i:]...)
	if len(x.scheme) > maxScheme {
		x.scheme = x.scheme[:0]
	}
}

// isSchemeByte says c may be part of a URL's scheme.
func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}

// Flush passes on what is held.
func (x *Writer) Flush() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.pass(len(x.held))
}

// Through is fill writing through mask (a Writer, flushed when fill is
// done): a file written with it holds no secret mask would hide.
func Through(mask func(string) string, fill func(io.Writer) error) func(io.Writer) error {
	return through(func(w io.Writer) *Writer { return NewWriter(w, mask) }, fill)
}

// ThroughKnown is Through with k.Mask, through a NewKnownWriter.
func ThroughKnown(k *Known, fill func(io.Writer) error) func(io.Writer) error {
	return through(func(w io.Writer) *Writer { return NewKnownWriter(w, k) }, fill)
}

// through is fill writing through the Writer newWriter makes, flushed when
// fill is done.
func through(newWriter func(io.Writer) *Writer, fill func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		mw := newWriter(w)
		if err := fill(mw); err != nil {
			return err
		}
		return mw.Flush()
	}
}
