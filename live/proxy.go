package live

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProxyCall is one tools/call the proxy forwarded, as the upstream server
// answered it.
type ProxyCall struct {
	// Session is the client session's id ("" over stdio), so a proxy
	// serving several clients over HTTP can tell their calls apart.
	Session string
	Tool    string
	// Arguments is the decoded JSON the client sent ({} when none).
	Arguments any
	// Result is the decoded CallToolResult; when the server refused the
	// call at the protocol level it is {"error": message} and IsError is
	// set.
	Result     any
	IsError    bool
	DurationMS float64
}

// ProxyServer returns an MCP server that serves the catalog of the open
// session upstream (its tools, resources, resource templates and prompts,
// with its server info and instructions; the protocol revisions up to the
// one the upstream negotiated and the capabilities of its it forwards,
// handshake.go) and forwards every tools/call,
// resources/read and prompts/get to it. onSession, when set, is called with
// a client session's id ("" over stdio) once it has initialized, before any
// call, so a session that calls nothing is seen too. onCall is called after
// each forwarded tools/call, in the order the answers came back; calls may
// run concurrently, so both must be safe for that.
//
// modern says whether the transport the proxy is served on serves the
// sessionless 2026-07-28 revision (stdio does; the SDK's stateful
// streamable HTTP handler does not): the proxy claims it only then.
func ProxyServer(upstream *Session, cat *Catalog, modern bool, onSession func(id string), onCall func(ProxyCall)) *mcp.Server {
	info := &mcp.Implementation{Name: "mcptest-record", Version: "v1"}
	if cat.ServerInfo != nil {
		info = cat.ServerInfo
	}
	// The proxy claims the capabilities of the upstream's it forwards, and
	// answers server/discover and negotiates initialize itself
	// (handshake.go).
	opts := &mcp.ServerOptions{Instructions: cat.Instructions, Capabilities: proxyCapabilities(cat)}
	if onSession != nil {
		opts.InitializedHandler = func(_ context.Context, req *mcp.InitializedRequest) { onSession(req.Session.ID()) }
	}
	s := mcp.NewServer(info, opts)
	s.AddReceivingMiddleware(handshakeMiddleware(cat, modern))
	for _, t := range cat.Tools {
		tool := *t
		if tool.InputSchema == nil {
			tool.InputSchema = map[string]any{"type": "object"}
		}
		s.AddTool(&tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args any = map[string]any{}
			raw := req.Params.Arguments
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &args); err != nil {
					args = string(raw)
				}
			} else {
				raw = json.RawMessage(`{}`)
			}
			start := time.Now()
			res, err := upstream.CallTool(ctx, &mcp.CallToolParams{Name: req.Params.Name, Arguments: raw, Meta: req.Params.Meta})
			call := ProxyCall{Session: req.Session.ID(), Tool: req.Params.Name, Arguments: args, DurationMS: float64(time.Since(start).Milliseconds())}
			if err != nil {
				call.IsError = true
				call.Result = map[string]any{"error": err.Error()}
			} else {
				call.IsError = res.IsError
				if data, merr := json.Marshal(res); merr == nil {
					_ = json.Unmarshal(data, &call.Result)
				}
			}
			if onCall != nil {
				onCall(call)
			}
			return res, err
		})
	}
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return upstream.ReadResource(ctx, req.Params)
	}
	for _, r := range cat.Resources {
		res := *r
		s.AddResource(&res, read)
	}
	for _, t := range cat.ResourceTemplates {
		tmpl := *t
		s.AddResourceTemplate(&tmpl, read)
	}
	for _, p := range cat.Prompts {
		pr := *p
		s.AddPrompt(&pr, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return upstream.GetPrompt(ctx, req.Params)
		})
	}
	return s
}
