package live

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Streams is a command's standard input and output as a transport needs
// them: each with a Close that does nothing where the stream has none.
func Streams(in io.Reader, out io.Writer) (io.ReadCloser, io.WriteCloser) {
	rc, _ := in.(io.ReadCloser)
	if rc == nil {
		rc = io.NopCloser(in)
	}
	wc, _ := out.(io.WriteCloser)
	if wc == nil {
		wc = nopWriteCloser{out}
	}
	return rc, wc
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// ServeStdio serves s (the recording proxy, the mock) to one client on in
// and out until the client leaves or ctx is cancelled; neither is an
// error.
func ServeStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer) error {
	r, w := Streams(in, out)
	err := s.Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
		return err
	}
	return nil
}
