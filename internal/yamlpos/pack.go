package yamlpos

import (
	"bytes"
	"compress/flate"
	"io"
	"runtime"
	"slices"
	"sync"
)

// A held list is most of a long suite's text (11.7 MiB at 32,000 tests),
// and once Read has cut it into items and converted the rest of the
// document, only the items' own text is read again, a chunk at a time,
// in order. So Read keeps the text of a document whose list it holds
// packed (packedText): the text before the list's first item and after
// its end, and the text of each chunk of items, each compressed on its
// own; the text itself is let go (Doc.Data is nil), and Doc.Text puts it
// back together for a caller that needs it whole (to word an error).
// The items of a chunk are a few kilobytes of YAML written alike, so a
// chunk is compressed against the text of the list's first chunk, kept
// as it is: the chunks then take about a ninth of the text (the
// generated one-test-per-cassette suite).
//
// Doc.Again hands the held items over a second time from the packed
// text, for a caller that let go of what it built from them the first
// time (a run that builds each test when its turn comes).

// packedText is the text of a document whose list Read holds.
type packedText struct {
	// head is the text before the list's first item, tail the text after
	// the list, both compressed; chunks are the text of each chunk of
	// size items, compressed with dict as the preset dictionary, which is
	// the text of the first chunk.
	head, tail []byte
	chunks     [][]byte
	dict       []byte
	size       int
	// n is the length of the whole text; first and end are the offsets
	// of the list's first item and of the end of the list.
	n, first, end int
}

// packDict is the most of the first chunk's text used as the preset
// dictionary (flate looks back 32 KiB).
const packDict = 32 << 10

// pack keeps the text of the list l of data packed (see above). The
// chunks are compressed on up to packWorkers goroutines, each chunk on its
// own against the dictionary, so the packed text is the same on any
// number of cores; the head and tail on the caller's. Packing the 744 KB
// suite of 2,000 transcripts was 3 ms of one core before any test of it
// could be read.
func pack(data []byte, l *list, size int) *packedText {
	p := &packedText{size: size, n: len(data), first: l.items[0].start, end: l.end}
	p.dict = bytes.Clone(data[p.first:min(l.itemEnd(min(size, len(l.items))-1), p.first+packDict)])
	n := (len(l.items) + size - 1) / size
	p.chunks = make([][]byte, n)
	workers := min(runtime.GOMAXPROCS(0), packWorkers, n)
	var wg sync.WaitGroup
	next := make(chan int, n)
	for k := range n {
		next <- k
	}
	close(next)
	wg.Add(workers - 1)
	chunk := func() {
		var c deflater
		for k := range next {
			from := k * size
			to := min(from+size, len(l.items))
			p.chunks[k] = c.deflate(data[l.items[from].start:l.itemEnd(to-1)], p.dict)
		}
	}
	for range workers - 1 {
		go func() {
			defer wg.Done()
			chunk()
		}()
	}
	var ends deflater
	p.head = ends.deflate(data[:p.first], nil)
	ends = deflater{}
	p.tail = ends.deflate(data[p.end:], nil)
	chunk()
	wg.Wait()
	return p
}

// packWorkers bounds the goroutines that pack a text: a flate writer
// holds about 1 MB while it lives.
const packWorkers = 4

// deflater compresses texts at flate.BestSpeed, one writer reused for
// texts against the same dictionary.
type deflater struct {
	w *flate.Writer
}

// deflate returns text compressed against dict (nil for none); every call
// on one deflater passes the same dict.
func (c *deflater) deflate(text []byte, dict []byte) []byte {
	var b bytes.Buffer
	if c.w == nil {
		c.w, _ = flate.NewWriterDict(&b, flate.BestSpeed, dict) // level is valid: no error
	} else {
		c.w.Reset(&b)
	}
	_, _ = c.w.Write(text) // writing to memory does not fail
	_ = c.w.Close()
	return slices.Clip(bytes.Clone(b.Bytes()))
}

// readers are flate readers to reuse, the largest part of inflating a
// chunk of a few kilobytes.
var readers sync.Pool

// inflate appends the text compressed in z, against dict, to out.
func inflate(out, z, dict []byte) []byte {
	r, _ := readers.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReaderDict(bytes.NewReader(z), dict)
	} else {
		_ = r.(flate.Resetter).Reset(bytes.NewReader(z), dict) // always nil for a flate reader
	}
	b := bytes.NewBuffer(out)
	_, err := b.ReadFrom(r)
	readers.Put(r)
	if err != nil {
		panic("yamlpos: packed text does not inflate: " + err.Error()) // not reached: compressed here
	}
	return b.Bytes()
}

// chunk returns the text of chunk k, and the offset in the whole text
// where it starts.
func (p *packedText) chunk(l *list, k int) ([]byte, int) {
	from := k * p.size
	out := make([]byte, 0, l.itemEnd(min(from+p.size, len(l.items))-1)-l.items[from].start)
	return inflate(out, p.chunks[k], p.dict), l.items[from].start
}

// text puts the whole text back together.
func (p *packedText) text() []byte {
	out := make([]byte, 0, p.n)
	out = inflate(out, p.head, nil)
	for _, z := range p.chunks {
		out = inflate(out, z, p.dict)
	}
	return inflate(out, p.tail, nil)
}

// Text returns the text the document was read from: Data, or, for a
// document whose list Read holds, that text put back together from what
// Read kept of it (see Packed).
func (d *Doc) Text() []byte {
	if d.packed == nil {
		return d.Data
	}
	return d.packed.text()
}

// Packed is the text of a document whose list Read held, compressed as
// Read keeps it: for a caller that keeps the text and not the document.
type Packed struct{ t *packedText }

// Packed returns the text Read kept of a document whose list it held;
// nil when it held none (Data is then the text).
func (d *Doc) Packed() *Packed {
	if d.packed == nil {
		return nil
	}
	return &Packed{d.packed}
}

// Bytes puts the text back together.
func (p *Packed) Bytes() []byte { return p.t.text() }

// Again returns a document that hands the list Read held over again: a
// document as Read returned it, whose Items converts the items anew from
// the text Read kept packed, with the same values, positions and errors.
// It returns nil when Read held no list, or kept its text unpacked
// (Options.Unpacked). Again may be called any number
// of times, before or after Items, but not while Items runs.
func (d *Doc) Again() *Doc {
	if d.fresh == nil {
		return nil
	}
	a := *d.fresh
	s := a.split
	a.split = &splitDoc{lists: s.lists, held: s.held, packed: s.packed}
	// The positions of the items are those of a document whose items
	// are yet to be handed over: none (the first pass fills the nodes it
	// shares with the document as Read returned it).
	a.root.kids = slices.Clone(a.root.kids)
	if at := a.root.child(EscapePointer(a.o.Items)); at != nil {
		at.kids = make([]node, len(at.kids))
	}
	a.fresh = d.fresh
	a.Errs = slices.Clip(a.Errs)
	a.nums = slices.Clip(a.nums)
	return &a
}

// keepPacked packs the text of d's held list, lets go of the text, and
// keeps the document as it is for Again.
func (d *Doc) keepPacked() {
	s := d.split
	s.packed = pack(s.data, s.held.l, d.o.chunkSize())
	s.data, d.Data, d.packed = nil, nil, s.packed
	fresh := *d
	fresh.keys = nil
	fresh.Errs = slices.Clip(fresh.Errs)
	fresh.nums = slices.Clip(fresh.nums)
	d.fresh = &fresh
}

// itemEnd is the offset where item i of l ends: the next item's start,
// or the end of the list.
func (l *list) itemEnd(i int) int {
	if i+1 < len(l.items) {
		return l.items[i+1].start
	}
	return l.end
}
