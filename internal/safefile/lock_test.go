//go:build unix

package safefile

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockDir: a directory locked by another holder makes LockDir wait,
// tell it once, and fail at its bound with a message naming the directory;
// once the holder releases it, LockDir takes it.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	holder, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	waits := 0
	if _, err := LockDir(dir, 100*time.Millisecond, func() { waits++ }); err == nil || !strings.Contains(err.Error(), dir+": another process held its lock for 100ms") {
		t.Errorf("LockDir on a held directory: %v, want it to fail naming %s", err, dir)
	}
	if waits != 1 {
		t.Errorf("waiting was called %d times, want once", waits)
	}
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	unlock, err := LockDir(dir, time.Second, func() { t.Error("waited for a free directory") })
	if err != nil {
		t.Fatalf("LockDir on a free directory: %v", err)
	}
	// Held now: the holder's own non-blocking attempt fails until unlock.
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != syscall.EWOULDBLOCK {
		t.Errorf("the directory is not locked after LockDir: %v", err)
	}
	unlock()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Errorf("the directory is still locked after unlock: %v", err)
	}
	if _, err := LockDir(dir+"/missing", time.Second, nil); err == nil {
		t.Error("LockDir of a missing directory succeeded")
	}
}
