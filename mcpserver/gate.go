package mcpserver

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/internal/safefile"

	"github.com/mcptest/mcptest/internal/redact"
)

// declaredFile is the workspace suite whose servers: a front door started
// without --enable-writes may reach.
const declaredFile = "mcptest.yml"

// declared returns the servers the workspace's mcptest.yml declares, or
// why there are none: the file is read through the workspace root, bounded
// (a FIFO or an oversized file is refused, never waited on).
func (s *server) declared() ([]engine.Server, string) {
	root, err := s.openRoot()
	if err != nil {
		return nil, "the workspace cannot be opened: " + oneLine(err.Error())
	}
	defer root.Close()
	data, err := safefile.ReadFileIn(root, declaredFile, engine.MaxSuiteBytes)
	if err != nil {
		if isNotExist(err) {
			return nil, "there is no such file"
		}
		return nil, "it could not be read: " + oneLine(err.Error())
	}
	suite, err := engine.ParseSuite(filepath.Join(s.opt.Root, declaredFile), data)
	if err != nil {
		return nil, "it could not be read: " + oneLine(err.Error())
	}
	return suite.Servers, "it declares no such server"
}

// allowCommand is the command gate: writes enabled, or the exact argv
// declared under servers: in the workspace's mcptest.yml, with no env or
// exactly the declared one (an env such as NODE_OPTIONS or LD_PRELOAD would
// repurpose a declared server as surely as another flag).
func (s *server) allowCommand(argv []string, env map[string]string) error {
	if s.opt.EnableWrites {
		return nil
	}
	servers, why := s.declared()
	for _, srv := range servers {
		if !slices.Equal(srv.Command, argv) {
			continue
		}
		if len(env) == 0 || maps.Equal(srv.Env, env) {
			return nil
		}
		why = "it declares this argv with another env; give no env, or exactly the declared one"
	}
	return fmt.Errorf("command target %q refused: a command runs only when the front door was started with `mcptest mcp-server --enable-writes`, or when this exact argv is declared under servers: in the workspace's mcptest.yml (%s: %s)", redact.Join(argv), filepath.Join(s.opt.Root, declaredFile), why)
}

// allowURL is the URL gate, the command gate's twin: writes enabled, or the
// exact url declared under servers: in the workspace's mcptest.yml, with no
// bearer_token_env or exactly the declared one. The url is compared as a
// string, byte for byte: a trailing slash, another case or a userinfo part
// (http://declared@elsewhere/) is another url. So the front door never
// sends a credential from its environment to a url the operator did not
// declare with it, and never reaches an undeclared url at all.
func (s *server) allowURL(url, tokenEnv string) error {
	if s.opt.EnableWrites {
		return nil
	}
	servers, why := s.declared()
	for _, srv := range servers {
		if srv.URL == "" || srv.URL != url {
			continue
		}
		if tokenEnv == "" || tokenEnv == srv.BearerTokenEnv {
			return nil
		}
		if srv.BearerTokenEnv == "" {
			why = "it declares this url with no bearer_token_env; give none"
		} else {
			why = fmt.Sprintf("it declares this url with bearer_token_env %q; give that one, or none", srv.BearerTokenEnv)
		}
	}
	what := fmt.Sprintf("url target %q", url)
	if tokenEnv != "" {
		what += fmt.Sprintf(" with bearer_token_env %q", tokenEnv)
	}
	return fmt.Errorf("%s refused: a url is reached (and a token from the front door's environment sent to it) only when the front door was started with `mcptest mcp-server --enable-writes`, or when this exact url is declared under servers: in the workspace's mcptest.yml, with this bearer_token_env (%s: %s)", what, filepath.Join(s.opt.Root, declaredFile), why)
}
