package live

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio answers the client on the streams it is given, and a client
// that leaves (end of its input) ends it without an error.
func TestServeStdioEndsWhenTheClientLeaves(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), s, inR, outW) }()
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`+"\n")
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	if !strings.Contains(line, `"id":1`) || !strings.Contains(line, `"serverInfo"`) {
		t.Errorf("no initialize result on the output: %q", line)
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio after the client left: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not end when its input did")
	}
}

func TestStreamsKeepClosers(t *testing.T) {
	pr, pw := io.Pipe()
	r, w := Streams(pr, pw)
	if r != io.ReadCloser(pr) || w != io.WriteCloser(pw) {
		t.Error("Streams wrapped streams that close")
	}
	var buf bytes.Buffer
	_, w = Streams(strings.NewReader(""), &buf)
	if err := w.Close(); err != nil {
		t.Errorf("Close of a buffer: %v", err)
	}
}
