package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// pipeDoor is a front door served in process over pipes, through the
// StdioTransport the binary uses.
type pipeDoor struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startPipeDoor(t *testing.T, maxFrame int) *pipeDoor {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	d := &pipeDoor{t: t, in: inW, lines: make(chan string, 16), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		d.done <- Serve(ctx, Options{Root: t.TempDir(), Version: "test"}, &StdioTransport{Reader: inR, Writer: outW, MaxFrame: maxFrame})
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		close(d.lines)
	}()
	t.Cleanup(func() { cancel(); inW.Close() })
	return d
}

func (d *pipeDoor) send(frame string) {
	d.t.Helper()
	go func() { _, _ = io.WriteString(d.in, frame) }()
}

// recv is the next answer, decoded; it fails the test when the session
// ended or nothing comes within 10 s.
func (d *pipeDoor) recv() map[string]any {
	d.t.Helper()
	select {
	case l, ok := <-d.lines:
		if !ok {
			d.t.Fatalf("the front door ended the session: %v", <-d.done)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			d.t.Fatalf("answer %q is not JSON: %v", l, err)
		}
		return m
	case <-time.After(10 * time.Second):
		d.t.Fatal("no answer within 10 s")
	}
	return nil
}

// badFrames are lines an untrusted agent may send, with the error each
// deserves: its code and the id it answers (nil: null). code 0 means the
// frame is passed on and needs no answer of its own.
var badFrames = []struct {
	name  string
	frame string
	code  float64
	id    any
}{
	{"garbage", "garbage\n", -32700, nil},
	{"truncated", `{"jsonrpc":"2.0","id":5,"method":"tools/list"` + "\n", -32700, nil},
	{"empty batch", "[]\n", -32600, nil},
	{"batch", `[{"jsonrpc":"2.0","id":7,"method":"ping"}]` + "\n", -32600, nil},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":8,"method":"ping"}` + "\n", -32600, float64(8)},
	{"no jsonrpc", `{"id":"eight","method":"ping"}` + "\n", -32600, "eight"},
	{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n", -32600, nil},
	{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n", -32600, nil},
	{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n", -32600, nil},
	{"huge id", `{"jsonrpc":"2.0","id":123456789012345678901,"method":"ping"}` + "\n", -32600, nil},
	{"duplicate id", `{"jsonrpc":"2.0","id":12,"id":13,"method":"ping"}` + "\n", -32600, nil},
	{"numeric method", `{"jsonrpc":"2.0","id":9,"method":5}` + "\n", -32600, float64(9)},
	{"string params", `{"jsonrpc":"2.0","id":14,"method":"ping","params":"x"}` + "\n", -32600, float64(14)},
	{"neither request nor response", `{"jsonrpc":"2.0","id":15}` + "\n", -32600, float64(15)},
	{"result and error", `{"jsonrpc":"2.0","id":15,"result":{},"error":{"code":1,"message":"x"}}` + "\n", -32600, float64(15)},
	{"malformed error", `{"jsonrpc":"2.0","id":15,"error":"x"}` + "\n", -32600, float64(15)},
	{"scalar", "42\n", -32600, nil},
	{"string", `"tools/list"` + "\n", -32600, nil},
	{"NUL", "\x00\n", -32700, nil},
	{"NUL in a string", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"pi\x00ng\"}\n", -32700, nil},
	{"100k-deep params", `{"jsonrpc":"2.0","id":11,"method":"ping","params":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}\n", -32700, nil},
	{"600-deep params", `{"jsonrpc":"2.0","id":11,"method":"ping","params":{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + "}}\n", -32600, float64(11)},
	{"over the limit", `{"jsonrpc":"2.0","id":16,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + "\"}}\n", -32600, nil},
	{"a response to nothing", `{"jsonrpc":"2.0","id":"nobody","result":{}}` + "\n", 0, nil},
	{"blank line", "  \r\n", 0, nil},
}

// Each malformed frame is answered with its JSON-RPC error, and the next
// valid request is answered too: the session goes on.
func TestMalformedFramesKeepTheSession(t *testing.T) {
	for _, bf := range badFrames {
		t.Run(bf.name, func(t *testing.T) {
			limit := 0
			if bf.name == "over the limit" {
				limit = 4096
			}
			d := startPipeDoor(t, limit)
			d.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
			if m := d.recv(); m["id"] != float64(1) || m["result"] == nil {
				t.Fatalf("initialize: %v", m)
			}
			d.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
			d.send(bf.frame)
			if bf.code != 0 {
				m := d.recv()
				e, _ := m["error"].(map[string]any)
				if m["jsonrpc"] != "2.0" || e == nil || e["code"] != bf.code || m["id"] != bf.id {
					t.Errorf("answer %v; want error %v with id %v", m, bf.code, bf.id)
				}
				if _, ok := m["id"]; !ok {
					t.Errorf("answer %v has no id member; want id null", m)
				}
			}
			d.send(`{"jsonrpc":"2.0","id":"after","method":"tools/list"}` + "\r\n")
			if m := d.recv(); m["id"] != "after" || m["result"] == nil {
				t.Errorf("the request after the bad frame: %v", m)
			}
		})
	}
}
