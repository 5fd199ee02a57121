package engine

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestArrayListBounds: over drawn gives and takes from several goroutines
// at once, an arrayList hands out only arrays it was given, each to one
// taker (no array is handed out twice before it is given again), keeps no
// array over maxReusedRead and never more than maxReadArrays bytes.
func TestArrayListBounds(t *testing.T) {
	var l arrayList
	var mu sync.Mutex
	out := map[*byte]bool{} // arrays handed out and not yet given back
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(40, uint64(g)))
			var mine [][]byte
			for range 3000 {
				if rng.IntN(2) == 0 && len(mine) > 0 {
					b := mine[len(mine)-1]
					mine = mine[:len(mine)-1]
					mu.Lock()
					delete(out, &b[:1][0])
					mu.Unlock()
					l.give(b)
					continue
				}
				b := l.take()
				if b == nil {
					b = make([]byte, 1+rng.IntN(2*maxReusedRead))
				} else if len(b) != 0 || cap(b) > maxReusedRead {
					t.Errorf("an array of length %d, capacity %d handed out", len(b), cap(b))
					return
				}
				p := &b[:1][0]
				mu.Lock()
				if out[p] {
					t.Errorf("an array handed out twice")
				}
				out[p] = true
				mu.Unlock()
				mine = append(mine, b)
				l.mu.Lock()
				if l.bytes > maxReadArrays || l.bytes < 0 {
					t.Errorf("%d bytes kept", l.bytes)
				}
				l.mu.Unlock()
			}
		})
	}
	wg.Wait()
	total := 0
	for _, b := range l.free {
		total += cap(b)
	}
	if total != l.bytes || total > maxReadArrays {
		t.Errorf("the list holds %d bytes and counts %d", total, l.bytes)
	}
}
