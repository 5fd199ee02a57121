package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/live"
)

// A schema says which values an argument may take; only the server knows
// which of them name something in its world (a path under the directory it
// was started with, an entity it holds, an id it issued). World is what
// the server's own answers said about that world when the suite was
// generated: for each tool the scaffold calls for real, arguments it
// answered without a tool error, found by ExploreWorld the way a user
// explores an unknown server: the tools that need nothing first, then each
// string argument tried with the values the server's answers named.
type World struct {
	// Args are the accepted arguments, by tool name: the "valid
	// arguments" and output-schema tests call with them.
	Args map[string]map[string]any
	// EdgeErrors are the tools whose boundary arguments the server answered
	// with a tool error (its first line): their boundary test expects it.
	EdgeErrors map[string]string
	// Unfound names the probed tools for which no value the server named
	// was accepted, with how many argument sets were tried.
	Unfound map[string]int
	// Calls is how many tools/call requests the exploration sent.
	Calls int
}

// Caller calls one tool on the live server.
type Caller func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error)

// The exploration's bounds: values kept from the server's answers, the
// bytes of one, argument sets tried per tool and round, calls in all, and
// rounds (a value named by an answer to a value named by an answer ...).
const (
	maxWorldValues       = 64
	maxWorldValueBytes   = 256
	maxWorldTriesPerTool = 64
	maxWorldCalls        = 512
	worldRounds          = 3
	// maxWorldLineWords: the words of a longer line are prose, not names.
	maxWorldLineWords = 3
)

// Probed reports whether the exploration calls tool tl: only a tool that
// changes nothing (gate.MayWrite, the rule that holds write tools' tests
// for review), whatever --include-writes says, and only the tools opt
// selects.
func probed(tl *mcp.Tool, ann any, opt ScaffoldOptions) bool {
	if tl == nil || gate.MayWrite(tl.Name, ann) {
		return false
	}
	return len(opt.Tools) == 0 || contains(opt.Tools, tl.Name)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ExploreWorld finds, for each tool of cat the scaffold calls for real and
// that changes nothing (probed) and has free string arguments (a required
// property that is a plain string: no const, enum, default, example or
// format of its own, so the schema cannot say which string names something
// the server holds), arguments the server answers without a tool error.
// Each is called first with the schema's placeholders; when one refuses
// them, the probed tools without free arguments are called once each, the
// way a user lists what a server holds, and round by round each tool not
// yet answered is called with each value the answers so far named in place
// of all its free arguments, then of each, every set valid for its input
// schema and not tried before, maxWorldTriesPerTool sets at most. An answer
// adds its strings to the values (structuredContent's strings; each text
// content's JSON strings, else its lines and their words). Then each
// tool's boundary arguments are called once. Everything is bounded
// (maxWorld*), and the exploration stops when ctx ends.
func ExploreWorld(ctx context.Context, cat *live.Catalog, opt ScaffoldOptions, call Caller) *World {
	e := &explorer{ctx: ctx, call: call, seen: map[string]bool{}, w: &World{Args: map[string]map[string]any{}, EdgeErrors: map[string]string{}, Unfound: map[string]int{}}}
	written := writtenAnnotations(cat)
	var probes, sources []*worldProbe
	for _, tl := range slicesSorted(cat.Tools) {
		if !probed(tl, written[tl], opt) {
			continue
		}
		s := schemaMap(tl.InputSchema)
		check, _ := expr.CompileBounded(s, toolSchemaURL, nil)
		p := &worldProbe{tl: tl, schema: s, check: check, free: freeStrings(s), tried: map[string]bool{}}
		if len(p.free) == 0 {
			sources = append(sources, p)
		} else {
			probes = append(probes, p)
		}
	}
	var pending []*worldProbe
	for _, p := range probes {
		if !e.try(p, nil) {
			pending = append(pending, p)
		}
	}
	if len(pending) > 0 {
		for _, s := range sources {
			if res, ok := e.answered(s.tl.Name, objectArgs(synth(s.schema, s.schema, 0, false))); ok {
				e.keep(res)
			}
		}
	}
	for round := 0; round < worldRounds && len(pending) > 0; round++ {
		var next []*worldProbe
		for _, p := range pending {
			if !e.try(p, e.values) {
				next = append(next, p)
			}
		}
		progressed := len(next) < len(pending)
		pending = next
		if !progressed {
			break
		}
	}
	for _, p := range pending {
		e.w.Unfound[p.tl.Name] = len(p.tried)
	}
	for _, p := range probes {
		edge := objectArgs(synth(p.schema, p.schema, 0, true))
		if res, ok := e.answered(p.tl.Name, edge); !ok && res != nil && res.IsError {
			e.w.EdgeErrors[p.tl.Name] = firstLine(resultText(res))
		}
	}
	return e.w
}

// worldProbe is one tool the exploration calls.
type worldProbe struct {
	tl     *mcp.Tool
	schema map[string]any
	check  *expr.Schema
	free   []string
	tried  map[string]bool
}

// explorer is one exploration: its calls, and the values the answers named.
type explorer struct {
	ctx    context.Context
	call   Caller
	w      *World
	values []string
	seen   map[string]bool
}

// keep adds the strings res names to the values, maxWorldValues at most.
func (e *explorer) keep(res *mcp.CallToolResult) {
	harvest(res, func(s string) {
		if len(e.values) < maxWorldValues && !e.seen[s] {
			e.seen[s] = true
			e.values = append(e.values, s)
		}
	})
}

// answered calls a tool, maxWorldCalls at most, and reports whether it
// answered without a tool error.
func (e *explorer) answered(name string, args map[string]any) (*mcp.CallToolResult, bool) {
	if e.w.Calls >= maxWorldCalls || e.ctx.Err() != nil {
		return nil, false
	}
	e.w.Calls++
	res, err := e.call(e.ctx, name, args)
	return res, err == nil && res != nil && !res.IsError
}

// try calls p with each candidate of values not tried before, and keeps
// the first set the server answers.
func (e *explorer) try(p *worldProbe, values []string) bool {
	base := objectArgs(synth(p.schema, p.schema, 0, false))
	for args := range candidates(base, p.free, values) {
		key := q(args)
		if p.tried[key] || p.check != nil && p.check.Validate(args) != nil {
			continue
		}
		if len(p.tried) >= maxWorldTriesPerTool {
			return false
		}
		p.tried[key] = true
		if res, ok := e.answered(p.tl.Name, args); ok {
			e.w.Args[p.tl.Name] = args
			e.keep(res)
			return true
		}
	}
	return false
}

// toolSchemaURL names a tool's input schema while it is compiled.
const toolSchemaURL = "mcptest:tool-input-schema"

// freeStrings are the required properties of an object schema that are
// plain strings: a string type, and no const, enum, default, example or
// format that names a value of its own.
func freeStrings(root map[string]any) []string {
	s := resolve(root, root, 0)
	props := asMap(s["properties"])
	req, _ := s["required"].([]any)
	var out []string
	for _, r := range req {
		name, _ := r.(string)
		p := resolve(root, asMap(props[name]), 0)
		if typeOf(p) != "string" {
			continue
		}
		if _, ok := given(p, false); ok {
			continue
		}
		if f, _ := p["format"].(string); formatExamples[f] != "" {
			continue
		}
		out = append(out, name)
	}
	return out
}

// candidates are the argument sets tried, in order: base, then each value
// in place of all the free arguments, then of each.
func candidates(base map[string]any, free, values []string) func(func(map[string]any) bool) {
	return func(yield func(map[string]any) bool) {
		if !yield(base) {
			return
		}
		for _, v := range values {
			if len(free) > 1 && !yield(with(base, v, free...)) {
				return
			}
			for _, name := range free {
				if !yield(with(base, v, name)) {
					return
				}
			}
		}
	}
}

// with is a copy of base with each of names set to v.
func with(base map[string]any, v string, names ...string) map[string]any {
	out := make(map[string]any, len(base))
	for k, x := range base {
		out[k] = x
	}
	for _, n := range names {
		out[n] = v
	}
	return out
}

// harvest passes each string an answer names to add: the string leaves of
// its structuredContent, and of each text content that is JSON; the lines
// of one that is not, then what follows a line's "key: ", then its words when
// it has two or three (a longer line is prose, its words not names). Values
// that are empty, over maxWorldValueBytes, not UTF-8, or hold a control
// character or one YAML cannot print are left out.
func harvest(res *mcp.CallToolResult, add func(string)) {
	if res == nil {
		return
	}
	ok := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || len(s) > maxWorldValueBytes || !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || yamlUnprintable(r) }) >= 0 {
			return
		}
		add(s)
	}
	stringLeaves(res.StructuredContent, ok, 0)
	for _, c := range res.Content {
		tc, isText := c.(*mcp.TextContent)
		if !isText {
			continue
		}
		var v any
		if json.Unmarshal([]byte(tc.Text), &v) == nil {
			stringLeaves(v, ok, 0)
			continue
		}
		for _, line := range strings.Split(tc.Text, "\n") {
			ok(line)
			if _, v, found := strings.Cut(line, ": "); found {
				ok(v)
			}
			if words := strings.Fields(line); len(words) > 1 && len(words) <= maxWorldLineWords {
				for _, w := range words {
					ok(w)
				}
			}
		}
	}
}

// stringLeaves passes each string of v, in document order (keys sorted), to add.
func stringLeaves(v any, add func(string), depth int) {
	if depth > 16 {
		return
	}
	switch x := v.(type) {
	case string:
		add(x)
	case []any:
		for _, c := range x {
			stringLeaves(c, add, depth+1)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			stringLeaves(x[k], add, depth+1)
		}
	}
}

// resultText is the text contents of a result, joined.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// firstLine is s's first non-empty line, at most 120 bytes.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return oneLineName(l)
		}
	}
	return "a tool error"
}

// ExploreLive opens a session with the live target t and explores its world
// (ExploreWorld) within t's timeout; a catalog file has no world: nil.
func ExploreLive(ctx context.Context, t live.Target, getenv func(string) string, cat *live.Catalog, opt ScaffoldOptions) (*World, error) {
	if t.Catalog != "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.Limit())
	defer cancel()
	s, err := live.Dial(ctx, t, getenv)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return ExploreWorld(ctx, cat, opt, func(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		return s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}), nil
}

// validArgs is the arguments of tool name's valid-arguments and output
// tests: those the server accepted, under a comment saying so, when they
// are not the schema's placeholders; else the placeholders, with a note
// when the server accepted no set tried.
func (w *World) validArgs(b *strings.Builder, notes *[]string, name string, placeholders map[string]any) map[string]any {
	if w == nil {
		return placeholders
	}
	if args, ok := w.Args[name]; ok && q(args) != q(placeholders) {
		b.WriteString("  # the arguments below are values the server's own answers named, which it accepted when the suite was generated\n")
		return args
	}
	if n, ok := w.Unfound[name]; ok {
		*notes = append(*notes, fmt.Sprintf("%s: the server accepted none of the %d argument sets tried (the schema's placeholders and the values its answers named); review its arguments", oneLineName(name), n))
	}
	return placeholders
}

// edgeExpect is the assertion of tool name's boundary test: the tool error
// the server answered the boundary with, under a comment quoting it, else
// a content array.
func (w *World) edgeExpect(b *strings.Builder, name string) string {
	if w != nil {
		if msg, ok := w.EdgeErrors[name]; ok {
			fmt.Fprintf(b, "  # the server answered these boundary arguments with a tool error when the suite was generated: %s\n", q(msg))
			return expectLine("result.isError", map[string]any{"exact": true}, "the boundary arguments are answered with a tool error, as when the suite was generated")
		}
	}
	return expectLine("result.content", map[string]any{"schema": map[string]any{"type": "array"}}, "")
}
