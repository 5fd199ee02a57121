package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/mcptest/mcptest/report"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/internal/yamlpos"
	"github.com/mcptest/mcptest/live"
)

// ToolTestBlock is a tools: entry: one live tools/call, resources/read or
// prompts/get on a declared server, checked by the case's expect: list and
// an optional latency budget.
type ToolTestBlock struct {
	Server string
	// Exactly one of Tool (tools/call), Resource (resources/read, a URI)
	// and Prompt (prompts/get) is set.
	Tool     string
	Resource string
	Prompt   string
	Args     map[string]any
	// MaxDurationMS is the latency budget of the call; 0 means none.
	MaxDurationMS int64
	// MaxDurationPos is where max_duration_ms: is declared.
	MaxDurationPos diag.Pos
	// Elicitation and Sampling script mcptest's answers to the requests
	// the server sends back during the call (askback.go).
	Elicitation, Sampling []AskAnswer
}

// toolTest reads a tools: entry. The expect: list is the short form (a list
// of assertions) or the long form {assertions: [...]}; its targets read the
// call's document: result (the CallToolResult as JSON: content, isError,
// structuredContent; the ReadResourceResult: contents; or the
// GetPromptResult: description, messages), duration_ms, server, tool,
// resource, prompt and args.
func (b *builder) toolTest(ptr string, m map[string]any) {
	c := b.newCase(ptr, m, report.KindTool)
	t := &ToolTestBlock{}
	t.Tool, _ = m["tool"].(string)
	t.Resource, _ = m["resource"].(string)
	t.Prompt, _ = m["prompt"].(string)
	t.Server, _ = m["server"].(string)
	t.Args, _ = m["args"].(map[string]any)
	var set []string
	for _, k := range []string{"tool", "resource", "prompt"} {
		if _, ok := m[k]; ok {
			set = append(set, k)
		}
	}
	switch {
	case len(set) == 0 && !b.broken(ptr):
		b.errorf(ptr, c.Pos, "test %q calls nothing: give `tool:` (tools/call), `resource:` (resources/read) or `prompt:` (prompts/get)", c.Name)
	case len(set) > 1:
		b.errorf(ptr+"/"+set[1], b.doc.KeyAt(ptr+"/"+set[1]), "test %q has both `%s:` and `%s:`: a test makes one call; split it into two tests", c.Name, set[0], set[1])
	case t.Resource != "" && m["args"] != nil:
		b.errorf(ptr+"/args", b.doc.KeyAt(ptr+"/args"), "test %q reads a resource, which takes no `args:`", c.Name)
	case t.Prompt != "":
		for _, k := range sortedKeys(t.Args) {
			if _, ok := t.Args[k].(string); !ok {
				p := ptr + "/args/" + yamlpos.EscapePointer(k)
				b.errorf(p, b.doc.At(p), "prompt argument %q must be a string: prompts/get takes string arguments", k)
			}
		}
	}
	if v, ok := m["max_duration_ms"]; ok {
		if n, ok := b.integer(ptr+"/max_duration_ms", v, 0, maxExactInteger); ok {
			t.MaxDurationMS = n
		}
		t.MaxDurationPos = b.doc.At(ptr + "/max_duration_ms")
	}
	b.askScript(ptr, t, m)
	c.ToolTest = t
	b.caseServer(ptr, c, &t.Server, "tool test")
	b.liveExpect(ptr, c, m)
}

// runToolTest makes the test's one live call and evaluates its assertions
// and latency budget. A server that cannot be reached or a call the server
// refuses fails the case with an error finding.
func runToolTest(s *Suite, p casePlan, res *report.CaseResult) (*report.CaseResult, diag.List) {
	c := p.c
	t := c.ToolTest
	res.Runs = 1
	fail := func(format string, args ...any) (*report.CaseResult, diag.List) {
		res.Verdict = report.Fail
		res.Findings = append(res.Findings, report.Finding{Level: "error", Gate: "tools", Message: redact.String(fmt.Sprintf(format, args...))})
		return res, nil
	}
	target, _ := s.Target(t.Server)
	// The session of the server's tools: tests declares the capabilities
	// any of them scripts; every other connection is a plain client's.
	target.Elicitation, target.Sampling = s.asksBack(t.Server)
	sess, err := p.live.session(target)
	if err != nil {
		return fail("could not connect to server %q: %v", t.Server, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), target.Limit())
	defer cancel()
	args := t.Args
	if args == nil {
		args = map[string]any{}
	}
	method, what := "tools/call", t.Tool
	var call func() (any, error)
	switch {
	case t.Resource != "":
		method, what = "resources/read", t.Resource
		call = func() (any, error) { return sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: t.Resource}) }
	case t.Prompt != "":
		method, what = "prompts/get", t.Prompt
		pargs := map[string]string{}
		for k, v := range args {
			pargs[k], _ = v.(string)
		}
		call = func() (any, error) {
			return sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: t.Prompt, Arguments: pargs})
		}
	default:
		call = func() (any, error) { return sess.CallTool(ctx, &mcp.CallToolParams{Name: t.Tool, Arguments: args}) }
	}
	if t.Tool != "" {
		res.Tools = []report.ToolUse{{Server: t.Server, Tool: t.Tool, Calls: 1}}
	}
	asks := newAskRecorder(t)
	restore := sess.SetAsker(asks)
	dropped := sess.DroppedRequests()
	start := time.Now()
	out, err := call()
	elapsed := time.Since(start)
	restore()
	unmatched := append(asks.findings(), droppedFinding(sess.DroppedRequests()-dropped)...)
	for _, msg := range unmatched {
		res.Findings = append(res.Findings, report.Finding{Level: "error", Gate: "tools", Message: redact.String(msg)})
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fail("%s %q on server %q did not answer within %s (raise timeout: on the server)", method, what, t.Server, target.Limit())
		}
		return fail("%s %q on server %q failed: %v", method, what, t.Server, err)
	}
	result, err := jsonValue(out)
	if err != nil {
		return fail("%s %q on server %q: unreadable result: %v", method, what, t.Server, err)
	}
	argv, _ := jsonValue(args)
	doc := map[string]any{
		"result":      withDefaults(method, result),
		"duration_ms": float64(elapsed.Milliseconds()),
		"server":      t.Server,
		"args":        argv,
	}
	asks.record(doc)
	for k, v := range map[string]string{"tool": t.Tool, "resource": t.Resource, "prompt": t.Prompt} {
		if v != "" {
			doc[k] = v
		}
	}
	// The measured latency is the test's duration_ms target, as its
	// latency budget reads it; a live call is the one place a case's
	// result holds a clock reading.
	res.Targets["duration_ms"] = float64(elapsed.Milliseconds())
	failed := len(unmatched) > 0
	checksError, errorCheckFailed := false, false
	for _, a := range c.Expect {
		actual, present := a.Target.Lookup(doc)
		r := evaluate(a, actual, present)
		failed = failed || !r.Passed
		res.Assertions = append(res.Assertions, r)
		if a.Target.String() == "result.isError" {
			checksError = true
			errorCheckFailed = errorCheckFailed || !r.Passed
		}
	}
	// An assertion on result.isError that failed on an error answer shows
	// the server's own words, not only `actual: true`.
	if m, _ := result.(map[string]any); errorCheckFailed && m["isError"] == true {
		res.Findings = append(res.Findings, report.Finding{Level: "error", Gate: "tools", Message: redact.String(fmt.Sprintf(
			"tools/call %q on server %q answered isError: true%s", t.Tool, t.Server, errorText(m)))})
	}
	// A tool that answers isError fails the test unless the test asserts
	// on result.isError itself (a test that expects the error, such as a
	// schema-violation case): an unknown tool or refused arguments must
	// not pass a test that never looked.
	if m, _ := result.(map[string]any); t.Tool != "" && !checksError && m["isError"] == true {
		failed = true
		res.Findings = append(res.Findings, report.Finding{Level: "error", Gate: "tools", Message: redact.String(fmt.Sprintf(
			"tools/call %q on server %q answered isError: true%s; assert `result.isError` to expect an error", t.Tool, t.Server, errorText(m)))})
	}
	if t.MaxDurationMS > 0 {
		fl := report.Floor{Name: "max_duration_ms", Passed: elapsed.Milliseconds() <= t.MaxDurationMS,
			Message: fmt.Sprintf("the call answered within the %d ms budget", t.MaxDurationMS)}
		if !fl.Passed {
			fl.Message = fmt.Sprintf("%s: the call took %d ms, over the %d ms budget (max_duration_ms)", t.MaxDurationPos, elapsed.Milliseconds(), t.MaxDurationMS)
			failed = true
		}
		res.Floors = append(res.Floors, fl)
	}
	res.Verdict = report.Pass
	if failed {
		res.Verdict = report.Fail
	}
	return res, nil
}

// droppedFinding says how many of the server's requests during a call
// were dropped unanswered, past live.MaxPendingServerRequests pending.
func droppedFinding(n int64) []string {
	if n <= 0 {
		return nil
	}
	return []string{fmt.Sprintf("the server sent %d requests while %d of its requests were unanswered: mcptest dropped them unanswered (SECURITY.md, bounded work)", n, live.MaxPendingServerRequests)}
}

// livePool keeps one session per server for the length of a run, so the
// tools: cases of a server share its process (and its state, as an agent's
// calls would). A server that failed to start is not retried.
type livePool struct {
	sessions map[string]*live.Session
	errs     map[string]error
	// wires are the compliance checks' connections, by server and
	// revision (compliance.go).
	wires   map[string]*wireSession
	cancels []context.CancelFunc
	// tools are the tool names each connected server listed, sorted: the
	// denominator of the run's tool coverage.
	tools map[string][]string
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
	// The server process lives until the pool closes it.
	ctx := context.Background()
	s, err := live.Dial(ctx, t, os.Getenv)
	if err != nil {
		lp.errs[t.Name] = err
		return nil, err
	}
	lp.sessions[t.Name] = s
	lp.listTools(ctx, t, s)
	return s, nil
}

// listTools records the tools a server lists, when it offers tools and
// answers within the call timeout; coverage is then reported against them.
func (lp *livePool) listTools(ctx context.Context, t live.Target, s *live.Session) {
	if init := s.InitializeResult(); init == nil || init.Capabilities == nil || init.Capabilities.Tools == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, t.Limit())
	defer cancel()
	var names []string
	for tl, err := range s.Tools(ctx, nil) {
		if err != nil {
			return
		}
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	if lp.tools == nil {
		lp.tools = map[string][]string{}
	}
	lp.tools[t.Name] = names
}

func (lp *livePool) close() {
	for _, s := range lp.sessions {
		s.Close()
	}
	for _, ws := range lp.wires {
		if ws.wire != nil {
			ws.wire.Close()
		}
	}
	for _, c := range lp.cancels {
		c()
	}
	lp.sessions, lp.wires = nil, nil
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

// errorText quotes the first text content of an error result, clipped, as
// ": "..."", or "" when it has none.
func errorText(result map[string]any) string {
	content, _ := result["content"].([]any)
	for _, c := range content {
		if m, _ := c.(map[string]any); m != nil {
			if text, ok := m["text"].(string); ok && text != "" {
				if r := []rune(text); len(r) > 300 {
					text = string(r[:300]) + "…"
				}
				return fmt.Sprintf(": %q", text)
			}
		}
	}
	return ""
}
