package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes a tools/list result into typed tools, and refuses the
// whole list when one tool's annotation hint is not a boolean
// ("readOnlyHint": "yes"); its typed hints also cannot tell a hint the
// server left out from one it set to false. A live catalog is read as a
// catalog file is: the tools as the server wrote them are kept (RawTools,
// for the lint and the printed document), and the SDK is handed each tool
// with what it cannot decode left out (typedTool). toolsTap does this on
// the wire, below the SDK: on a stdio server's connection (tappedTransport)
// and in an HTTP target's round trips (authProbe).

// typedTool is a tool as the typed Tools hold it: the members that are
// null where the MCP schema allows them to be absent dropped (dropNulls,
// on t itself), and annotations the SDK cannot decode left out.
func typedTool(t map[string]any) map[string]any {
	dropNulls(t)
	cp := make(map[string]any, len(t))
	for k, v := range t {
		cp[k] = v
	}
	if a, has := t["annotations"]; has {
		var ann mcp.ToolAnnotations
		if b, err := json.Marshal(a); err != nil || json.Unmarshal(b, &ann) != nil {
			delete(cp, "annotations")
		}
	}
	return cp
}

// toolsTap sees the tools/list requests a session sends and rewrites their
// results: the tools as written are kept while the tap is on, the result
// passed on holds typedTool of each.
type toolsTap struct {
	mu      sync.Mutex
	pending map[string]bool
	on      bool
	raw     []map[string]any
}

// start begins keeping the tools of the results that arrive.
func (tp *toolsTap) start() {
	tp.mu.Lock()
	tp.on, tp.raw = true, nil
	tp.mu.Unlock()
}

// take stops keeping tools and returns those kept since start, in the
// order they arrived.
func (tp *toolsTap) take() []map[string]any {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	raw := tp.raw
	tp.on, tp.raw = false, nil
	return raw
}

// idKey is a JSON-RPC id as one string however it was decoded (1 and 1.0
// are one id).
func idKey(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// sent notes a request: a tools/list call's answer is rewritten.
func (tp *toolsTap) sent(method string, id any) {
	if method != "tools/list" || id == nil {
		return
	}
	tp.mu.Lock()
	if tp.pending == nil {
		tp.pending = map[string]bool{}
	}
	tp.pending[idKey(id)] = true
	tp.mu.Unlock()
}

// answers reports whether the response with this id answers a tools/list
// call, and forgets the call.
func (tp *toolsTap) answers(id any) bool {
	key := idKey(id)
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if !tp.pending[key] {
		return false
	}
	delete(tp.pending, key)
	return true
}

// result rewrites a tools/list result: its tools as written are kept (when
// the tap is on) and replaced by typedTool of each. A result that is not
// an object with a "tools" array is passed on as it came, for the SDK to
// refuse.
func (tp *toolsTap) result(res json.RawMessage) json.RawMessage {
	var r map[string]json.RawMessage
	var tools []map[string]any
	if json.Unmarshal(res, &r) != nil || json.Unmarshal(r["tools"], &tools) != nil {
		return res
	}
	typed := make([]any, len(tools))
	kept := make([]map[string]any, 0, len(tools))
	for i, t := range tools {
		if t == nil {
			continue
		}
		typed[i] = typedTool(t)
		kept = append(kept, t)
	}
	b, err := json.Marshal(typed)
	if err != nil {
		return res
	}
	r["tools"] = b
	out, err := json.Marshal(r)
	if err != nil {
		return res
	}
	tp.mu.Lock()
	if tp.on {
		tp.raw = append(tp.raw, kept...)
	}
	tp.mu.Unlock()
	return out
}

// message rewrites one JSON-RPC message as written on the wire: a response
// to a tools/list call gets its result rewritten.
func (tp *toolsTap) message(data []byte) []byte {
	var m map[string]json.RawMessage
	var id any
	if json.Unmarshal(data, &m) != nil || json.Unmarshal(m["id"], &id) != nil || id == nil {
		return data
	}
	// An error answer ends the call too.
	if !tp.answers(id) || m["result"] == nil {
		return data
	}
	m["result"] = tp.result(m["result"])
	out, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return out
}

// tappedTransport puts a toolsTap on a transport's connection.
type tappedTransport struct {
	inner mcp.Transport
	tap   *toolsTap
}

func (tt *tappedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := tt.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tappedConn{Connection: conn, tap: tt.tap}, nil
}

type tappedConn struct {
	mcp.Connection
	tap *toolsTap
}

func (c *tappedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.tap.sent(req.Method, req.ID.Raw())
	}
	return c.Connection.Write(ctx, msg)
}

func (c *tappedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	// An error answer ends the call too.
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && c.tap.answers(resp.ID.Raw()) && resp.Error == nil {
		resp.Result = c.tap.result(resp.Result)
	}
	return msg, err
}

// roundTrip is the tap on one HTTP exchange: a POST carrying a tools/list
// call gets the answer in its response rewritten, whether the server
// answers with JSON or with an event stream.
func (tp *toolsTap) roundTrip(r *http.Request, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	if r.Method != http.MethodPost || r.Body == nil || r.GetBody == nil {
		return send(r)
	}
	body, err := r.GetBody()
	if err != nil {
		return send(r)
	}
	var req struct {
		Method string `json:"method"`
		ID     any    `json:"id"`
	}
	err = json.NewDecoder(body).Decode(&req)
	body.Close()
	if err != nil || req.Method != "tools/list" {
		return send(r)
	}
	tp.sent(req.Method, req.ID)
	resp, err := send(r)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	switch {
	case strings.HasPrefix(ct, "application/json"):
		data, err := io.ReadAll(io.LimitReader(resp.Body, MaxCatalogBytes+1))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		data = tp.message(data)
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
		resp.Header.Del("Content-Length")
	case strings.HasPrefix(ct, "text/event-stream"):
		resp.Body = tp.events(resp.Body)
	}
	return resp, nil
}

// events rewrites an event stream as it is read: each data line that is
// a response to a tools/list call.
func (tp *toolsTap) events(body io.ReadCloser) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		defer body.Close()
		in := bufio.NewReader(body)
		for {
			line, err := in.ReadBytes('\n')
			if payload, ok := bytes.CutPrefix(line, []byte("data:")); ok && len(line) > 0 && line[len(line)-1] == '\n' {
				msg := tp.message(bytes.TrimSpace(payload))
				line = append(append([]byte("data: "), msg...), '\n')
			}
			if _, werr := pw.Write(line); werr != nil {
				return
			}
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return &pipeBody{PipeReader: pr, body: body}
}

// pipeBody is a rewritten response body; closing it closes the server's.
type pipeBody struct {
	*io.PipeReader
	body io.ReadCloser
}

func (p *pipeBody) Close() error {
	p.PipeReader.Close()
	return p.body.Close()
}
