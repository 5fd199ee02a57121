package live

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxPendingServerRequests is how many requests a server may have sent
// mcptest (elicitation, sampling, roots, ping) that mcptest has not yet
// answered. The client library queues every request it reads, without
// bound, for its one handler, so a server that pipelines thousands of
// large requests would grow mcptest's memory by all of them: past the
// bound, a request is read and dropped unanswered, and counted
// (Session.DroppedRequests). Reading never stops, so a server that writes
// without reading its answers cannot stall mcptest either (SECURITY.md,
// bounded work).
const MaxPendingServerRequests = 64

// boundedTransport puts that bound on a transport's connection; dropped
// counts the requests it dropped.
type boundedTransport struct {
	inner   mcp.Transport
	dropped *atomic.Int64
}

func (bt *boundedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := bt.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &boundedConn{Connection: conn, dropped: bt.dropped}, nil
}

// boundedConn counts the requests read from the server and not yet
// answered.
type boundedConn struct {
	mcp.Connection
	pending atomic.Int64
	dropped *atomic.Int64
}

func (c *boundedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		req, ok := msg.(*jsonrpc.Request)
		if err != nil || !ok || !req.IsCall() {
			return msg, err
		}
		if c.pending.Add(1) <= MaxPendingServerRequests {
			return msg, nil
		}
		c.pending.Add(-1)
		c.dropped.Add(1)
	}
}

// Write sends msg; an answer to the server's request stops counting as
// pending once it is written, so answers queued behind a server that does
// not read them still count.
func (c *boundedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.pending.Add(-1)
	}
	return err
}
