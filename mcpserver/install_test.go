package mcpserver

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Install reads the agent config bounded (a FIFO is refused, never waited
// on) and writes it by rename, keeping its mode, through a link to the
// file it names.
func TestInstallBoundedAndByRename(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or inode numbers")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte(`{"mcpServers": {"github": {"command": "gh-mcp", "env": {"TOKEN": "x"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ".claude", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	if changed, err := Install(link, "/usr/bin/mcptest", false); err != nil || !changed {
		t.Fatalf("Install: %v %v", changed, err)
	}
	after, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) {
		t.Error("the config was rewritten in place, not by rename")
	}
	if after.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600 kept", after.Mode().Perm())
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(real); !strings.Contains(string(data), `"gh-mcp"`) || !strings.Contains(string(data), `"/usr/bin/mcptest"`) {
		t.Errorf("config:\n%s", data)
	}

	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Install(fifo, "/usr/bin/mcptest", false); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("a FIFO config: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Install hung on a FIFO")
	}
}
