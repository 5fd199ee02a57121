package yamlpos

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"

	"gopkg.in/yaml.v3"
)

// The items of a list read item by item (split.go) are parsed in chunks
// of consecutive items, each item on its own: by fastItem when it is
// written in the plain shapes of most suites, else by yaml.v3, one decoder
// reading the chunk's other items as a stream of documents (itemStream). Parsing is most of the time of a long
// suite's reading and each item parses on its own, so when the process
// may use more than one core, goroutines parse the chunks ahead of the
// conversion, which stays on the caller's goroutine and takes the items
// in order: the values, positions and errors are those of parsing one
// item after another. At most a few chunks are
// parsed ahead (chunkWindow a worker), so the nodes alive at once stay
// bounded whatever the length of the list.

// withFast is false while BenchmarkFastItem reads a text without fastItem,
// its baseline.
var withFast = true

// fastItemIf is fastItemIn, unless withFast is false.
func fastItemIf(text []byte, indent int, slab *nodeSlab) *yaml.Node {
	if !withFast {
		return nil
	}
	return fastItemIn(text, indent, slab)
}

// chunkItems is the number of items a chunk holds, unless Options.chunk
// says otherwise (tests cut chunks of one or two items).
const chunkItems = 32

// chunkWindow is how many chunks each worker may parse ahead of the
// conversion.
const chunkWindow = 2

// parsedItem is an item parsed on its own: its value node, nil when it
// does not parse on its own (see list.decode), and the lines it takes in
// the stream it was parsed from: from first (1 for fastItem's), followed
// by its marker, if any, on line first + breaks.
type parsedItem struct {
	n             *yaml.Node
	first, breaks int
}

// chunks hands the parsed items of a list over in order.
type chunks struct {
	// data is the whole text, or packed the text of the list packed.
	data   []byte
	packed *packedText
	l      *list
	size   int
	// cur holds the items of chunk k, the one being converted, and
	// slab their nodes (see slab.go).
	k    int
	cur  []parsedItem
	slab *nodeSlab
	// With workers: parsed[k] is chunk k once done[k] is closed; free
	// holds a token for each chunk a worker may still parse ahead, taken
	// counts the chunks taken to parse; quit stops the workers.
	parsed [][]parsedItem
	slabs  []*nodeSlab
	done   []chan struct{}
	free   chan struct{}
	quit   chan struct{}
	taken  atomic.Int64
	wg     sync.WaitGroup
}

// newChunks starts parsing the items of l, a list of s; stop must be
// called once the caller is done with them.
func newChunks(s *splitDoc, l *list, size int) *chunks {
	if size <= 0 {
		size = chunkItems
	}
	c := &chunks{data: s.data, packed: s.packed, l: l, size: size, k: -1}
	n := (len(l.items) + size - 1) / size
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers < 2 {
		return c
	}
	c.parsed = make([][]parsedItem, n)
	c.slabs = make([]*nodeSlab, n)
	c.done = make([]chan struct{}, n)
	for k := range c.done {
		c.done[k] = make(chan struct{})
	}
	c.free = make(chan struct{}, workers*chunkWindow)
	for range workers * chunkWindow {
		c.free <- struct{}{}
	}
	c.quit = make(chan struct{})
	c.wg.Add(workers)
	for range workers {
		go c.work()
	}
	return c
}

// work parses chunks in order, each once a token says it may.
func (c *chunks) work() {
	defer c.wg.Done()
	for {
		select {
		case <-c.quit:
			return
		case <-c.free:
		}
		k := int(c.taken.Add(1)) - 1
		if k >= len(c.done) {
			return
		}
		c.parsed[k], c.slabs[k] = c.parse(k)
		close(c.done[k])
	}
}

// item returns item i; the caller takes the items in order.
func (c *chunks) item(i int) parsedItem {
	if k := i / c.size; k != c.k {
		c.cur, c.slab = c.chunk(k)
		c.k = k
	}
	return c.cur[i-c.k*c.size]
}

// chunk returns the items of chunk k and the slab of their nodes: parsed
// here without workers, else waited for, and a token given back for the
// chunk the caller is done with. The nodes of that chunk go back to the
// pool: the caller has converted its items and holds none of them.
func (c *chunks) chunk(k int) ([]parsedItem, *nodeSlab) {
	c.cur = nil
	c.slab.release()
	if c.done == nil {
		return c.parse(k)
	}
	if c.k >= 0 {
		c.parsed[c.k], c.slabs[c.k] = nil, nil
		c.free <- struct{}{}
	}
	<-c.done[k]
	return c.parsed[k], c.slabs[k]
}

// stop ends the workers, once each has finished the chunk it parses.
func (c *chunks) stop() {
	if c.quit != nil {
		close(c.quit)
		c.wg.Wait()
	}
}

// parse parses the items of chunk k: those of the plain shapes it reads
// by fastItem, the others by yaml.v3, one decoder reading them in turn
// up to the first that does not parse on its own, which has no node (nor
// have the ones after it on that decoder).
func (c *chunks) parse(k int) ([]parsedItem, *nodeSlab) {
	from, to := k*c.size, min((k+1)*c.size, len(c.l.items))
	slab := &nodeSlab{}
	data, base := c.data, 0
	if c.packed != nil {
		data, base = c.packed.chunk(c.l, k)
	}
	out := make([]parsedItem, to-from)
	var rest []int
	for i := from; i < to; i++ {
		text := c.l.text(data, base, i)
		it := &out[i-from]
		it.breaks = bytes.Count(text, []byte{'\n'})
		if !bytes.HasSuffix(text, []byte{'\n'}) {
			it.breaks++
		}
		if it.n = fastItemIf(text, c.l.indent, slab); it.n != nil {
			it.first = 1
		} else {
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 {
		return out, slab
	}
	dec := yaml.NewDecoder(&itemStream{data: data, base: base, l: c.l, items: rest})
	first := 1
	for _, i := range rest {
		it := &out[i-from]
		if it.n = c.l.decode(dec, first, len(c.l.text(data, base, i))); it.n == nil {
			break
		}
		it.first = first
		first += it.breaks + 1
	}
	return out, slab
}
