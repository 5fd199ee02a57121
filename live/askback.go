package live

import (
	"context"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Asker answers the requests a server sends back to mcptest while it
// handles a call: elicitation/create (a question for the user) and
// sampling/createMessage (a completion from the client's model). A live
// test scripts both; see engine/askback.go.
type Asker interface {
	Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	Sample(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
}

// askSlot holds the Asker of the call in progress on a session. The
// client's handlers are fixed when it connects, and a session serves many
// tests in turn, so each test puts its script in the slot for its call.
type askSlot struct {
	mu    sync.Mutex
	asker Asker
}

func (s *askSlot) current() Asker {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asker
}

// errNoScript answers a request that came while no test had a script in
// the slot (between tests, or during the handshake).
var errNoScript = errors.New("mcptest has no scripted answer for this request: the test that made the call scripts none")

func (s *askSlot) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a := s.current()
	if a == nil {
		return nil, errNoScript
	}
	return a.Elicit(ctx, req.Params)
}

func (s *askSlot) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	a := s.current()
	if a == nil {
		return nil, errNoScript
	}
	return a.Sample(ctx, req.Params)
}

// SetAsker makes a answer the server's elicitation and sampling requests
// until the returned function is called. It is a no-op on a session that
// declared neither capability (Target.Elicitation, Target.Sampling).
func (s *Session) SetAsker(a Asker) (restore func()) {
	if s.ask == nil {
		return func() {}
	}
	s.ask.mu.Lock()
	prev := s.ask.asker
	s.ask.asker = a
	s.ask.mu.Unlock()
	return func() {
		s.ask.mu.Lock()
		s.ask.asker = prev
		s.ask.mu.Unlock()
	}
}
