package live

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client that leaves (end of input) ends ServeStdio without an error,
// after the server answered what it was sent.
func TestServeStdioEndsWhenTheClientLeaves(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v1"}, nil)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
	var out bytes.Buffer
	if err := ServeStdio(context.Background(), s, in, &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	if !strings.Contains(out.String(), `"id":1`) || !strings.Contains(out.String(), `"serverInfo"`) {
		t.Errorf("no initialize result on the output: %q", out.String())
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
