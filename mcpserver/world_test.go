package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/live"
)

// fakeWorld is a server nobody wrote by hand: names at two levels (the
// second reachable only through the first), a lister that needs no
// argument, openers that name a first-level name's children, readers whose
// free string arguments must name a thing of their level, a reader of a
// name no answer ever gives, and write tools that must never be called.
type fakeWorld struct {
	t      *testing.T
	cat    *live.Catalog
	top    []string
	kids   map[string][]string
	level  map[string]int // reader tool -> the level its free arguments name
	free   map[string][]string
	secret map[string]bool // tools whose world is never named
	style  int
	checks map[string]*expr.Schema
	calls  int
}

func newFakeWorld(t *testing.T, r *rand.Rand) *fakeWorld {
	w := &fakeWorld{t: t, cat: &live.Catalog{}, kids: map[string][]string{}, level: map[string]int{}, free: map[string][]string{}, secret: map[string]bool{}, style: r.IntN(4), checks: map[string]*expr.Schema{}}
	name := func(prefix string) string { return fmt.Sprintf("%s%x", prefix, r.Uint32()) }
	for range 1 + r.IntN(4) {
		top := name("t")
		w.top = append(w.top, top)
		for range r.IntN(3) {
			w.kids[top] = append(w.kids[top], top+"/"+name("k"))
		}
	}
	yes := true
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	add := func(tl *mcp.Tool) {
		w.cat.Tools = append(w.cat.Tools, tl)
		s, err := expr.CompileBounded(schemaMap(tl.InputSchema), toolSchemaURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.checks[tl.Name] = s
	}
	add(&mcp.Tool{Name: "list_things", InputSchema: map[string]any{"type": "object"}, Annotations: ro})
	add(&mcp.Tool{Name: "open_thing", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}, Annotations: ro})
	// Readers: one to three free strings, with properties of other kinds
	// (an enum, a bounded integer, a boolean, an optional string) beside
	// them; a first-level or second-level reader (the second level only
	// when a thing has children).
	for i := range 1 + r.IntN(6) {
		tl := fmt.Sprintf("read_%d", i)
		props, req := map[string]any{}, []any{}
		for j := range 1 + r.IntN(3) {
			p := fmt.Sprintf("arg%d", j)
			props[p] = map[string]any{"type": "string", "description": "a thing"}
			req = append(req, p)
			w.free[tl] = append(w.free[tl], p)
		}
		if r.IntN(2) == 0 {
			props["mode"] = map[string]any{"enum": []any{"fast", "slow"}}
			req = append(req, "mode")
		}
		if r.IntN(2) == 0 {
			props["count"] = map[string]any{"type": "integer", "minimum": 1, "maximum": 9}
			req = append(req, "count")
		}
		if r.IntN(2) == 0 {
			props["note"] = map[string]any{"type": "string"}
		}
		w.level[tl] = 1
		if r.IntN(2) == 0 && len(w.kids[w.top[0]]) > 0 {
			w.level[tl] = 2
		}
		add(&mcp.Tool{Name: tl, InputSchema: map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}, Annotations: ro})
	}
	add(&mcp.Tool{Name: "read_secret", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}}, "required": []any{"key"}}, Annotations: ro})
	w.secret["read_secret"] = true
	add(&mcp.Tool{Name: "delete_thing", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}})
	add(&mcp.Tool{Name: "move_thing", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}})
	r.Shuffle(len(w.cat.Tools), func(i, j int) { w.cat.Tools[i], w.cat.Tools[j] = w.cat.Tools[j], w.cat.Tools[i] })
	return w
}

// answer renders names in the world's style: lines, tagged lines, a JSON
// array, or structuredContent.
func (w *fakeWorld) answer(names []string) *mcp.CallToolResult {
	switch w.style {
	case 0:
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Things:\n" + strings.Join(names, "\n")}}}
	case 1:
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "[THING] %s\n", n)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}
	case 2:
		data, _ := json.Marshal(map[string]any{"items": names, "total": len(names)})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}
	}
	items := []any{}
	for _, n := range names {
		items = append(items, map[string]any{"name": n})
	}
	return &mcp.CallToolResult{StructuredContent: map[string]any{"items": items}, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d things", len(names))}}}
}

func toolErr(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// call is the server: a write tool called fails the test; arguments its
// schema refuses, or a free argument naming nothing of its level, get a
// tool error.
func (w *fakeWorld) call(_ context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	w.calls++
	if name == "delete_thing" || name == "move_thing" {
		w.t.Errorf("the exploration called %s, a tool that changes state", name)
	}
	if err := w.checks[name].Validate(args); err != nil {
		return toolErr("invalid arguments: " + err.Error()), nil
	}
	isTop := func(v any) bool { s, _ := v.(string); return slices.Contains(w.top, s) }
	isKid := func(v any) bool {
		s, _ := v.(string)
		for _, top := range w.top {
			if slices.Contains(w.kids[top], s) {
				return true
			}
		}
		return false
	}
	switch {
	case name == "list_things":
		return w.answer(w.top), nil
	case name == "open_thing":
		if !isTop(args["name"]) {
			return toolErr(fmt.Sprintf("no thing named %v", args["name"])), nil
		}
		return w.answer(w.kids[args["name"].(string)]), nil
	case w.secret[name]:
		return toolErr("no such key"), nil
	}
	for _, p := range w.free[name] {
		if w.level[name] == 1 && !isTop(args[p]) || w.level[name] == 2 && !isKid(args[p]) {
			return toolErr(fmt.Sprintf("%s: nothing named %v", p, args[p])), nil
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

// TestExploreWorldGenerated: over drawn worlds, every tool that changes
// nothing, has free string arguments, and whose world its server names gets arguments the server
// accepts, through a listing tool and an opener when its names are a level
// down; the scaffold's valid-arguments and output tests call with them,
// its boundary test expects the tool error the boundary got; a tool whose
// world no answer names keeps the placeholders with a note; no write tool
// is ever called; the calls stay under maxWorldCalls; the same world gives
// the same suite.
func TestExploreWorldGenerated(t *testing.T) {
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 41))
		w := newFakeWorld(t, r)
		opt := ScaffoldOptions{All: true, IncludeEdge: true, IncludeViolation: true}
		world := ExploreWorld(context.Background(), w.cat, opt, w.call)
		if world.Calls != w.calls || w.calls > maxWorldCalls {
			t.Fatalf("seed %d: %d calls counted, %d made (at most %d)", seed, world.Calls, w.calls, maxWorldCalls)
		}
		for _, tl := range w.cat.Tools {
			switch args, ok := world.Args[tl.Name]; {
			case tl.Name == "delete_thing" || tl.Name == "move_thing" || w.secret[tl.Name] || tl.Name == "list_things":
				if ok {
					t.Errorf("seed %d: %s has arguments %v", seed, tl.Name, args)
				}
			case !ok:
				t.Errorf("seed %d: %s: no arguments found (style %d, world %v %v); unfound %v", seed, tl.Name, w.style, w.top, w.kids, world.Unfound)
			default:
				if res, _ := w.call(context.Background(), tl.Name, args); res.IsError {
					t.Errorf("seed %d: %s: the arguments found, %v, are refused: %s", seed, tl.Name, args, resultText(res))
				}
			}
		}
		if _, ok := world.Unfound["read_secret"]; !ok {
			t.Errorf("seed %d: read_secret is not reported unfound: %v", seed, world.Unfound)
		}
		opt.World = world
		sc := ScaffoldSuite(w.cat, live.Target{Command: []string{"server"}}, opt)
		mustValidate(t, sc.Suite)
		var doc struct {
			Tools []struct {
				Name   string         `yaml:"name"`
				Tool   string         `yaml:"tool"`
				Args   map[string]any `yaml:"args"`
				Expect []struct {
					Target string `yaml:"target"`
				} `yaml:"expect"`
			} `yaml:"tools"`
		}
		if err := yaml.Unmarshal([]byte(sc.Suite), &doc); err != nil {
			t.Fatal(err)
		}
		for _, c := range doc.Tools {
			want, ok := world.Args[c.Tool]
			switch {
			case strings.HasSuffix(c.Name, ": valid arguments") || strings.HasSuffix(c.Name, ": output matches its outputSchema"):
				if ok && q(c.Args) != q(want) {
					t.Errorf("seed %d: %s calls with %v, not the accepted %v", seed, c.Name, c.Args, want)
				}
			case strings.HasSuffix(c.Name, ": boundary values"):
				_, edgeErr := world.EdgeErrors[c.Tool]
				if res, _ := w.call(context.Background(), c.Tool, c.Args); res.IsError != edgeErr || edgeErr && c.Expect[0].Target != "result.isError" {
					t.Errorf("seed %d: %s: the server's tool error %v, the test expects %s", seed, c.Name, res.IsError, c.Expect[0].Target)
				}
			}
		}
		if !slices.ContainsFunc(sc.Notes, func(n string) bool { return strings.HasPrefix(n, "read_secret: the server accepted none") }) {
			t.Errorf("seed %d: no note for read_secret: %v", seed, sc.Notes)
		}
		again := newFakeWorld(t, rand.New(rand.NewPCG(seed, 41)))
		opt.World = ExploreWorld(context.Background(), again.cat, ScaffoldOptions{All: true, IncludeEdge: true, IncludeViolation: true}, again.call)
		if ScaffoldSuite(again.cat, live.Target{Command: []string{"server"}}, opt).Suite != sc.Suite {
			t.Fatalf("seed %d: the same world scaffolds two suites", seed)
		}
	}
}

// TestExploreWorldBounded: a server whose every answer names many new
// values and refuses every argument is called at most maxWorldCalls times,
// and an exploration whose context has ended calls nothing.
func TestExploreWorldBounded(t *testing.T) {
	cat := &live.Catalog{}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	for i := range 40 {
		cat.Tools = append(cat.Tools, &mcp.Tool{Name: fmt.Sprintf("get_%02d", i), Annotations: ro, InputSchema: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}, "b": map[string]any{"type": "string"}}, "required": []any{"a", "b"}}})
	}
	cat.Tools = append(cat.Tools, &mcp.Tool{Name: "list", Annotations: ro, InputSchema: map[string]any{"type": "object"}})
	calls := 0
	call := func(_ context.Context, name string, _ map[string]any) (*mcp.CallToolResult, error) {
		calls++
		if name == "list" {
			var b strings.Builder
			for i := range 500 {
				fmt.Fprintf(&b, "v%d\n", i)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String() + strings.Repeat("x", 300)}}}, nil
		}
		return toolErr("no"), nil
	}
	w := ExploreWorld(context.Background(), cat, ScaffoldOptions{}, call)
	if calls > maxWorldCalls || w.Calls != calls || len(w.Unfound) != 40 {
		t.Errorf("%d calls (at most %d), %d counted, %d tools unfound", calls, maxWorldCalls, w.Calls, len(w.Unfound))
	}
	for name, n := range w.Unfound {
		if n > maxWorldTriesPerTool {
			t.Errorf("%s: tried %d times, over %d", name, n, maxWorldTriesPerTool)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls = 0
	if w := ExploreWorld(ctx, cat, ScaffoldOptions{}, call); calls != 0 || w.Calls != 0 {
		t.Errorf("an ended context: %d calls", calls)
	}
}

// TestExploreWorldListsOnlyWhenNeeded: when every tool accepts the
// schema's placeholders, no tool without free arguments is called (a slow
// or costly one runs only when a value of the world is needed), and the
// scaffold is the one the schemas alone give.
func TestExploreWorldListsOnlyWhenNeeded(t *testing.T) {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	cat := &live.Catalog{Tools: []*mcp.Tool{
		{Name: "echo", Annotations: ro, InputSchema: map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}, "required": []any{"message"}}},
		{Name: "slow_listing", Annotations: ro, InputSchema: map[string]any{"type": "object"}},
	}}
	var called []string
	w := ExploreWorld(context.Background(), cat, ScaffoldOptions{}, func(_ context.Context, name string, _ map[string]any) (*mcp.CallToolResult, error) {
		called = append(called, name)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	if slices.Contains(called, "slow_listing") || len(w.Args) != 1 {
		t.Errorf("called %v, accepted %v", called, w.Args)
	}
	opt := ScaffoldOptions{All: true, IncludeEdge: true}
	plain := ScaffoldSuite(cat, live.Target{Command: []string{"s"}}, opt).Suite
	opt.World = w
	if got := ScaffoldSuite(cat, live.Target{Command: []string{"s"}}, opt).Suite; got != plain {
		t.Errorf("the world changed a scaffold whose placeholders were accepted:\n%s\n---\n%s", got, plain)
	}
}

// TestExploreWorldHostileValues: the values a server names go into the
// suite as quoted scalars: YAML's and JSON's specials, a comment sign, a
// key and a list item in one, read back as written; its tool error goes
// into a comment on one line; a value YAML cannot print is not kept.
func TestExploreWorldHostileValues(t *testing.T) {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	names := []string{`a: b`, `- c #d`, `"quoted" \ back`, "{[&*!|>'%@`]}", "line\u2028sep", "ok\ufffe"}
	cat := &live.Catalog{Tools: []*mcp.Tool{
		{Name: "list", Annotations: ro, InputSchema: map[string]any{"type": "object"}},
		{Name: "read", Annotations: ro, InputSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}},
	}}
	call := func(_ context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
		if name == "list" {
			data, _ := json.Marshal(names)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
		}
		if v, _ := args["name"].(string); v == names[5] || !slices.Contains(names, v) || v != names[4] && v != names[2] {
			return toolErr("no \"" + v + "\"\n# injected: true"), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	w := ExploreWorld(context.Background(), cat, ScaffoldOptions{}, call)
	got, ok := w.Args["read"]
	if !ok || got["name"] != names[2] {
		t.Fatalf("accepted %v; unfound %v", w.Args, w.Unfound)
	}
	sc := ScaffoldSuite(cat, live.Target{Command: []string{"s"}}, ScaffoldOptions{All: true, IncludeEdge: true, World: w})
	mustValidate(t, sc.Suite)
	if strings.Contains(sc.Suite, "\n# injected") || strings.Contains(sc.Suite, "\n  # injected") {
		t.Errorf("a tool error broke out of its comment:\n%s", sc.Suite)
	}
	var doc struct {
		Tools []struct {
			Name string         `yaml:"name"`
			Args map[string]any `yaml:"args"`
		} `yaml:"tools"`
	}
	if err := yaml.Unmarshal([]byte(sc.Suite), &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Tools {
		if c.Name == "read: valid arguments" && c.Args["name"] != names[2] {
			t.Errorf("the value reads back as %q, not %q", c.Args["name"], names[2])
		}
	}
}
