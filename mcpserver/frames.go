package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxFrame bounds one JSON-RPC frame (one line) the front door reads: the
// SDK's own line limit.
const MaxFrame = mcp.DefaultMaxLineLength

// maxDepth bounds how deep a frame may nest. No verb's arguments come near
// it; the SDK refuses 1000 by ending the session.
const maxDepth = 512

// StdioTransport is the front door's transport over a reader and a writer
// (stdin and stdout): newline-delimited JSON-RPC, read by the front door
// itself frame by frame. A valid frame reaches the SDK as a message; any
// other is answered with the JSON-RPC error it deserves (-32700 when it is
// not JSON, -32600 when it is not a JSON-RPC 2.0 request or response, with
// id null when no valid id can be read) and the session goes on. A frame
// over MaxFrame bytes is discarded up to its newline and answered so. The
// SDK's own stdio transport ends the session on the first such line.
type StdioTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// MaxFrame bounds one frame in bytes; 0 is MaxFrame.
	MaxFrame int
}

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	limit := t.MaxFrame
	if limit <= 0 {
		limit = MaxFrame
	}
	c := &frameConn{in: t.Reader, out: t.Writer, incoming: make(chan msgOrErr), closed: make(chan struct{})}
	go c.readLoop(newFrameReader(t.Reader, limit))
	return c, nil
}

type msgOrErr struct {
	msg jsonrpc.Message
	err error
}

// frameConn is the mcp.Connection of a StdioTransport.
type frameConn struct {
	in  io.ReadCloser
	out io.WriteCloser

	writeMu  sync.Mutex
	incoming chan msgOrErr

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// readLoop reads frames until the stream ends: it answers the bad ones
// itself and hands the messages to Read.
func (c *frameConn) readLoop(fr *frameReader) {
	for {
		frame, over, err := fr.next()
		var msg jsonrpc.Message
		var reply []byte
		switch {
		case err != nil:
		case over:
			reply = errorFrame(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the line is over %d bytes, the limit of one JSON-RPC message; it was discarded up to its newline", fr.limit))
		default:
			msg, reply = checkFrame(frame)
		}
		if reply != nil {
			err = c.writeLine(reply)
		}
		if err == nil && msg == nil {
			continue
		}
		select {
		case c.incoming <- msgOrErr{msg, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements mcp.Connection.
func (c *frameConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case m := <-c.incoming:
		return m.msg, m.err
	}
}

// Write implements mcp.Connection.
func (c *frameConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode a JSON-RPC message: %w", err)
	}
	return c.writeLine(data)
}

// writeLine writes one frame and its newline, whole, between the SDK's
// answers.
func (c *frameConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close implements mcp.Connection.
func (c *frameConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.closeErr = errors.Join(c.in.Close(), c.out.Close())
	})
	return c.closeErr
}

// SessionID implements mcp.Connection: a stdio session has none.
func (c *frameConn) SessionID() string { return "" }

// frameReader splits a stream into newline-delimited frames.
type frameReader struct {
	r     *bufio.Reader
	limit int
}

func newFrameReader(r io.Reader, limit int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// next returns the next frame without its line ending, or over when the
// frame is longer than the limit (it is then read and dropped up to its
// newline, never held). At the end of the stream a last frame without a
// newline is returned, then io.EOF.
func (f *frameReader) next() (frame []byte, over bool, err error) {
	var buf []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !over {
			buf = append(buf, chunk...)
			if len(bytes.TrimSuffix(buf, []byte("\n"))) > f.limit {
				over, buf = true, nil
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil, errors.Is(err, io.EOF) && (over || len(buf) > 0):
			if over {
				return nil, true, nil
			}
			return bytes.TrimRight(buf, "\r\n"), false, nil
		default:
			return nil, false, err
		}
	}
}

// checkFrame reads one frame: a JSON-RPC 2.0 message the SDK can take, or
// the error frame that answers it. A blank line is neither: it is passed
// over.
func checkFrame(frame []byte) (jsonrpc.Message, []byte) {
	frame = bytes.TrimSpace(frame)
	if len(frame) == 0 {
		return nil, nil
	}
	if !json.Valid(frame) {
		var raw json.RawMessage
		why := "not JSON"
		if err := json.Unmarshal(frame, &raw); err != nil {
			why = err.Error()
		}
		return nil, errorFrame(nil, jsonrpc.CodeParseError, "parse error: the line is not one JSON value ("+clip(why, 200)+"); send one JSON-RPC 2.0 message per line")
	}
	fields, id, why := splitFrame(frame)
	if why != "" {
		return nil, errorFrame(id, jsonrpc.CodeInvalidRequest, "invalid request: "+why)
	}
	if depth(frame) > maxDepth {
		return nil, errorFrame(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the message nests deeper than %d levels", maxDepth))
	}
	if why := checkFields(fields, id != nil); why != "" {
		return nil, errorFrame(id, jsonrpc.CodeInvalidRequest, "invalid request: "+why)
	}
	msg, err := jsonrpc.DecodeMessage(frame)
	if err != nil {
		return nil, errorFrame(id, jsonrpc.CodeInvalidRequest, "invalid request: "+clip(err.Error(), 200))
	}
	return msg, nil
}

// integerID is an integer id the SDK keeps exactly: it reads an id as a
// float64, so at most 15 digits.
var integerID = lazyRegexp(`^(0|-?[1-9][0-9]{0,14})$`)

// splitFrame reads the members of a frame that is one JSON value: it must
// be an object with each key once. id is the frame's id when it is a valid
// one (a string or an integer), nil otherwise.
func splitFrame(frame []byte) (fields map[string]json.RawMessage, id json.RawMessage, why string) {
	switch frame[0] {
	case '{':
	case '[':
		return nil, nil, "a batch (a JSON array): the front door takes one JSON-RPC message per line, never a batch; send each message on its own line"
	default:
		return nil, nil, "a JSON-RPC message is an object {\"jsonrpc\": \"2.0\", \"id\", \"method\", \"params\"}"
	}
	dec := json.NewDecoder(bytes.NewReader(frame))
	fields = map[string]json.RawMessage{}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err.Error()
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err.Error()
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err.Error()
		}
		if _, dup := fields[key]; dup {
			return nil, nil, fmt.Sprintf("the key %q appears twice", clip(key, 40))
		}
		fields[key] = raw
	}
	raw, ok := fields["id"]
	switch {
	case !ok:
	case raw[0] == '"' || integerID().Match(raw):
		id = raw
	default:
		return fields, nil, fmt.Sprintf("id is %s: an id is a string or an integer (MCP forbids null)", clip(string(raw), 40))
	}
	return fields, id, ""
}

// checkFields checks the members the SDK reads: jsonrpc "2.0", a string
// method with structured params (a request or notification), or an id and
// one of result and error (a response).
func checkFields(fields map[string]json.RawMessage, hasID bool) string {
	if v := fields["jsonrpc"]; string(v) != `"2.0"` {
		if v == nil {
			return `no "jsonrpc" member: expected "jsonrpc": "2.0"`
		}
		return fmt.Sprintf(`"jsonrpc" is %s: expected "2.0"`, clip(string(v), 40))
	}
	if m, ok := fields["method"]; ok {
		if m[0] != '"' {
			return fmt.Sprintf(`"method" is %s: expected a string such as "tools/call"`, clip(string(m), 40))
		}
		if p, ok := fields["params"]; ok && p[0] != '{' && p[0] != '[' && string(p) != "null" {
			return fmt.Sprintf(`"params" is %s: expected an object`, clip(string(p), 40))
		}
		return ""
	}
	_, result := fields["result"]
	_, failure := fields["error"]
	switch {
	case !result && !failure:
		return `no "method": a request names its method, and a response carries "result" or "error"`
	case result && failure:
		return `a response carries "result" or "error", not both`
	case !hasID:
		return "a response without an id"
	}
	return ""
}

// depth is how deeply a valid JSON value nests its arrays and objects.
func depth(data []byte) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString && b == '"':
			inString = false
		case inString:
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			d++
			deepest = max(deepest, d)
		case b == '}' || b == ']':
			d--
		}
	}
	return deepest
}

// errorFrame is a JSON-RPC error response; a nil id is null.
func errorFrame(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return b
}

// lazyRegexp returns expr compiled on the first call, once: the package's
// expressions serve the commands that talk to servers and clients, and
// were compiled in the init of every process, a run's included.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
