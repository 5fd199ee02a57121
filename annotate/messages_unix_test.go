//go:build !windows

package annotate

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
)

// TestPrintDiagFIFO: the error printer shows lines only from the bytes an
// error carries and never opens the file it points at, so an error naming
// a FIFO cannot block it.
func TestPrintDiagFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	var stderr bytes.Buffer
	done := make(chan struct{})
	go func() {
		PrintDiag(&stderr, diag.List{{Pos: diag.Pos{File: fifo, Line: 1, Col: 1}, Pointer: "/x", Message: "m"}}, false)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		f, _ := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if f != nil {
			f.Close()
		}
		t.Fatal("the error printer blocked on a FIFO")
	}
	if stderr.String() != fifo+":1:1: m\n" {
		t.Errorf("stderr %q", stderr.String())
	}
}
