package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/redact"
	"github.com/mcptest/mcptest/live"
)

// ToolTestBlock is a tools: entry: one live tools/call on a declared server,
// checked by the case's expect: list and an optional latency budget.
type ToolTestBlock struct {
	Server string
	Tool   string
	Args   map[string]any
	// MaxDurationMS is the latency budget of the call; 0 means none.
	MaxDurationMS int64
	// MaxDurationPos is where max_duration_ms: is declared.
	MaxDurationPos diag.Pos
}

// ToolCallTimeout bounds starting the server, initializing and one
// tools/call of a tool test.
var ToolCallTimeout = live.DefaultTimeout

// toolTest reads a tools: entry. The expect: list is the short form (a list
// of assertions) or the long form {assertions: [...]}; its targets read the
// call's document: result (the CallToolResult as JSON: content, isError,
// structuredContent), duration_ms, server, tool and args.
func (b *builder) toolTest(ptr string, m map[string]any) {
	c := b.newCase(ptr, m, KindTool)
	t := &ToolTestBlock{}
	t.Tool, _ = m["tool"].(string)
	t.Server, _ = m["server"].(string)
	t.Args, _ = m["args"].(map[string]any)
	if v, ok := m["max_duration_ms"]; ok {
		switch n := v.(type) {
		case int:
			t.MaxDurationMS = int64(n)
		case int64:
			t.MaxDurationMS = n
		case float64:
			t.MaxDurationMS = int64(n)
		}
		t.MaxDurationPos = b.doc.at(ptr + "/max_duration_ms")
	}
	c.ToolTest = t
	switch {
	case t.Server == "" && len(b.suite.Servers) == 1:
		t.Server = b.suite.Servers[0].Name
	case t.Server == "":
		b.errorf(ptr, c.Pos, "tool test %q needs a `server:`: one of the servers `servers:` declares (%s)", c.Name, strings.Join(b.serverNames(), ", "))
	case !b.hasServer(t.Server):
		p := ptr + "/server"
		e := &diag.Error{Pos: b.doc.at(p), Pointer: p, Kind: "suite", Message: fmt.Sprintf("tool test %q names server %q, which `servers:` does not declare", c.Name, t.Server)}
		if sug := diag.Suggest(t.Server, b.serverNames()); sug != "" {
			e.Hint = "did you mean `" + sug + "`?"
		}
		b.errs = append(b.errs, e)
	}
	items, lptr := list(m["expect"]), ptr+"/expect"
	if long, ok := m["expect"].(map[string]any); ok {
		items, lptr = list(long["assertions"]), lptr+"/assertions"
	}
	b.expect(c, expectList{ptr: lptr, items: items, grammarOnly: true})
}

// runToolTest makes the test's one live call and evaluates its assertions
// and latency budget. A server that cannot be reached or a call the server
// refuses fails the case with an error finding.
func runToolTest(s *Suite, p casePlan, res *CaseResult) (*CaseResult, diag.List) {
	c := p.c
	t := c.ToolTest
	res.Runs = 1
	fail := func(format string, args ...any) (*CaseResult, diag.List) {
		res.Verdict = Fail
		res.Findings = append(res.Findings, Finding{Level: "error", Gate: "tools", Message: redact.String(fmt.Sprintf(format, args...))})
		return res, nil
	}
	var target live.Target
	for _, srv := range s.Servers {
		if srv.Name == t.Server {
			target = live.Target{Name: srv.Name, Command: srv.Command, Env: srv.Env, URL: srv.URL, BearerTokenEnv: srv.BearerTokenEnv, Dir: s.Dir}
		}
	}
	sess, err := p.live.session(target)
	if err != nil {
		return fail("could not connect to server %q: %v", t.Server, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ToolCallTimeout)
	defer cancel()
	args := t.Args
	if args == nil {
		args = map[string]any{}
	}
	start := time.Now()
	out, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: t.Tool, Arguments: args})
	elapsed := time.Since(start)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fail("tools/call %q on server %q did not answer within %s", t.Tool, t.Server, ToolCallTimeout)
		}
		return fail("tools/call %q on server %q failed: %v", t.Tool, t.Server, err)
	}
	result, err := jsonValue(out)
	if err != nil {
		return fail("tools/call %q on server %q: unreadable result: %v", t.Tool, t.Server, err)
	}
	argv, _ := jsonValue(args)
	doc := map[string]any{
		"result":      result,
		"duration_ms": float64(elapsed.Milliseconds()),
		"server":      t.Server,
		"tool":        t.Tool,
		"args":        argv,
	}
	failed := false
	for _, a := range c.Expect {
		actual, present := a.Target.Lookup(doc)
		r := evaluate(a, actual, present)
		failed = failed || !r.Passed
		res.Assertions = append(res.Assertions, r)
	}
	if t.MaxDurationMS > 0 {
		fl := Floor{Name: "max_duration_ms", Passed: elapsed.Milliseconds() <= t.MaxDurationMS,
			Message: fmt.Sprintf("the call answered within the %d ms budget", t.MaxDurationMS)}
		if !fl.Passed {
			fl.Message = fmt.Sprintf("%s: the call took %d ms, over the %d ms budget (max_duration_ms)", t.MaxDurationPos, elapsed.Milliseconds(), t.MaxDurationMS)
			failed = true
		}
		res.Floors = append(res.Floors, fl)
	}
	res.Verdict = Pass
	if failed {
		res.Verdict = Fail
	}
	return res, nil
}

// livePool keeps one session per server for the length of a run, so the
// tools: cases of a server share its process (and its state, as an agent's
// calls would). A server that failed to start is not retried.
type livePool struct {
	sessions map[string]*live.Session
	errs     map[string]error
	cancels  []context.CancelFunc
}

func (lp *livePool) session(t live.Target) (*live.Session, error) {
	if lp == nil {
		lp = &livePool{}
		defer lp.close()
	}
	if lp.sessions == nil {
		lp.sessions, lp.errs = map[string]*live.Session{}, map[string]error{}
	}
	if s, ok := lp.sessions[t.Name]; ok {
		return s, nil
	}
	if err, ok := lp.errs[t.Name]; ok {
		return nil, err
	}
	// The server process lives as long as ctx: until the pool closes.
	ctx, cancel := context.WithCancel(context.Background())
	lp.cancels = append(lp.cancels, cancel)
	connected := make(chan struct{})
	timer := time.AfterFunc(ToolCallTimeout, func() {
		select {
		case <-connected:
		default:
			cancel()
		}
	})
	s, err := live.Connect(ctx, t, os.Getenv)
	close(connected)
	timer.Stop()
	if err != nil {
		lp.errs[t.Name] = err
		return nil, err
	}
	lp.sessions[t.Name] = s
	return s, nil
}

func (lp *livePool) close() {
	for _, s := range lp.sessions {
		s.Close()
	}
	for _, c := range lp.cancels {
		c()
	}
	lp.sessions = nil
}

// jsonValue turns v into the generic JSON value assertions read (maps,
// slices, float64, string, bool, nil).
func jsonValue(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}
