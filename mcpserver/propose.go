package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/gate/security"
	"github.com/mcptest/mcptest/live"
)

type proposeIn struct {
	Target
	Tool               string         `json:"tool" jsonschema:"the tool to call"`
	Args               map[string]any `json:"args,omitempty" jsonschema:"the tools/call arguments (default {})"`
	SingleCall         bool           `json:"single_call,omitempty" jsonschema:"observe one call only"`
	ExecuteDestructive bool           `json:"execute_destructive,omitempty" jsonschema:"allow exactly one live call to a tool classified destructive"`
}

type proposeOut struct {
	Test             string             `json:"test"`
	ExcludedVolatile []string           `json:"excluded_volatile"`
	CallsMade        int                `json:"calls_made"`
	Notes            []string           `json:"notes"`
	Warnings         []security.Finding `json:"warnings,omitempty"`
}

// ExecPolicy is how a tool may be exercised, from its descriptor.
type ExecPolicy string

// The policies: read-only tools are called twice (the stability probe),
// mutating tools once, destructive tools only on request and then once.
const (
	ReadOnly    ExecPolicy = "read-only"
	Mutating    ExecPolicy = "mutating"
	Destructive ExecPolicy = "destructive"
)

// Writes reports whether calling a tool may change state, so a generated
// test must not call it unreviewed: gate.MayWrite on its annotations (the
// typed ones; WritesRaw reads them as the server wrote them).
func Writes(t *mcp.Tool) bool {
	var ann any
	if t.Annotations != nil {
		m := map[string]any{"readOnlyHint": t.Annotations.ReadOnlyHint}
		if t.Annotations.DestructiveHint != nil {
			m["destructiveHint"] = *t.Annotations.DestructiveHint
		}
		ann = m
	}
	return gate.MayWrite(t.Name, ann)
}

// Classify returns a tool's policy: annotations first (destructiveHint,
// then readOnlyHint), the name second.
func Classify(t *mcp.Tool) ExecPolicy {
	if a := t.Annotations; a != nil {
		if a.ReadOnlyHint {
			return ReadOnly
		}
		if a.DestructiveHint != nil && *a.DestructiveHint {
			return Destructive
		}
	}
	if v := nameVerb(t.Name); v != "" {
		return v
	}
	return Mutating
}

// nameVerb is what a tool's name says it does (gate.NameVerb).
func nameVerb(name string) ExecPolicy {
	return ExecPolicy(gate.NameVerb(name))
}

func (s *server) proposeAssertions(ctx context.Context, in proposeIn) (any, error) {
	if in.Tool == "" {
		return nil, errors.New("tool is required")
	}
	t, err := s.target(in.Target)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*live.DefaultTimeout)
	defer cancel()
	sess, err := live.Connect(ctx, t, s.opt.Getenv)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	cat, err := sess.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	var tool *mcp.Tool
	var names []string
	for _, x := range cat.Tools {
		names = append(names, x.Name)
		if x.Name == in.Tool {
			tool = x
		}
	}
	if tool == nil {
		return nil, fmt.Errorf("the server has no tool %q (it has: %s)", in.Tool, strings.Join(names, ", "))
	}
	out := proposeOut{ExcludedVolatile: []string{}, Notes: []string{}, Warnings: cat.DescriptionWarnings()}
	policy := Classify(tool)
	calls := 2
	switch {
	case policy == Destructive && !in.ExecuteDestructive:
		return nil, fmt.Errorf("%s is classified destructive (annotations or name): refused; pass execute_destructive: true to allow exactly one live call", in.Tool)
	case policy != ReadOnly:
		calls = 1
		out.Notes = append(out.Notes, fmt.Sprintf("%s is classified %s: called once (a second call of a non-idempotent tool is itself a side effect)", in.Tool, policy))
	case in.SingleCall:
		calls = 1
	}
	args := in.Args
	if args == nil {
		args = map[string]any{}
	}
	var results []map[string]any
	var slowest time.Duration
	for range calls {
		start := time.Now()
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: in.Tool, Arguments: args})
		d := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("call %s: %w", in.Tool, err)
		}
		slowest = max(slowest, d)
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		results = append(results, m)
		out.CallsMade++
	}
	out.Test = proposal(in.Tool, args, results, slowest, &out)
	return out, nil
}

// LatencyBudget is twice the slowest observed call, rounded up to the
// nearest 50 ms, at least 100 ms.
func LatencyBudget(slowest time.Duration) int64 {
	ms := (2*slowest + time.Millisecond - 1) / time.Millisecond
	b := (int64(ms) + 49) / 50 * 50
	return max(b, 100)
}

// proposal renders the tools: entry for the observations.
func proposal(tool string, args map[string]any, results []map[string]any, slowest time.Duration, out *proposeOut) string {
	first := results[0]
	isErr, _ := first["isError"].(bool)
	var b strings.Builder
	fmt.Fprintf(&b, "  - name: %s\n    server: \"target\"\n    tool: %s\n    args: %s\n    expect:\n      assertions:\n", q(tool+": proposed assertions"), q(tool), q(args))
	assertion := func(target string, matcher any, msg string) {
		fmt.Fprintf(&b, "        - target: %s\n          matcher: %s\n          message: %s\n", q(target), q(matcher), q(msg))
	}
	switch {
	case isErr:
		assertion("result.isError", map[string]any{"exact": true}, "the observed call signalled an error")
		out.Notes = append(out.Notes, "the observed call returned isError: true; the proposal pins that")
	case first["isError"] == nil:
		assertion("result.isError", map[string]any{"not": map[string]any{"exact": true}}, "tool call must not signal an error")
	default:
		assertion("result.isError", map[string]any{"exact": false}, "tool call must not signal an error")
	}
	for _, key := range []string{"content", "structuredContent"} {
		if v, ok := first[key]; ok {
			assertion("result."+key, map[string]any{"schema": schemaOf(v)}, "observed structure of result."+key)
		}
	}
	if len(results) < 2 {
		out.Notes = append(out.Notes, "one observation: only the isError invariant and the structure are proposed; exact values need two equal observations (a read-only tool without single_call)")
	} else {
		a, bb := leaves(first, "result"), leaves(results[1], "result")
		var stable []leaf
		for _, l := range a {
			if l.path == "result.isError" || strings.HasPrefix(l.path, "result._meta") {
				continue
			}
			other, ok := find(bb, l.path)
			if !ok || !equalJSON(l.value, other) {
				out.ExcludedVolatile = append(out.ExcludedVolatile, l.path)
				continue
			}
			if short(l.value) {
				stable = append(stable, l)
			}
		}
		sort.SliceStable(stable, func(i, j int) bool { return stable[i].depth < stable[j].depth })
		if len(stable) > 5 {
			stable = stable[:5]
		}
		sort.SliceStable(stable, func(i, j int) bool { return stable[i].path < stable[j].path })
		for _, l := range stable {
			assertion(l.path, map[string]any{"exact": l.value}, "stable across both observed calls")
		}
		if len(out.ExcludedVolatile) > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%d leaves differed between the two calls: excluded from exact assertions", len(out.ExcludedVolatile)))
		}
	}
	fmt.Fprintf(&b, "    # latency budget: 2x the slowest observed call, rounded up to the nearest 50 ms, floor 100 ms\n    max_duration_ms: %d\n", LatencyBudget(slowest))
	return b.String()
}

// q renders v as a YAML flow value: JSON (with <, > and & left as they
// are, for a reader), with the characters JSON leaves raw but YAML refuses
// (DEL, the C1 controls but NEL, U+FFFE, U+FFFF) escaped.
func q(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	s := strings.TrimSuffix(buf.String(), "\n")
	if !strings.ContainsFunc(s, yamlUnprintable) {
		return s
	}
	var out strings.Builder
	for _, r := range s {
		if yamlUnprintable(r) {
			fmt.Fprintf(&out, "\\u%04x", r)
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}

// yamlUnprintable reports a character q writes as an escape: DEL and the
// C1 controls (NEL, U+0085, among them: the YAML reader takes it for a
// line break) and the noncharacters U+FFFE and U+FFFF.
func yamlUnprintable(r rune) bool {
	return r >= 0x7f && r <= 0x9f || r == 0xfffe || r == 0xffff
}

type leaf struct {
	path  string
	depth int
	value any
}

var ident = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*$`)

// leaves flattens v into its scalar leaves, with target paths.
func leaves(v any, path string) []leaf {
	var out []leaf
	var walk func(v any, path string, depth int)
	walk = func(v any, path string, depth int) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := path + "." + k
				if !ident().MatchString(k) {
					p = path + "[" + strconv.Quote(k) + "]"
				}
				walk(x[k], p, depth+1)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		default:
			out = append(out, leaf{path, depth, v})
		}
	}
	walk(v, path, 0)
	return out
}

func find(ls []leaf, path string) (any, bool) {
	for _, l := range ls {
		if l.path == path {
			return l.value, true
		}
	}
	return nil, false
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// short reports a scalar worth an exact assertion.
func short(v any) bool {
	switch x := v.(type) {
	case string:
		return len(x) <= 120 && !strings.Contains(x, "\n")
	case float64, bool:
		return true
	}
	return false
}

// schemaOf is the JSON Schema of an observed value: types, and for objects
// their keys as required, at every depth (arrays by their first element).
func schemaOf(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		props := map[string]any{}
		req := []string{}
		for k, e := range x {
			props[k] = schemaOf(e)
			req = append(req, k)
		}
		sort.Strings(req)
		return map[string]any{"type": "object", "properties": props, "required": req}
	case []any:
		s := map[string]any{"type": "array"}
		if len(x) > 0 {
			s["items"] = itemsSchema(x)
		}
		return s
	case string:
		return map[string]any{"type": "string"}
	case float64:
		return map[string]any{"type": "number"}
	case bool:
		return map[string]any{"type": "boolean"}
	}
	return map[string]any{"type": "null"}
}

// itemsSchema is the schema every element of an observed list satisfies:
// for a list of objects (content blocks of several types), the keys all of
// them hold are required and each key's schema is the first seen; else the
// first element's schema, when every element has its type.
func itemsSchema(x []any) map[string]any {
	first := schemaOf(x[0])
	objects := true
	for _, e := range x {
		if _, ok := e.(map[string]any); !ok {
			objects = false
		}
		if schemaOf(e)["type"] != first["type"] {
			return map[string]any{}
		}
	}
	if !objects {
		return first
	}
	props := map[string]any{}
	count := map[string]int{}
	for _, e := range x {
		for k, v := range e.(map[string]any) {
			if _, ok := props[k]; !ok {
				props[k] = schemaOf(v)
			}
			count[k]++
		}
	}
	req := []string{}
	for k, n := range count {
		if n == len(x) {
			req = append(req, k)
		}
	}
	sort.Strings(req)
	return map[string]any{"type": "object", "properties": props, "required": req}
}
