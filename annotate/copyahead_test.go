package annotate

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// TestCopyAhead: over drawn sizes and block sizes (a size under, at and
// over a block, many blocks), copyAhead copies exactly the first size
// bytes; a read error or a reader shorter than size is an error, and a
// write error stops it with that error. A spool smaller than a block is
// copied in buffers of its size.
func TestCopyAhead(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 5))
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	for i := range 400 {
		block := 1 + r.IntN(70000)
		size := int64(r.IntN(len(data) + 1))
		if i%5 == 0 {
			size = int64(block * r.IntN(4))
		}
		var out bytes.Buffer
		if err := copyAhead(&out, bytes.NewReader(data), size, block); err != nil {
			t.Fatalf("size %d block %d: %v", size, block, err)
		}
		if !bytes.Equal(out.Bytes(), data[:size]) {
			t.Fatalf("size %d block %d: %d bytes copied, not the first %d", size, block, out.Len(), size)
		}
	}
	for _, size := range []int64{0, 1, 10000, 200000} { // a small run's spool: buffers of its size, not of a block
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := copyAhead(io.Discard, bytes.NewReader(data), size, 256<<10); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > uint64(3*size)+16<<10 {
			t.Errorf("a spool of %d bytes: %d bytes allocated to copy it", size, got)
		}
	}
	var out bytes.Buffer
	if err := copyAhead(&out, bytes.NewReader(data[:100]), 200, 64); err == nil || !strings.Contains(err.Error(), "read the spooled cases") {
		t.Errorf("a reader shorter than size: %v", err)
	}
	bad := errors.New("disk full")
	if err := copyAhead(failWriter{bad}, bytes.NewReader(data), int64(len(data)), 4096); !errors.Is(err, bad) {
		t.Errorf("a write error: %v", err)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

var _ io.Writer = failWriter{}
