package live

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// handshakeCatalogs are generated upstream catalogs: every protocol
// revision the SDK serves, and every subset of the capabilities the proxy
// forwards, with and without the lists behind them.
func handshakeCatalogs() []*Catalog {
	var out []*Catalog
	for _, rev := range mcp.SupportedProtocolVersions() {
		for mask := range 8 {
			caps := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Completions: &mcp.CompletionCapabilities{}}
			cat := &Catalog{ProtocolVersion: rev, ServerInfo: &mcp.Implementation{Name: "up-" + rev, Version: "1"}, Instructions: "use get-sum", Tools: []*mcp.Tool{}}
			if mask&1 != 0 {
				caps.Tools = &mcp.ToolCapabilities{ListChanged: true}
				cat.Tools = []*mcp.Tool{{Name: "get-sum", InputSchema: map[string]any{"type": "object"}}}
			}
			if mask&2 != 0 {
				caps.Resources = &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true}
				cat.Resources = []*mcp.Resource{{Name: "r", URI: "demo://r"}}
			}
			if mask&4 != 0 {
				caps.Prompts = &mcp.PromptCapabilities{ListChanged: true}
				cat.Prompts = []*mcp.Prompt{{Name: "p"}}
			}
			cat.Capabilities = caps
			out = append(out, cat)
		}
	}
	return out
}

// TestProxyClaimsOnlyUpstream holds the proxy's handshakes to what its
// upstream answered, over generated upstreams and every client revision:
// server/discover (before the upstream answered, and after) and
// initialize claim no revision newer than the upstream's and no
// capability it lacks (nor logging, completions, list changes or
// subscriptions, which the proxy does not forward), both claim the same
// capabilities, and a client that asks server/discover and then
// initializes on the same connection (as the AI SDK's @ai-sdk/mcp 2 does
// after its one-second timeout) gets its session.
func TestProxyClaimsOnlyUpstream(t *testing.T) {
	before := proxyDiscover(nil, true)
	for _, v := range before.SupportedVersions {
		if v >= modernRevision {
			t.Errorf("before the upstream answered, the proxy claims %s", v)
		}
	}
	if !reflect.DeepEqual(before.Capabilities, &mcp.ServerCapabilities{}) {
		t.Errorf("before the upstream answered, the proxy claims %+v", before.Capabilities)
	}
	for _, cat := range handshakeCatalogs() {
		d := proxyDiscover(cat, true)
		if http := proxyDiscover(cat, false); slices.ContainsFunc(http.SupportedVersions, func(v string) bool { return v >= modernRevision }) {
			t.Errorf("upstream %s: over the stateful HTTP handler the proxy claims %v", cat.ProtocolVersion, http.SupportedVersions)
		}
		if len(d.SupportedVersions) == 0 || d.SupportedVersions[0] != cat.ProtocolVersion {
			t.Errorf("upstream %s: discover claims %v, want the upstream's revision first", cat.ProtocolVersion, d.SupportedVersions)
		}
		for _, v := range d.SupportedVersions {
			if v > cat.ProtocolVersion {
				t.Errorf("upstream %s: discover claims %s", cat.ProtocolVersion, v)
			}
		}
		want := &mcp.ServerCapabilities{}
		if cat.Capabilities.Tools != nil {
			want.Tools = &mcp.ToolCapabilities{}
		}
		if cat.Capabilities.Resources != nil {
			want.Resources = &mcp.ResourceCapabilities{}
		}
		if cat.Capabilities.Prompts != nil {
			want.Prompts = &mcp.PromptCapabilities{}
		}
		if !reflect.DeepEqual(d.Capabilities, want) {
			t.Errorf("upstream %s %+v: discover claims %+v, want %+v", cat.ProtocolVersion, cat.Capabilities, d.Capabilities, want)
		}
		discoverThenInitialize(t, cat)
		for _, asked := range mcp.SupportedProtocolVersions() {
			init := proxyHandshake(t, cat, asked)
			if init.ProtocolVersion > cat.ProtocolVersion || init.ProtocolVersion > asked {
				t.Errorf("upstream %s, client %s: negotiated %s", cat.ProtocolVersion, asked, init.ProtocolVersion)
			}
			if !reflect.DeepEqual(init.Capabilities, want) {
				t.Errorf("upstream %s, client %s: the session claims %+v, discover %+v", cat.ProtocolVersion, asked, init.Capabilities, want)
			}
		}
	}
}

// proxyHandshake connects the Go SDK's client asking revision asked to the
// proxy over cat: a client of 2026-07-28 asks server/discover first and
// initializes on the same connection when the proxy claims no revision of
// its own. It returns what the session holds of the handshake.
func proxyHandshake(t *testing.T, cat *Catalog, asked string) *mcp.InitializeResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ProxyServer(nil, cat, true, nil, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: asked})
	if err != nil {
		t.Fatalf("upstream %s, client %s: %v", cat.ProtocolVersion, asked, err)
	}
	defer cs.Close()
	if cat.Capabilities.Tools != nil {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Errorf("upstream %s, client %s: tools/list: %v", cat.ProtocolVersion, asked, err)
		}
	}
	return cs.InitializeResult()
}

// discoverThenInitialize sends server/discover to the proxy over cat and,
// whatever it answered, initialize on the same connection, as a client
// does whose discover timed out: the session opens.
func discoverThenInitialize(t *testing.T, cat *Catalog) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ProxyServer(nil, cat, true, nil, nil).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i, req := range []struct{ method, params string }{
		{"server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}`},
		{"initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`},
	} {
		id, _ := jsonrpc.MakeID(float64(i + 1))
		if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: req.method, Params: json.RawMessage(req.params)}); err != nil {
			t.Fatal(err)
		}
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if resp, ok := msg.(*jsonrpc.Response); !ok || resp.Error != nil {
			t.Errorf("upstream %s: %s after server/discover: %+v", cat.ProtocolVersion, req.method, msg)
		}
	}
}

// TestStdioFrontDiscoverThenInitialize plays a client on the front's
// stdio before the proxy runs: server/discover is answered at once with
// the 2025 revisions only and no capability; the initialize sent after it
// waits, and once the proxy serves it opens the session (the SDK's own
// discover handler refused it as a duplicate); a second discover, after
// the upstream answered, claims the upstream's revision and capabilities.
func TestStdioFrontDiscoverThenInitialize(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f, err := startFront(ctx, inR, outW)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewReader(outR)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	read := func() map[string]any {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		return m
	}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	got := read()
	res, _ := got["result"].(map[string]any)
	versions, _ := json.Marshal(res["supportedVersions"])
	if !strings.Contains(string(versions), `"2025-11-25"`) || strings.Contains(string(versions), modernRevision) || !reflect.DeepEqual(res["capabilities"], map[string]any{}) {
		t.Fatalf("the discover before the upstream answered: %v", got)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	cats := handshakeCatalogs()
	cat := cats[len(cats)-1] // the oldest revision, every capability
	f.Ready(cat)
	done := make(chan error, 1)
	go func() { done <- f.Serve(ctx, ProxyServer(nil, cat, true, nil, nil)) }()
	got = read()
	res, _ = got["result"].(map[string]any)
	if res == nil || res["protocolVersion"] != cat.ProtocolVersion {
		t.Fatalf("the initialize after a discover: %v", got)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{` + meta + `}}`)
	got = read()
	res, _ = got["result"].(map[string]any)
	if vs, _ := res["supportedVersions"].([]any); len(vs) != 1 || vs[0] != cat.ProtocolVersion || !slices.Contains(mcp.SupportedProtocolVersions(), cat.ProtocolVersion) {
		t.Errorf("the discover after the upstream answered: %v", got)
	}
	if caps, _ := res["capabilities"].(map[string]any); len(caps) != 3 || caps["tools"] == nil || caps["resources"] == nil || caps["prompts"] == nil {
		t.Errorf("the discover after the upstream answered claims %v", res["capabilities"])
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}
