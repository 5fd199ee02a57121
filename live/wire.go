package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Wire is a JSON-RPC connection to a live target with no MCP client on top:
// the conformance checks send initialize with the protocol revision a suite
// pins and read the server's answers as they were written, which a client
// session would negotiate away or reject before a check could see them.
// The transports are the SDK's.
type Wire struct {
	conn   mcp.Connection
	stderr *tailBuffer
	// probe sees an HTTP target's 401 or 403, so a refused call says
	// what to set.
	probe  *authProbe
	target Target
	next   int64
}

// WireError is a JSON-RPC error the server answered with.
type WireError struct {
	Code    int64
	Message string
}

func (e *WireError) Error() string {
	return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, oneLine(e.Message, 200))
}

// DialWire opens a JSON-RPC connection with a live target. version is sent
// as the Mcp-Protocol-Version header on every HTTP request, as a client
// that negotiated it would.
func DialWire(ctx context.Context, t Target, version string, getenv func(string) string) (*Wire, error) {
	if t.URL != "" {
		tr, probe := httpTransport(t, version, getenv)
		conn, err := tr.Connect(ctx)
		if err != nil {
			return nil, fmt.Errorf("connect to %s: %w", t.URL, err)
		}
		return &Wire{conn: conn, probe: probe, target: t}, nil
	}
	tr, stderr, err := commandTransport(ctx, t)
	if err != nil {
		return nil, err
	}
	conn, err := tr.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("start MCP server %q: %v", t, err)
	}
	return &Wire{conn: conn, stderr: stderr, target: t}, nil
}

// Call sends a request and waits for its response, skipping the
// notifications and server requests that arrive first. A JSON-RPC error
// answer comes back as a *WireError.
func (w *Wire) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	w.next++
	id, err := jsonrpc.MakeID(float64(w.next))
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if err := w.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		return nil, w.failed(ctx, method, err)
	}
	for {
		msg, err := w.conn.Read(ctx)
		if err != nil {
			return nil, w.failed(ctx, method, err)
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok || resp.ID != id {
			continue
		}
		if resp.Error != nil {
			var we *jsonrpc.Error
			if errors.As(resp.Error, &we) {
				return nil, &WireError{Code: we.Code, Message: we.Message}
			}
			return nil, &WireError{Message: resp.Error.Error()}
		}
		return resp.Result, nil
	}
}

// Limit is the target's timeout: how long one request may take.
func (w *Wire) Limit() time.Duration { return w.target.Limit() }

// Notify sends a notification.
func (w *Wire) Notify(ctx context.Context, method string, params any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := w.conn.Write(ctx, &jsonrpc.Request{Method: method, Params: raw}); err != nil {
		return w.failed(ctx, method, err)
	}
	return nil
}

// Close ends the connection (and a stdio server's process).
func (w *Wire) Close() error {
	return w.conn.Close()
}

func (w *Wire) failed(ctx context.Context, method string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: %w", method, timedOut(ctx, w.target, err))
	}
	if w.probe != nil {
		if st, challenge := w.probe.failure(); st != 0 {
			return &AuthError{Status: st, URL: w.target.URL, Challenge: challenge, EnvVar: w.target.BearerTokenEnv, TokenSet: w.probe.token != ""}
		}
	}
	msg := fmt.Sprintf("%s: %v", method, err)
	if w.stderr != nil {
		msg += stderrSays(w.stderr.String())
	}
	return errors.New(msg)
}
