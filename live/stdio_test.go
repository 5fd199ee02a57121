package live

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCloseSignalsAServerThatIgnoresEOF: a stdio server that keeps running
// after its stdin closes is signalled after the short exit grace, and
// Close returns once it is gone, not after seconds of waiting.
func TestCloseSignalsAServerThatIgnoresEOF(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in server is a POSIX shell script")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "signalled")
	script := `trap 'echo TERM > "$0"; exit 0' TERM; exec 0<&-; while :; do sleep 0.02; done`
	w, err := DialWire(context.Background(), Target{Command: []string{"sh", "-c", script, marker}}, "2025-11-25", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the shell install its trap
	start := time.Now()
	w.Close()
	took := time.Since(start)
	data, _ := os.ReadFile(marker)
	if strings.TrimSpace(string(data)) != "TERM" {
		t.Errorf("the server was not sent SIGTERM (marker %q)", data)
	}
	// The old close waited 2 s before signalling; the grace is 20 ms.
	if took > time.Second {
		t.Errorf("Close took %s; want the exit grace (%s) and the signal's delivery", took, exitGrace)
	}
}

// TestCloseClosesStdinFirst: closing a session first closes the server's
// stdin, so a server that exits at end of input does so on its own. (Had
// it been signalled before its input ended, it would not see EOF: the
// trap does not exit, and the marker would hold TERM alone.)
func TestCloseClosesStdinFirst(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in server is a POSIX shell script")
	}
	marker := filepath.Join(t.TempDir(), "seen")
	script := `trap 'echo TERM >> "$0"' TERM; cat >/dev/null; echo EOF >> "$0"`
	w, err := DialWire(context.Background(), Target{Command: []string{"sh", "-c", script, marker}}, "2025-11-25", os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	w.Close()
	if data, _ := os.ReadFile(marker); !strings.Contains(string(data), "EOF") {
		t.Errorf("marker %q; want the server to see the end of its input", data)
	}
}

// TestRootsAreTheWorkspace: a stdio server that asks for roots gets one,
// the target's directory (a suite's), or the working directory.
func TestRootsAreTheWorkspace(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ dir, want string }{{dir, dir}, {"", wd}} {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		s, err := Connect(ctx, Target{Command: []string{bin}, Dir: tc.dir}, os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "get-roots-list", Arguments: map[string]any{}})
		s.Close()
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		text, _ := json.Marshal(res.Content)
		if want := "URI: " + rootURI(tc.want); !strings.Contains(string(text), want) {
			t.Errorf("Dir %q: get-roots-list answered %.300s; want %q", tc.dir, text, want)
		}
	}
}

// TestTargetTimeout: a server that never answers initialize fails the
// connect after the target's timeout, and the message names it.
func TestTargetTimeout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in server is a POSIX shell script")
	}
	start := time.Now()
	_, err := Load(context.Background(), Target{Command: []string{"sh", "-c", "exec sleep 30"}, Timeout: 300 * time.Millisecond}, os.Getenv)
	if err == nil || !strings.Contains(err.Error(), "did not answer within 300ms") || !strings.Contains(err.Error(), "--timeout") {
		t.Fatalf("err = %v; want the timeout named, with how to raise it", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Load took %s with a 300ms timeout", took)
	}
}
