package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptest/mcptest/engine/diag"
)

// TestSecretFileNamedAsCassette: a suite that names a file which is no
// recording (a key file, a registry's config.json, /etc/shadow) as its
// cassette is refused with exit 2 and the position of the problem, and
// prints nothing of the file's content.
func TestSecretFileNamedAsCassette(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	for name, content := range map[string]string{
		"secret":      "SECRET_API_KEY=" + secret + " and more\nline two\n",
		"secret.json": "SECRET_API_KEY=" + secret + "\n",
		"creds.yml":   "api_key: " + secret + "\nregion: eu\n",
		"config.json": `{"auths": {"ghcr.io": {"auth": "` + secret + `"}}}` + "\n",
		"shadow":      "root:$6$" + secret + ":20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, name), []byte(content))
			suite := filepath.Join(dir, "suite.yml")
			write(t, suite, []byte("agents:\n  - name: t\n    prompt: hi\n    cassette: "+name+"\n    expect:\n      - calls: { \">=\": 1 }\n"))
			stdout, stderr, code := mcptest(t, nil, "run", "--config", suite)
			if code != ExitInput {
				t.Fatalf("exit %d, want 2\n%s%s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, filepath.Join(dir, name)+":1:1: ") {
				t.Errorf("the error does not name the file's position:\n%s", stderr)
			}
			if strings.Contains(stdout+stderr, secret[8:]) {
				t.Errorf("the file's content was printed:\n%s", stderr)
			}
		})
	}
}

// TestCaretStillShown: a recording that parsed keeps its source line and
// caret under an error inside it, and a suite under an error about it.
func TestCaretStillShown(t *testing.T) {
	_, stderr, _ := mcptest(t, nil, "run", "--config", suiteCorpus+"err/malformed-cassette.yml")
	if !strings.Contains(stderr, `"final_respone": "21C"}`+"\n") {
		t.Errorf("no source line under an error in a recording:\n%s", stderr)
	}
	_, stderr, _ = mcptest(t, nil, "run", "--config", suiteCorpus+"err/no-implicit-cassette.yml")
	if !strings.Contains(stderr, "    - name: Weather Selection (EU)\n      ^\n") {
		t.Errorf("no source line under an error about a suite's case:\n%s", stderr)
	}
}

// TestCaretPrinterFIFO: the caret printer shows lines only from the
// bytes an error carries and never opens the file it points at, so an
// error naming a FIFO cannot block it.
func TestCaretPrinterFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	var stderr bytes.Buffer
	c := &Command{Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(string) string { return "" }}
	done := make(chan struct{})
	go func() {
		c.printDiag(diag.List{{Pos: diag.Pos{File: fifo, Line: 1, Col: 1}, Pointer: "/x", Message: "m"}})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		f, _ := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if f != nil {
			f.Close()
		}
		t.Fatal("the caret printer blocked on a FIFO")
	}
	if stderr.String() != fifo+":1:1: m\n" {
		t.Errorf("stderr %q", stderr.String())
	}
}

// TestErrorMessagesEscaped: an error message carrying text from the
// command line, a file or an API answer shows control characters as
// escapes, so it cannot clear or recolour the terminal; the line breaks
// of a message written over several lines are kept.
func TestErrorMessagesEscaped(t *testing.T) {
	_, stderr, code := mcptest(t, nil, "report", "x\x1b[2J\x1b]0;title\x07.json")
	if code != ExitInput || stderr != "mcptest: x\\u001b[2J\\u001b]0;title\\u0007.json: no such file\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	_, stderr, _ = mcptest(t, nil, "scenario", "walk")
	if !strings.Contains(stderr, "got \"walk\"\nusage: ") {
		t.Errorf("stderr %q", stderr)
	}
}
