package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fifo makes a named pipe in a temporary directory; its cleanup opens it
// for writing and closes it, so a reader blocked on it gets end of file.
func fifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(p, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return p
}

// TestRunRefusesUnreadableFiles: a suite or a cassette that names a pipe
// or a device is refused with exit 2 and a positioned error, before a byte
// is read; `mcptest run` used to block on a FIFO for ever (in the cache key
// and then in the reader) and to fill the memory from /dev/zero.
func TestRunRefusesUnreadableFiles(t *testing.T) {
	dir := t.TempDir()
	fifo(t, dir, "c.json")
	suite := filepath.Join(dir, "suite.yml")
	body := "agents:\n  - name: piped\n    cassette: c.json\n    expect:\n      - target: final_response\n        matcher: { contains: done }\n"
	if err := os.WriteFile(suite, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	type result struct {
		stderr string
		code   int
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--config", suite}, "/c.json: is a named pipe (FIFO), not a regular file [cassette]\n"},
		{[]string{"run", "--config", "/dev/null"}, "/dev/null: is a device, not a regular file [suite]\n"},
		{[]string{"validate", filepath.Join(dir, "c.json")}, "/c.json: is a named pipe (FIFO), not a regular file [cassette]\n"},
		{[]string{"validate", "/dev/null"}, "/dev/null: is a device, not a regular file [suite]\n"},
	} {
		done := make(chan result, 1)
		go func() {
			_, stderr, code := mcptest(t, nil, tt.args...)
			done <- result{stderr, code}
		}()
		select {
		case r := <-done:
			if r.code != ExitInput || !strings.HasSuffix(r.stderr, tt.want) {
				t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", tt.args, r.code, r.stderr, tt.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%v: still blocked after 5s", tt.args)
		}
	}
}
