//go:build unix

package safefile

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// LockDir takes an exclusive advisory lock on the directory dir (flock on
// the directory itself, so no lock file is left in it) and returns the
// function that releases it. Processes that read a file of dir, change it
// and write it back by rename hold it around the three steps, so two of
// them never both start from the same content and lose one's change. It
// waits for a holder at most wait, then fails, calling waiting (when not
// nil) once when it starts to wait; the lock ends with its holder's
// process, however it ends.
func LockDir(dir string, wait time.Duration, waiting func()) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if err != syscall.EWOULDBLOCK || time.Now().After(deadline) {
			f.Close()
			if err == syscall.EWOULDBLOCK {
				return nil, fmt.Errorf("%s: another process held its lock for %s; expected it released once that process wrote its file", dir, wait)
			}
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if waiting != nil {
			waiting()
			waiting = nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}
