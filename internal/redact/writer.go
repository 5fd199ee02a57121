package redact

import (
	"bytes"
	"io"
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
// message, a progress line) pass at once. Safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	mask func(string) string
	held []byte
}

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

// Unwrap is the writer underneath, so a check of whether output goes to
// a terminal sees through the mask.
func (x *Writer) Unwrap() io.Writer { return x.w }

// Write masks and passes on p (see Writer); it reports p's length as
// written once what it passed on was written.
func (x *Writer) Write(p []byte) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.held = append(x.held, p...)
	cut := len(x.held)
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

// pass writes the first n held bytes, masked.
func (x *Writer) pass(n int) error {
	if n == 0 {
		return nil
	}
	out := x.mask(string(x.held[:n]))
	x.held = append(x.held[:0], x.held[n:]...)
	_, err := io.WriteString(x.w, out)
	return err
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
	return func(w io.Writer) error {
		mw := NewWriter(w, mask)
		if err := fill(mw); err != nil {
			return err
		}
		return mw.Flush()
	}
}
