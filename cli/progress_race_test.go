package cli

import (
	"io"
	"testing"
)

// TestProgressClearRightAfterUpdate: a run that ends as soon as it has
// shown its first status (Clear right after the first Update) must not
// bring down the goroutine that shows it again, whatever the scheduler
// does first; under the race detector it also holds that the pace is
// read under the lock.
func TestProgressClearRightAfterUpdate(t *testing.T) {
	for i := 0; i < 2000; i++ {
		p := NewProgress(io.Discard, ProgressLog, 0)
		p.Update(Status{})
		p.Clear()
	}
}
