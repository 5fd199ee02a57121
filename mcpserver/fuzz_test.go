package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/live"
)

// FuzzScaffold feeds arbitrary tool names and input schemas through the
// scaffolder: whatever a server advertises, the suite must validate as
// returned.
func FuzzScaffold(f *testing.F) {
	f.Add("echo", `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`, true)
	f.Add("delete_all", `{"type":"object","$defs":{"n":{"type":"integer","minimum":3}},"properties":{"n":{"$ref":"#/$defs/n"}},"required":["n"]}`, false)
	f.Add("we\"ird\n\u2028name", `{"allOf":[{"properties":{"a":{"enum":[1,"x",null]}},"required":["a"]}]}`, true)
	f.Add("x", `{"type":"object","properties":{"l":{"type":"array","minItems":2,"items":{"anyOf":[{"type":"null"},{"type":"number","exclusiveMinimum":0.5}]}}},"required":["l"]}`, true)
	f.Fuzz(func(t *testing.T, name, schema string, probe bool) {
		var s any
		if json.Unmarshal([]byte(schema), &s) != nil {
			return
		}
		if name == "" {
			return
		}
		cat := &live.Catalog{Tools: []*mcp.Tool{{Name: name, InputSchema: s, OutputSchema: s}, {Name: name + "_2", InputSchema: s}}}
		sc := ScaffoldSuite(cat, live.Target{Command: []string{"node", name}}, ScaffoldOptions{IncludeEdge: true, IncludeViolation: true, Probe: probe})
		if _, err := engine.ParseSuite("fuzz.yml", []byte(sc.Suite)); err != nil {
			t.Fatalf("the scaffolded suite does not validate: %v\n%s", err, sc.Suite)
		}
	})
}

// FuzzFrameReader feeds an arbitrary stream to a session over the front
// door's StdioTransport, then a ping: whatever came before, the ping is
// answered (the session goes on), every line written is a JSON-RPC 2.0
// message, and every frame is either passed on as a message or answered
// with a -32700 or -32600 error whose id is null or the frame's own.
func FuzzFrameReader(f *testing.F) {
	for _, bf := range badFrames {
		f.Add([]byte(bf.frame))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}` + "\n" + `{"jsonrpc":"2.0","id":"x","method":"nope","params":null}` + "\r\n"))
	srv := mcp.NewServer(&mcp.Implementation{Name: "fuzz", Version: "v1"}, nil)
	const limit = 64 << 10
	f.Fuzz(func(t *testing.T, stream []byte) {
		checkFrames(t, stream, limit)
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ss, err := srv.Connect(ctx, &StdioTransport{Reader: inR, Writer: outW, MaxFrame: limit}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		// Closed before the session: a handler still writing its answer
		// gets an error rather than waiting for a reader forever.
		defer inW.Close()
		defer outR.Close()
		go func() {
			_, _ = inW.Write(stream)
			_, _ = io.WriteString(inW, "\n"+`{"jsonrpc":"2.0","id":"fuzz-end","method":"ping"}`+"\n")
		}()
		answered := make(chan error, 1)
		go func() { answered <- readUntilEnd(outR, inW) }()
		select {
		case err := <-answered:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the ping after the stream was not answered within 10 s: the session ended or hangs")
		}
	})
}

// readUntilEnd reads the session's lines until the answer to the final
// ping, checking each is a JSON-RPC 2.0 message; a request of the server
// (roots/list, say) is answered with an error so it never waits.
func readUntilEnd(out io.Reader, in io.Writer) error {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
			return fmt.Errorf("the session wrote %q, not a JSON-RPC 2.0 message (%v)", sc.Text(), err)
		}
		if string(m.ID) == `"fuzz-end"` && m.Method == "" {
			return nil
		}
		if m.Method != "" && len(m.ID) > 0 {
			go func() {
				_, _ = fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`+"\n", m.ID)
			}()
		}
	}
	return fmt.Errorf("the session ended before answering the final ping (%v)", sc.Err())
}

// checkFrames splits the stream as the transport does and checks what
// checkFrame makes of each frame.
func checkFrames(t *testing.T, stream []byte, limit int) {
	fr := newFrameReader(bytes.NewReader(stream), limit)
	for {
		frame, over, err := fr.next()
		if err != nil {
			return
		}
		if over {
			continue
		}
		if len(frame) > limit {
			t.Fatalf("a frame of %d bytes passed the %d limit", len(frame), limit)
		}
		msg, reply := checkFrame(frame)
		switch {
		case msg != nil && reply != nil:
			t.Fatalf("%q: both a message and an error", frame)
		case msg == nil && reply == nil && len(bytes.TrimSpace(frame)) > 0:
			t.Fatalf("%q: neither a message nor an error", frame)
		case msg != nil:
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("%q: the message does not encode: %v", frame, err)
			}
		case reply != nil:
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(reply, &r); err != nil || r.JSONRPC != "2.0" || (r.Error.Code != -32700 && r.Error.Code != -32600) || r.Error.Message == "" {
				t.Fatalf("%q: error frame %s (%v)", frame, reply, err)
			}
			if string(r.ID) != "null" && !bytes.Contains(frame, r.ID) {
				t.Fatalf("%q: the error answers id %s, not the frame's", frame, r.ID)
			}
		}
	}
}

// workspacePathSeeds are names an agent may give for a file: outside by
// an absolute path, "..", a link, a glob through a link, or inside.
var workspacePathSeeds = []string{
	"/etc/passwd", "../outside/exists.json", "link/exists.json", "rel/missing.json", "link/exi*.json", "l*/exists.json",
	"link", "abs.json", "link/../link/x.json", "*.json", "*", "[i]nside.json", "inside.json", "alias.json", ".mcptest/runs/*",
	"a/../../outside/exists.json", `link\/exists.json`, "./link/./exists.json", "", ".", "fifo.json",
}

// FuzzWorkspacePath checks the front door's path gate against the real
// filesystem of a workspace with links leading out: every name it lets
// through (as a file to read or write, or as a cassette: of a suite,
// expanded the way the loader expands it) resolves inside the workspace.
func FuzzWorkspacePath(f *testing.F) {
	for _, p := range workspacePathSeeds {
		f.Add(p)
	}
	ws, _ := escapeWorkspace(f)
	realWS, err := filepath.EvalSymlinks(ws)
	if err != nil {
		f.Fatal(err)
	}
	s := &server{opt: Options{Root: ws}}
	root, err := s.openRoot()
	if err != nil {
		f.Fatal(err)
	}
	defer root.Close()
	within := func(t *testing.T, name, p string) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return // names nothing: nothing is read
		}
		if real != realWS && !strings.HasPrefix(real, realWS+string(filepath.Separator)) {
			t.Fatalf("%q was let through, and %s resolves to %s, outside the workspace", name, p, real)
		}
	}
	f.Fuzz(func(t *testing.T, name string) {
		if strings.ContainsRune(name, 0) {
			return
		}
		if rel, err := s.inside(root, name); err == nil {
			within(t, name, filepath.Join(ws, rel))
		}
		if s.checkSuiteFile(root, name) != nil {
			return
		}
		for _, m := range loaderMatches(ws, name) {
			within(t, name, m)
		}
	})
}

// loaderMatches expands a cassette: value as the suite loader does
// (engine.resolveCassettes): a file, a directory's *.json, else a glob.
func loaderMatches(dir, pattern string) []string {
	p := pattern
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, filepath.FromSlash(p))
	}
	if st, err := os.Stat(p); err == nil {
		if !st.IsDir() {
			return []string{p}
		}
		esc := strings.NewReplacer("*", `\*`, "?", `\?`, "[", `\[`).Replace(p)
		files, _ := filepath.Glob(filepath.Join(esc, "*.json"))
		return files
	}
	files, _ := filepath.Glob(p)
	return files
}
