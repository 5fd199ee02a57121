package engine

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestReadBudget: files that fit the budget are held at once; a file
// that does not waits for the others to give theirs back; a file over the
// whole budget is taken alone.
func TestReadBudget(t *testing.T) {
	b := newReadBudget(100)
	b.take(40)
	b.take(60) // fits beside the first
	var got atomic.Bool
	done := make(chan struct{})
	go func() {
		b.take(30) // waits for room
		got.Store(true)
		b.give(30)
		b.take(500) // over the budget: alone
		b.give(500)
		close(done)
	}()
	time.Sleep(20 * time.Millisecond)
	if got.Load() {
		t.Fatal("took 30 bytes of a budget of 100 with 100 held")
	}
	b.give(40)
	b.give(60)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a file waited with the budget free")
	}
	if b.left != 100 || b.held != 0 {
		t.Fatalf("left %d held %d after every give, want 100 and 0", b.left, b.held)
	}
	var nilBudget *readBudget
	nilBudget.take(1 << 40)
	nilBudget.give(1 << 40)
}
