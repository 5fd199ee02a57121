package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcptest/mcptest/live"
)

// NoServerError is a suite declaring no server of the name asked for.
type NoServerError struct {
	// Suite is the suite file; Names the servers it declares, in order.
	Suite string
	Names []string
}

func (e *NoServerError) Error() string {
	return fmt.Sprintf("%s declares no such server (it declares: %s)", e.Suite, strings.Join(e.Names, ", "))
}

// ServerTarget loads the suite file and returns the live target of its
// server name (Suite.Target), with timeout over the server's timeout:
// when timeout is positive. A suite that does not load is its positioned
// errors; one without the server is a *NoServerError.
func ServerTarget(suite, name string, timeout time.Duration) (live.Target, error) {
	s, err := LoadSuite(suite)
	if err != nil {
		return live.Target{}, err
	}
	t, ok := s.Target(name)
	if !ok {
		e := &NoServerError{Suite: suite}
		for _, srv := range s.Servers {
			e.Names = append(e.Names, srv.Name)
		}
		return t, e
	}
	if timeout > 0 {
		t.Timeout = timeout
	}
	return t, nil
}

// SetTimeout gives every server of the suite the timeout d, over its
// timeout: (mcptest run --timeout); 0 changes nothing.
func (s *Suite) SetTimeout(d time.Duration) {
	for i := range s.Servers {
		if d > 0 {
			s.Servers[i].Timeout = d
		}
	}
}
