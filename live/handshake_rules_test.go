package live

import (
	"context"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProxyHandshakeRules: what the proxy claims over an upstream, rule
// by rule: an upstream older than every revision the SDK serves gets the
// oldest; a capability is claimed for a list the upstream serves even
// when its capabilities leave it out (resource templates alone, prompts);
// an upstream that claimed no capabilities gets none claimed; the
// upstream's instructions and server info are the discover's; an
// initialize asking a newer revision than the upstream's is negotiated
// down to the upstream's, not to the oldest.
func TestProxyHandshakeRules(t *testing.T) {
	all := mcp.SupportedProtocolVersions()
	if got := proxyVersions("2000-01-01", true); !reflect.DeepEqual(got, all[len(all)-1:]) {
		t.Errorf("an upstream older than every revision: %v, want the oldest %v", got, all[len(all)-1:])
	}
	caps := proxyCapabilities(&Catalog{Capabilities: &mcp.ServerCapabilities{},
		ResourceTemplates: []*mcp.ResourceTemplate{{Name: "t", URITemplate: "demo://{x}"}}, Prompts: []*mcp.Prompt{{Name: "p"}}})
	if caps.Resources == nil || caps.Prompts == nil || caps.Tools != nil {
		t.Errorf("resource templates and prompts served, no capability claimed: %+v", caps)
	}
	if caps := proxyCapabilities(&Catalog{Tools: []*mcp.Tool{{Name: "get-sum"}}}); !reflect.DeepEqual(caps, &mcp.ServerCapabilities{}) {
		t.Errorf("an upstream that claimed no capabilities: %+v, want none", caps)
	}
	info := &mcp.Implementation{Name: "up", Version: "1"}
	res := proxyDiscover(&Catalog{ProtocolVersion: all[len(all)-1], Instructions: "use get-sum", ServerInfo: info, Capabilities: &mcp.ServerCapabilities{}}, true)
	if res.Instructions != "use get-sum" || res.Meta[mcp.MetaKeyServerInfo] != info {
		t.Errorf("the discover: instructions %q, meta %v", res.Instructions, res.Meta)
	}
	if len(all) < 3 {
		t.Skipf("the SDK serves %d revisions: no revision lies between the newest and the oldest", len(all))
	}
	upstream := all[1]
	var asked string
	next := func(_ context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.InitializeParams); ok {
			asked = p.ProtocolVersion
		}
		return nil, nil
	}
	handler := handshakeMiddleware(&Catalog{ProtocolVersion: upstream, Capabilities: &mcp.ServerCapabilities{}}, true)(next)
	for _, v := range []string{"9999-12-31", all[0], upstream, all[len(all)-1]} {
		want := v
		if v > upstream {
			want = upstream
		}
		if _, err := handler(context.Background(), "initialize", &mcp.InitializeRequest{Params: &mcp.InitializeParams{ProtocolVersion: v}}); err != nil || asked != want {
			t.Errorf("initialize at %s over an upstream at %s: the session asked %s (%v), want %s", v, upstream, asked, err, want)
		}
	}
}

// TestStdioFrontDiscoverNotification: a server/discover that is a
// notification (no id) is not the proxy's to answer: it is kept, in
// order, for the session.
func TestStdioFrontDiscoverNotification(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	f, err := startFront(ctx, inR, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	go func() {
		_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","method":"server/discover","params":{}}`+"\n"+`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`+"\n")
	}()
	for _, want := range []string{"server/discover", "notifications/initialized"} {
		msg, err := f.Read(ctx)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok || req.Method != want || req.IsCall() {
			t.Fatalf("the session reads %#v (%v), want the notification %s", msg, err, want)
		}
	}
}
