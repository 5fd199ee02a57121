package cli

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal of cols columns and returns its
// terminal side.
func openPTY(t *testing.T, cols uint16) *os.File {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptm.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptm.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("ptsname: %v", e)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the terminal side: %v", err)
	}
	t.Cleanup(func() { pts.Close() })
	ws := struct{ rows, cols, x, y uint16 }{24, cols, 0, 0}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pts.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		t.Fatalf("set the window size: %v", e)
	}
	return pts
}

// TestProgressLiveReadsTheWidth: the live line on a terminal knows its
// columns (so it can cut a line before it wraps); on a buffer it does not.
func TestProgressLiveReadsTheWidth(t *testing.T) {
	pts := openPTY(t, 37)
	if p := NewProgress(pts, ProgressLive, 0); p.width != 37 {
		t.Errorf("a 37-column terminal: width %d", p.width)
	}
	if !IsTerminal(pts) {
		t.Error("the pseudo-terminal is not a terminal")
	}
}
