package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptest/mcptest/engine/diag"
)

// An inline suite of the front door resolves its paths against the
// workspace root; every other suite against its own directory.
func TestSuiteDir(t *testing.T) {
	for in, want := range map[string]string{
		"suite.yml":                         ".",
		"examples/quickstart/suite.yml":     "examples/quickstart",
		".mcptest/inline/01ABC.yml":         ".",
		"ws/.mcptest/inline/01ABC.yml":      "ws",
		"/abs/ws/.mcptest/inline/01ABC.yml": "/abs/ws",
		"ws/inline/suite.yml":               "ws/inline",
	} {
		if got := suiteDir(in); got != want {
			t.Errorf("suiteDir(%q) = %q, want %q", in, got, want)
		}
	}
}

// fifo makes a named pipe in a temporary directory. Its cleanup opens the
// pipe for writing and closes it, so a reader blocked on it (the bug a test
// looks for) gets end of file instead of hanging the test binary.
func fifo(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
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

// within runs f and fails the test when it has not returned after d.
func within[T any](t *testing.T, d time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
	}
	var zero T
	return zero
}

// loadError loads path and returns its only diag error, failing the test
// when there is anything else.
func loadError(t *testing.T, path string) *diag.Error {
	t.Helper()
	err := within(t, 5*time.Second, func() error { _, err := LoadSuite(path); return err })
	var l diag.List
	if !errors.As(err, &l) || len(l) != 1 {
		t.Fatalf("LoadSuite(%s) = %v, want one diag error", path, err)
	}
	return l[0]
}

// A suite path that names a pipe, a device or a file over the limit is
// refused from its stat, before a byte is read: a FIFO without a writer
// used to block the run forever, /dev/zero to fill the memory.
func TestLoadSuiteRefusesWhatItCannotRead(t *testing.T) {
	if e := loadError(t, fifo(t, "suite.yml")); !strings.HasSuffix(e.Error(), ": is a named pipe (FIFO), not a regular file [suite]") {
		t.Errorf("FIFO: %v", e)
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		if e := loadError(t, "/dev/null"); e.Error() != "/dev/null: is a device, not a regular file [suite]" {
			t.Errorf("device: %v", e)
		}
	}
	big := filepath.Join(t.TempDir(), "suite.yml")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 1536<<20); err != nil {
		t.Skip("no sparse files here:", err)
	}
	want := big + ": the file is 1.5 GiB, over the 8 MiB limit for a suite [suite]"
	if e := loadError(t, big); e.Error() != want {
		t.Errorf("sparse file:\n got %v\nwant %s", e, want)
	}
	if e := loadError(t, t.TempDir()); !strings.Contains(e.Message, "is a directory: expected a suite file such as") {
		t.Errorf("directory: %v", e)
	}
	if e := loadError(t, filepath.Join(t.TempDir(), "nope.yml")); !strings.Contains(e.Message, "no such file") {
		t.Errorf("missing: %v", e)
	}
}

// A file named as a suite that is none (a shadow file, a JSON key) is
// refused with errors that ask the printer not to echo its lines; a suite's
// own errors keep theirs.
func TestNotASuiteShowsNothingOfIt(t *testing.T) {
	for name, data := range map[string]string{
		"shadow":   "root:$6$Zk3salt$9hGfQhash:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n",
		"key file": `{"token": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"}`,
		"list":     "- a\n- b\n",
	} {
		_, err := ParseSuite("f.yml", []byte(data))
		var l diag.List
		if !errors.As(err, &l) || len(l) == 0 {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range l {
			if !e.HideSource || strings.Contains(e.Message, "ghp_") || strings.Contains(e.Message, "$6$") {
				t.Errorf("%s: %v (HideSource %v)", name, e, e.HideSource)
			}
		}
	}
	_, err := ParseSuite("f.yml", []byte("agents:\n  - name: x\n    cassete: c.json\n"))
	var l diag.List
	if !errors.As(err, &l) || l[0].HideSource {
		t.Errorf("a suite's error hides its source: %v", err)
	}
}
