package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestEnvelopeReadsAreBounded: every command that reads a saved run
// envelope (report, report --compare, report merge, view)
// refuses a FIFO, a device or an oversized file from its stat, exit 2,
// instead of waiting on the pipe or reading /dev/zero until the limit.
func TestEnvelopeReadsAreBounded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or /dev/zero")
	}
	dir := t.TempDir()
	run := filepath.Join(dir, "run.json")
	if _, _, code := mcptest(t, nil, "run", "--config", "../../examples/quickstart/suite.yml", "--reporter", "json", "--output", run); code != 0 {
		t.Fatalf("run: exit %d", code)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := mkfifo(fifo); err != nil {
		t.Skip("mkfifo:", err)
	}
	sparse := filepath.Join(dir, "sparse.json")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(300 << 20); err != nil {
		t.Skip("no sparse files:", err)
	}
	f.Close()
	// report --compare reads both envelopes as streams, in flat memory,
	// each up to 16 GiB.
	huge := filepath.Join(dir, "huge.json")
	if f, err = os.Create(huge); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(17 << 30); err != nil {
		t.Skip("no sparse files:", err)
	}
	f.Close()
	for _, bad := range []struct{ path, says, compareSays, comparePath string }{
		{fifo, "named pipe", "named pipe", fifo}, {"/dev/zero", "a device", "a device", "/dev/zero"},
		{sparse, "over the 256 MiB limit", "over the 16 GiB limit", huge},
	} {
		for _, args := range [][]string{
			{"report", bad.path},
			{"report", run, "--compare", bad.comparePath},
			{"report", bad.comparePath, "--compare", run},
			{"report", "merge", run, bad.path},
			{"view", bad.path, "--snapshot", filepath.Join(dir, "snap.html"), "--no-serve"},
		} {
			says := bad.says
			if len(args) > 2 && args[2] == "--compare" {
				says = bad.compareSays
			}
			done := make(chan struct{})
			var stderr string
			var code int
			go func() {
				_, stderr, code = mcptest(t, nil, args...)
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("%v: still reading after 20 s", args)
			}
			if code != ExitInput || !strings.Contains(stderr, says) {
				t.Errorf("%v: exit %d, want %d with %q:\n%s", args, code, ExitInput, says, stderr)
			}
		}
	}
}
