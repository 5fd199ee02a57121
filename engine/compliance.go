package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/report"
)

// ComplianceBlock is a compliance: entry: one protocol exchange with a live
// server, checked against the rules of the specification revision it pins.
type ComplianceBlock struct {
	Server string
	// Spec is the pinned revision ("2025-11-25"): initialize asks for it
	// and the server must answer with it.
	Spec  string
	Check string
}

// maxPages bounds how many pages of a list check are followed.
const maxPages = 100

// compliance reads a compliance: entry. Its expect: list (short or long
// form) reads the check's document: result (the initialize result, or the
// list's items of every page under their key: tools, resources, prompts),
// initialize, count, spec, check and server.
func (b *builder) compliance(ptr string, m map[string]any) {
	c := b.newCase(ptr, m, report.KindCompliance)
	cb := &ComplianceBlock{}
	cb.Server, _ = m["server"].(string)
	cb.Spec, _ = m["spec"].(string)
	cb.Check, _ = m["check"].(string)
	c.Compliance = cb
	b.caseServer(ptr, c, &cb.Server, "compliance check")
	b.liveExpect(ptr, c, m)
}

// caseServer resolves a live case's server: the one named, or the suite's
// only server when none is.
func (b *builder) caseServer(ptr string, c *Case, server *string, what string) {
	switch {
	case *server == "" && len(b.suite.Servers) == 1:
		*server = b.suite.Servers[0].Name
	case *server == "":
		b.errorf(ptr, c.Pos, "%s %q needs a `server:`: one of the servers `servers:` declares (%s)", what, c.Name, strings.Join(b.serverNames(), ", "))
	case !b.hasServer(*server):
		p := ptr + "/server"
		e := &diag.Error{Pos: b.doc.At(p), Pointer: p, Kind: "suite", Message: fmt.Sprintf("%s %q names server %q, which `servers:` does not declare", what, c.Name, *server)}
		if sug := diag.Suggest(*server, b.serverNames()); sug != "" {
			e.Hint = "did you mean `" + sug + "`?"
		}
		b.errs = append(b.errs, e)
	}
}

// wireSession is one initialized JSON-RPC connection, shared by the
// compliance checks of a server and revision.
type wireSession struct {
	wire *live.Wire
	// init is the initialize result as the server wrote it; initErr is why
	// there is none.
	init    map[string]any
	initErr error
}

// runCompliance makes the check's exchange and applies the rules of its
// revision; each rule is a floor of the case, so a report names the rule
// that broke.
func runCompliance(s *Suite, p casePlan, res *report.CaseResult) (*report.CaseResult, diag.List) {
	cb := p.c.Compliance
	res.Runs = 1
	floor := func(name string, problems []string, ok string) bool {
		fl := report.Floor{Name: name, Passed: len(problems) == 0, Message: ok}
		if !fl.Passed {
			fl.Message = redact.String(problems[0])
			if len(problems) > 1 {
				fl.Message += fmt.Sprintf(" (and %d more)", len(problems)-1)
				for _, pr := range problems {
					fl.Lines = append(fl.Lines, redact.String(pr))
				}
			}
		}
		res.Floors = append(res.Floors, fl)
		return fl.Passed
	}
	finish := func() (*report.CaseResult, diag.List) {
		res.Verdict = report.Pass
		for _, fl := range res.Floors {
			if !fl.Passed {
				res.Verdict = report.Fail
			}
		}
		for _, a := range res.Assertions {
			if !a.Passed {
				res.Verdict = report.Fail
			}
		}
		return res, nil
	}

	ws := p.live.wire(s, cb.Server, cb.Spec)
	if ws.initErr != nil {
		floor("initialize.answered", []string{fmt.Sprintf("initialize (protocolVersion %s) on server %q failed: %v", cb.Spec, cb.Server, ws.initErr)}, "")
		return finish()
	}
	doc := map[string]any{"spec": cb.Spec, "check": cb.Check, "server": cb.Server, "initialize": ws.init}
	if cb.Check == "initialize" {
		floor("initialize.answered", nil, "the server answered initialize with a result")
		initializeRules(ws.init, cb.Spec, floor)
		doc["result"] = ws.init
	} else {
		key := strings.TrimSuffix(cb.Check, "/list")
		caps, _ := ws.init["capabilities"].(map[string]any)
		if _, ok := caps[key].(map[string]any); !ok {
			floor(key+".advertised", []string{fmt.Sprintf("server %q does not advertise the `%s` capability in its initialize result, so %s is not part of its contract: advertise the capability or remove the check", cb.Server, key, cb.Check)}, "")
			return finish()
		}
		floor(key+".advertised", nil, fmt.Sprintf("the server advertises the `%s` capability", key))
		items, problems := listAll(ws.wire, cb.Check, key)
		if !floor(cb.Check+".answered", problems, fmt.Sprintf("%s answered with %d %s", cb.Check, len(items), key)) {
			return finish()
		}
		floor(cb.Check+".items", itemRules(key, items), fmt.Sprintf("every one of the %d %s is well-formed for %s", len(items), key, cb.Spec))
		doc["result"] = withDefaults(cb.Check, map[string]any{key: items})
		doc["count"] = float64(len(items))
		res.Counts[key] = int64(len(items))
	}
	for _, a := range p.c.Expect {
		actual, present := a.Target.Lookup(doc)
		res.Assertions = append(res.Assertions, evaluate(a, actual, present))
	}
	return finish()
}

// initializeRules checks an initialize result against the pinned revision.
func initializeRules(init map[string]any, spec string, floor func(string, []string, string) bool) {
	var pv []string
	switch v := init["protocolVersion"].(type) {
	case string:
		if v != spec {
			pv = append(pv, fmt.Sprintf("the server answered protocolVersion %q to an initialize that asked for %q: it does not speak the pinned revision", v, spec))
		}
	default:
		pv = append(pv, fmt.Sprintf("protocolVersion is %s; expected the string %q", describe(init["protocolVersion"]), spec))
	}
	floor("initialize.protocol_version", pv, "the server speaks "+spec)

	var si []string
	info, ok := init["serverInfo"].(map[string]any)
	if !ok {
		si = append(si, fmt.Sprintf("serverInfo is %s; expected an object with name and version", describe(init["serverInfo"])))
	} else {
		if n, _ := info["name"].(string); n == "" {
			si = append(si, fmt.Sprintf("serverInfo.name is %s; expected a non-empty string", describe(info["name"])))
		}
		if _, ok := info["version"].(string); !ok {
			si = append(si, fmt.Sprintf("serverInfo.version is %s; expected a string", describe(info["version"])))
		}
	}
	floor("initialize.server_info", si, "serverInfo names the server and its version")

	var cp []string
	caps, ok := init["capabilities"].(map[string]any)
	if !ok {
		cp = append(cp, fmt.Sprintf("capabilities is %s; expected an object", describe(init["capabilities"])))
	}
	for _, k := range sortedKeys(caps) {
		if _, ok := caps[k].(map[string]any); !ok {
			cp = append(cp, fmt.Sprintf("capabilities.%s is %s; expected an object", k, describe(caps[k])))
		}
	}
	if v, ok := init["instructions"]; ok {
		if _, isStr := v.(string); !isStr {
			cp = append(cp, fmt.Sprintf("instructions is %s; expected a string", describe(v)))
		}
	}
	floor("initialize.capabilities", cp, "capabilities is an object of objects")
}

// listAll follows a list's pages and returns every item, or why it could
// not.
func listAll(w *live.Wire, method, key string) ([]any, []string) {
	var items []any
	seen := map[string]bool{}
	var cursor string
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, []string{fmt.Sprintf("%s: still paginating after %d pages", method, maxPages)}
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		ctx, cancel := context.WithTimeout(context.Background(), w.Limit())
		raw, err := w.Call(ctx, method, params)
		cancel()
		if err != nil {
			return nil, []string{fmt.Sprintf("%s failed: %v", method, err)}
		}
		var result map[string]any
		if err := json.Unmarshal(raw, &result); err != nil || result == nil {
			return nil, []string{fmt.Sprintf("%s answered %s; expected an object with a `%s` array", method, clipRaw(raw), key)}
		}
		list, ok := result[key].([]any)
		if !ok {
			return nil, []string{fmt.Sprintf("%s answered without a `%s` array (%s is %s)", method, key, key, describe(result[key]))}
		}
		items = append(items, list...)
		next, present := result["nextCursor"]
		if !present || next == nil {
			return items, nil
		}
		n, ok := next.(string)
		switch {
		case !ok:
			return nil, []string{fmt.Sprintf("%s: nextCursor is %s; expected a string", method, describe(next))}
		case seen[n]:
			return nil, []string{fmt.Sprintf("%s: nextCursor %q came back twice; the pages loop", method, n)}
		}
		seen[n] = true
		cursor = n
	}
}

// itemRules checks every listed item's required fields and types.
func itemRules(key string, items []any) []string {
	var problems []string
	seen := map[string]int{}
	for i, it := range items {
		m, ok := it.(map[string]any)
		at := fmt.Sprintf("%s[%d]", key, i)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s is %s; expected an object", at, describe(it)))
			continue
		}
		id := "name"
		if key == "resources" {
			id = "uri"
		}
		name, _ := m[id].(string)
		if name == "" {
			problems = append(problems, fmt.Sprintf("%s.%s is %s; expected a non-empty string", at, id, describe(m[id])))
		} else {
			at = fmt.Sprintf("%s[%d] (%s)", key, i, clip(name, 60))
			if first, dup := seen[name]; dup {
				problems = append(problems, fmt.Sprintf("%s: %s %q is listed twice (first at %s[%d]); each must be unique", at, id, clip(name, 60), key, first))
			} else {
				seen[name] = i
			}
		}
		optionalString := func(field string) {
			if v, ok := m[field]; ok {
				if _, isStr := v.(string); !isStr {
					problems = append(problems, fmt.Sprintf("%s.%s is %s; expected a string", at, field, describe(v)))
				}
			}
		}
		optionalString("description")
		optionalString("title")
		switch key {
		case "tools":
			schemaObject := func(field string) {
				s, ok := m[field].(map[string]any)
				switch {
				case !ok:
					problems = append(problems, fmt.Sprintf("%s.%s is %s; expected a JSON Schema object", at, field, describe(m[field])))
				case s["type"] != "object":
					problems = append(problems, fmt.Sprintf("%s.%s.type is %s; expected \"object\"", at, field, describe(s["type"])))
				}
			}
			schemaObject("inputSchema")
			if _, ok := m["outputSchema"]; ok {
				schemaObject("outputSchema")
			}
			if v, ok := m["annotations"]; ok {
				if _, isObj := v.(map[string]any); !isObj {
					problems = append(problems, fmt.Sprintf("%s.annotations is %s; expected an object", at, describe(v)))
				}
			}
		case "resources":
			if n, _ := m["name"].(string); n == "" {
				problems = append(problems, fmt.Sprintf("%s.name is %s; expected a non-empty string", at, describe(m["name"])))
			}
			optionalString("mimeType")
		case "prompts":
			if v, ok := m["arguments"]; ok {
				args, isList := v.([]any)
				if !isList {
					problems = append(problems, fmt.Sprintf("%s.arguments is %s; expected an array", at, describe(v)))
				}
				for j, a := range args {
					am, _ := a.(map[string]any)
					if n, _ := am["name"].(string); n == "" {
						problems = append(problems, fmt.Sprintf("%s.arguments[%d].name is %s; expected a non-empty string", at, j, describe(am["name"])))
					}
					if r, ok := am["required"]; ok {
						if _, isBool := r.(bool); !isBool {
							problems = append(problems, fmt.Sprintf("%s.arguments[%d].required is %s; expected a boolean", at, j, describe(r)))
						}
					}
				}
			}
		}
	}
	return problems
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

func clipRaw(raw json.RawMessage) string {
	return clip(strings.TrimSpace(string(raw)), 80)
}

// wire returns the initialized connection for a server and revision,
// opening it on first use.
func (lp *livePool) wire(s *Suite, server, spec string) *wireSession {
	key := server + "\x00" + spec
	if ws, ok := lp.wires[key]; ok {
		return ws
	}
	if lp.wires == nil {
		lp.wires = map[string]*wireSession{}
	}
	ws := &wireSession{}
	lp.wires[key] = ws
	t, _ := s.Target(server)
	// The connection lives until the pool closes.
	ctx, cancel := context.WithCancel(context.Background())
	lp.cancels = append(lp.cancels, cancel)
	w, err := live.DialWire(ctx, t, spec, os.Getenv)
	if err != nil {
		ws.initErr = err
		return ws
	}
	ws.wire = w
	callCtx, stop := context.WithTimeout(ctx, t.Limit())
	defer stop()
	raw, err := w.Call(callCtx, "initialize", map[string]any{
		"protocolVersion": spec,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcptest", "version": "v1"},
	})
	if err == nil {
		if json.Unmarshal(raw, &ws.init) != nil || ws.init == nil {
			err = fmt.Errorf("the result is %s; expected an object", clipRaw(raw))
		}
	}
	var we *live.WireError
	if errors.As(err, &we) {
		err = fmt.Errorf("the server answered with %v", we)
	}
	if err != nil {
		ws.initErr = err
		return ws
	}
	ws.initErr = w.Notify(callCtx, "notifications/initialized", map[string]any{})
	return ws
}
