package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/engine/schema"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/gate/security"
	"github.com/mcptest/mcptest/live"
)

// PageSize is how many tools one scaffold_suite answer covers.
const PageSize = 25

// SchemaHeader starts every generated suite: the yaml-language-server
// modeline naming the suite schema at the running build's release
// (schema.Modeline).
func SchemaHeader() string { return schema.Modeline() }

// ScaffoldOptions are scaffold_suite's knobs (and `mcptest generate suite`'s
// flags).
type ScaffoldOptions struct {
	Tools            []string
	IncludeEdge      bool
	IncludeViolation bool
	Probe            bool
	All              bool
	Cursor           int
	// IncludeWrites emits the tests of tools that change state (see
	// Writes) as live tests; without it they are written commented out
	// under a review marker, so the suite never calls them for real.
	IncludeWrites bool
	// World is what the live server answered when the suite was
	// generated (ExploreWorld): the arguments it accepted replace the
	// schema's placeholders, and a boundary it answered with a tool error
	// is expected as one. nil renders from the schemas alone.
	World *World
}

// ToolCount is how many tests one tool received.
type ToolCount struct {
	Name           string `json:"name"`
	TestsGenerated int    `json:"tests_generated"`
}

// Scaffold is a rendered starter suite and what it holds.
type Scaffold struct {
	Suite               string             `json:"suite"`
	Tools               []ToolCount        `json:"tools"`
	ResourcesScaffolded int                `json:"resources_scaffolded"`
	PromptsScaffolded   int                `json:"prompts_scaffolded"`
	Notes               []string           `json:"notes"`
	NextCursor          *int               `json:"next_cursor,omitempty"`
	Warnings            []security.Finding `json:"warnings,omitempty"`
	// HeldWrites names the tools whose tests were written commented out
	// because they change state (ScaffoldOptions.IncludeWrites).
	HeldWrites []string `json:"held_writes,omitempty"`
}

// ScaffoldSuite renders the starter suite of a catalog for the target (the
// server the suite's servers: block declares as `target`). It never calls a
// tool: the arguments a live server accepted come in opt.World (ExploreWorld,
// which `mcptest generate suite` runs first). scaffold_suite and `mcptest
// generate suite` both render with it.
func ScaffoldSuite(cat *live.Catalog, t live.Target, opt ScaffoldOptions) Scaffold {
	out := Scaffold{Tools: []ToolCount{}, Notes: []string{}, Warnings: cat.DescriptionWarnings()}
	pg := pageTools(cat, opt.Tools, opt.All, opt.Cursor)
	written := writtenAnnotations(cat)

	var b, body strings.Builder
	writeHeader(&b, "suite", "Every test calls its tool on the live server `target`; review the arguments before the first run.", t)
	rm := newRoom(b.String())
	names := nameSet{}
	// The read tests come last in the suite but take their room first, so
	// a full page of tools cannot crowd them out.
	var reads strings.Builder
	if pg.first {
		out.ResourcesScaffolded, out.PromptsScaffolded = readTests(&reads, rm, cat, names, &out.Notes)
	}
	out.NextCursor = pg.fill(&body, rm, &out.Notes, func(tl *mcp.Tool) (string, func()) {
		var blk strings.Builder
		var notes []string
		n := 0
		test := func(name string, args any, assertions ...string) {
			n++
			fmt.Fprintf(&blk, "  - name: %s\n    server: \"target\"\n    tool: %s\n    args: %s\n    expect:\n", q(names.take(tl.Name+": "+name)), q(tl.Name), q(args))
			for _, a := range assertions {
				blk.WriteString(a)
			}
		}
		held := !opt.IncludeWrites && gate.MayWrite(tl.Name, written[tl])
		if !held {
			reviewMarker(&blk, tl, "these tests call it for real")
		}
		schema := schemaMap(tl.InputSchema)
		notError := expectLine("result.isError", map[string]any{"not": map[string]any{"exact": true}}, "")
		valid := opt.World.validArgs(&blk, &notes, tl.Name, objectArgs(synth(schema, schema, 0, false)))
		test("valid arguments", valid, notError)
		if opt.IncludeEdge {
			test("boundary values", objectArgs(synth(schema, schema, 0, true)), opt.World.edgeExpect(&blk, tl.Name))
		}
		if args, ok := violation(schema); opt.IncludeViolation && ok {
			test("schema violation", args, expectLine("result.isError", map[string]any{"exact": true}, "arguments that break the input schema must be rejected"))
		} else if opt.IncludeViolation {
			notes = append(notes, fmt.Sprintf("%s: its input schema accepts any arguments (nothing required, no typed property, additionalProperties not false); no schema-violation test", oneLineName(tl.Name)))
		}
		if tl.OutputSchema != nil && !matcherValid(map[string]any{"schema": schemaMap(tl.OutputSchema)}) {
			notes = append(notes, fmt.Sprintf("%s: its outputSchema is not a valid JSON Schema; no output-schema test", oneLineName(tl.Name)))
		} else if tl.OutputSchema != nil {
			test("output matches its outputSchema", valid, notError, expectLine("result.structuredContent", map[string]any{"schema": schemaMap(tl.OutputSchema)}, ""))
		}
		if opt.Probe {
			ps := probes(schema)
			if len(ps) > maxProbes {
				notes = append(notes, fmt.Sprintf("%s: the first %d of its %d probes are scaffolded", oneLineName(tl.Name), maxProbes, len(ps)))
				ps = ps[:maxProbes]
			}
			for _, p := range ps {
				test(p.name, p.args(), expectLine("result.isError", map[string]any{"exact": true}, p.why))
			}
		}
		text := blk.String()
		if held {
			text = commentOut(tl, text)
		}
		return text, func() {
			out.Notes = append(out.Notes, notes...)
			out.Tools = append(out.Tools, ToolCount{tl.Name, n})
			if held {
				out.HeldWrites = append(out.HeldWrites, tl.Name)
			}
		}
	})
	if len(out.HeldWrites) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d %s state (annotations or name): their tests are commented out under a review marker so the suite never calls them for real; uncomment them after review, or generate with --include-writes", len(out.HeldWrites), plural(len(out.HeldWrites), "tool changes", "tools change")))
	}
	live := reads.Len() > 0 || len(out.HeldWrites) < len(out.Tools)
	body.WriteString(reads.String())
	switch {
	case body.Len() > 0 && !live:
		// Comments alone would leave tools: null, which no suite accepts.
		b.WriteString("\ntools: []  # every test below is commented out for review: remove this [] when you uncomment one\n")
		b.WriteString(body.String())
	case body.Len() > 0:
		b.WriteString("\ntools:\n")
		b.WriteString(body.String())
	}
	out.Suite = b.String()
	return out
}

// readTests writes a resources/read test per declared resource and a
// prompts/get test per declared prompt, PageSize of each at most, and
// returns how many of each it wrote.
func readTests(b *strings.Builder, rm *room, cat *live.Catalog, names nameSet, notes *[]string) (resources, prompts int) {
	nonEmpty := map[string]any{"schema": map[string]any{"type": "array", "minItems": 1}}
	resources = capped(b, rm, cat.Resources, func(r *mcp.Resource) string { return r.URI }, "resource", "uri", notes, func(r *mcp.Resource) string {
		return fmt.Sprintf("  - name: %s\n    server: \"target\"\n    resource: %s\n    expect:\n%s", q(names.take("resource "+r.URI+": reads its contents")), q(r.URI),
			expectLine("result.contents", nonEmpty, "resources/read must answer the resource's contents"))
	})
	if n := len(cat.ResourceTemplates); n > 0 {
		*notes = append(*notes, fmt.Sprintf("resource templates have no read test (%d): a template's uri needs its variables filled in; add a `resource:` test per uri you rely on", n))
	}
	prompts = capped(b, rm, cat.Prompts, func(p *mcp.Prompt) string { return p.Name }, "prompt", "name", notes, func(p *mcp.Prompt) string {
		test := fmt.Sprintf("  - name: %s\n    server: \"target\"\n    prompt: %s\n", q(names.take("prompt "+p.Name+": gets its messages")), q(p.Name))
		if args, offered := promptArgs(p, cat.PromptValues[p.Name]); len(args) > 0 && offered {
			// Values the server's own completion offered.
			test = fmt.Sprintf("  # the arguments of %s are the first values the server's completion/complete offered\n", oneLineName(p.Name)) +
				test + fmt.Sprintf("    args: %s\n", q(args))
		} else if len(args) > 0 {
			// A prompt argument has no schema: the placeholder may be a
			// value the server refuses.
			test = fmt.Sprintf("  # review before first run: the required arguments of %s are placeholders; set values the prompt accepts\n", oneLineName(p.Name)) +
				test + fmt.Sprintf("    args: %s\n", q(args))
		}
		return test + "    expect:\n" + expectLine("result.messages", nonEmpty, "prompts/get must answer the prompt's messages")
	})
	return resources, prompts
}

// capped renders the test of each item with a key (a resource's uri, a
// prompt's name), sorted by it, PageSize at most and while they fit the
// room, notes what it left out and returns how many it wrote.
func capped[T any](b *strings.Builder, rm *room, items []*T, key func(*T) string, what, keyName string, notes *[]string, render func(*T) string) int {
	var keyed []*T
	for _, it := range items {
		if it != nil && key(it) != "" {
			keyed = append(keyed, it)
		}
	}
	if n := len(items) - len(keyed); n > 0 {
		*notes = append(*notes, fmt.Sprintf("%d %ss without a %s were left out", n, what, keyName))
	}
	slices.SortStableFunc(keyed, func(a, b *T) int { return strings.Compare(key(a), key(b)) })
	if len(keyed) > PageSize {
		*notes = append(*notes, fmt.Sprintf("%ss truncated: the first %d of %d (by %s) are scaffolded", what, PageSize, len(keyed), keyName))
		keyed = keyed[:PageSize]
	}
	n := 0
	for _, it := range keyed {
		if test := render(it); rm.take(test) {
			b.WriteString(test)
			n++
		} else {
			*notes = append(*notes, fmt.Sprintf("%s %s: its test does not fit in the suite's size limit; left out", what, oneLineName(key(it))))
		}
	}
	return n
}

// promptArgs fills in a prompt's required arguments: prompts/get takes
// strings. An argument gets the value the server's completion offered
// (offered, from live.Catalog.PromptValues), else the placeholder
// "example"; all reports whether every one was offered.
func promptArgs(p *mcp.Prompt, offered map[string]string) (args map[string]any, all bool) {
	args, all = map[string]any{}, true
	for _, a := range p.Arguments {
		if a != nil && a.Required {
			if v, ok := offered[a.Name]; ok {
				args[a.Name] = v
				continue
			}
			args[a.Name], all = "example", false
		}
	}
	return args, all
}

// matcherValid reports whether the suite loader accepts the matcher, so a
// scaffolded suite validates as returned whatever the server advertised.
func matcherValid(m any) bool {
	suite := "servers:\n  probe: {command: [probe]}\ntools:\n  - name: probe\n    server: probe\n    tool: probe\n    expect:\n      - target: result\n        matcher: " + q(m) + "\n"
	_, err := engine.ParseSuite("matcher.yml", []byte(suite))
	return err == nil
}

// objectArgs keeps synthesized arguments that are an object: tools/call
// arguments always are, whatever the advertised schema says.
func objectArgs(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

func slicesSorted(tools []*mcp.Tool) []*mcp.Tool {
	out := append([]*mcp.Tool(nil), tools...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// oneLineName makes a server-supplied name safe inside a YAML comment: one
// line of printable, valid UTF-8, 120 characters at most.
func oneLineName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || yamlUnprintable(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return clipRunes(s, 120)
}

func expectLine(target string, matcher any, msg string) string {
	s := fmt.Sprintf("      - target: %s\n        matcher: %s\n", q(target), q(matcher))
	if msg != "" {
		s += fmt.Sprintf("        message: %s\n", q(msg))
	}
	return s
}

func schemaMap(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]any{}
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// resolve follows a local $ref and folds allOf; it returns s itself
// otherwise.
func resolve(root, s map[string]any, depth int) map[string]any {
	if depth > 8 {
		return s
	}
	if ref, ok := s["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
		cur := any(root)
		for _, part := range strings.Split(ref[2:], "/") {
			m, _ := cur.(map[string]any)
			cur = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
		}
		if m, ok := cur.(map[string]any); ok {
			return resolve(root, m, depth+1)
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		merged := map[string]any{"type": "object", "properties": map[string]any{}}
		var req []any
		for _, x := range all {
			part := resolve(root, asMap(x), depth+1)
			for k, v := range asMap(part["properties"]) {
				merged["properties"].(map[string]any)[k] = v
			}
			if r, ok := part["required"].([]any); ok {
				req = append(req, r...)
			}
		}
		merged["required"] = req
		return merged
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			for _, a := range alts {
				if am := asMap(a); am["type"] != "null" {
					return resolve(root, am, depth+1)
				}
			}
		}
	}
	return s
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return m
}

func typeOf(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x != "null" {
				return fmt.Sprint(x)
			}
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return ""
}

// synth makes a value that satisfies s: the required properties of an
// object, enums' first value, formats, bounds. edge picks the boundary (the
// minimum, the shortest string, an empty optional list) instead.
func synth(root, s map[string]any, depth int, edge bool) any {
	s = resolve(root, s, 0)
	if v, ok := given(s, edge); ok {
		return v
	}
	if depth > 6 {
		return nil
	}
	switch typeOf(s) {
	case "object":
		out := map[string]any{}
		props := asMap(s["properties"])
		req, _ := s["required"].([]any)
		for _, r := range req {
			name := fmt.Sprint(r)
			out[name] = synth(root, asMap(props[name]), depth+1, edge)
		}
		return out
	case "array":
		return synthArray(root, s, depth, edge)
	case "integer", "number":
		return synthNumber(s, edge)
	case "boolean":
		return !edge
	case "null":
		return nil
	}
	// A string, or no type at all.
	return synthString(s, edge)
}

// given is the value the schema names itself: its const, an enum's first
// (edge: last) value, else, off the edge, its default or first example.
func given(s map[string]any, edge bool) (any, bool) {
	if v, ok := s["const"]; ok {
		return v, true
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		if edge {
			return e[len(e)-1], true
		}
		return e[0], true
	}
	if edge {
		return nil, false
	}
	if v, ok := s["default"]; ok {
		return v, true
	}
	if ex, ok := s["examples"].([]any); ok && len(ex) > 0 {
		return ex[0], true
	}
	return nil, false
}

// synthArray makes minItems items (one, or none on the edge, when the
// schema sets no minimum), at most 5.
func synthArray(root, s map[string]any, depth int, edge bool) []any {
	n := 1
	if m, ok := s["minItems"].(float64); ok {
		n = int(m)
	} else if edge {
		n = 0
	}
	out := []any{}
	for range min(n, 5) {
		out = append(out, synth(root, asMap(s["items"]), depth+1, edge))
	}
	return out
}

// synthNumber is the minimum, else 1 (or the maximum when it is below 1);
// on the edge the minimum, else the maximum, else 0.
func synthNumber(s map[string]any, edge bool) any {
	lo, hasLo := s["minimum"].(float64)
	if x, ok := s["exclusiveMinimum"].(float64); ok {
		lo, hasLo = x+1, true
	}
	hi, hasHi := s["maximum"].(float64)
	switch {
	case hasLo:
		return lo
	case edge && hasHi:
		return hi
	case edge:
		return 0
	case hasHi && hi < 1:
		return hi
	}
	return 1
}

// formatExamples are strings of the formats a schema may name.
var formatExamples = map[string]string{
	"email":     "user@example.com",
	"uri":       "https://example.com/",
	"url":       "https://example.com/",
	"date-time": "2026-01-01T00:00:00Z",
	"date":      "2026-01-01",
	"uuid":      "00000000-0000-4000-8000-000000000000",
}

// synthString is an example of the schema's format, else "example" (""
// on the edge), padded to minLength and cut to maxLength.
func synthString(s map[string]any, edge bool) string {
	format, _ := s["format"].(string)
	v, ok := formatExamples[format]
	switch {
	case ok:
	case edge:
		v = ""
	default:
		v = "example"
	}
	if m, ok := s["minLength"].(float64); ok {
		for len(v) < int(m) {
			v += "x"
		}
	}
	if m, ok := s["maxLength"].(float64); ok && len(v) > int(m) {
		v = v[:int(m)]
	}
	return v
}

// violation makes arguments that break the input schema: a required
// property dropped, else a property of the wrong type, else, when the schema
// says additionalProperties: false, an argument it does not declare. A
// schema that accepts any arguments has no violation: ok is false.
func violation(root map[string]any) (args map[string]any, ok bool) {
	s := resolve(root, root, 0)
	args, _ = synth(root, s, 0, false).(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	props := asMap(s["properties"])
	if req, _ := s["required"].([]any); len(req) > 0 {
		delete(args, fmt.Sprint(req[0]))
		return args, true
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if w, ok := wrongType(typeOf(resolve(root, asMap(props[k]), 0))); ok {
			args[k] = w
			return args, true
		}
	}
	if s["additionalProperties"] != false {
		return nil, false
	}
	args["mcptest_unexpected_argument"] = true
	return args, true
}

func wrongType(t string) (any, bool) {
	switch t {
	case "string":
		return 12345, true
	case "integer", "number", "boolean":
		return "not-a-" + t, true
	case "object", "array":
		return "not-an-" + t, true
	}
	return nil, false
}

type probe struct {
	name, why string
	// args builds the probe's arguments: a copy of the valid ones, only
	// for the probes a page renders.
	args func() map[string]any
}

// maxProbes caps the probes of one tool: a schema with many bounded
// properties would otherwise fill a page on its own.
const maxProbes = 60

// probes are the schema-derived negative cases of --probe: per property, a
// value of the wrong type, and below the minimum or past the maximum.
func probes(root map[string]any) []probe {
	s := resolve(root, root, 0)
	base, _ := synth(root, s, 0, false).(map[string]any)
	props := asMap(s["properties"])
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []probe
	with := func(k string, v any) func() map[string]any {
		return func() map[string]any {
			m := map[string]any{}
			for a, b := range base {
				m[a] = b
			}
			m[k] = v
			return m
		}
	}
	for _, k := range names {
		p := resolve(root, asMap(props[k]), 0)
		if w, ok := wrongType(typeOf(p)); ok {
			out = append(out, probe{"probe " + k + " wrong type", "`" + k + "` of the wrong type must be rejected", with(k, w)})
		}
		if lo, ok := p["minimum"].(float64); ok {
			out = append(out, probe{"probe " + k + " below minimum", "`" + k + "` below its minimum " + strconv.FormatFloat(lo, 'f', -1, 64) + " must be rejected", with(k, lo-1)})
		}
		if hi, ok := p["maximum"].(float64); ok {
			out = append(out, probe{"probe " + k + " above maximum", "`" + k + "` above its maximum " + strconv.FormatFloat(hi, 'f', -1, 64) + " must be rejected", with(k, hi+1)})
		}
	}
	return out
}

type scaffoldIn struct {
	Target
	Tools            []string  `json:"tools,omitempty" jsonschema:"scaffold only these tools"`
	IncludeEdge      *bool     `json:"include_edge,omitempty" jsonschema:"emit a boundary edge case per tool (default true)"`
	IncludeViolation *bool     `json:"include_violation,omitempty" jsonschema:"emit a schema-violation case per tool (default true)"`
	Probe            bool      `json:"probe,omitempty" jsonschema:"also emit the schema-derived negative probe cases per tool"`
	All              bool      `json:"all,omitempty" jsonschema:"bypass the 25-tool page cap"`
	Cursor           cursorArg `json:"cursor,omitempty" jsonschema:"the next_cursor of the previous answer (an integer or its string form)"`
}

// cursorArg is a cursor as the agent sends it: an integer or its string
// form.
type cursorArg struct{ raw json.RawMessage }

func (c *cursorArg) UnmarshalJSON(b []byte) error {
	c.raw = append(json.RawMessage(nil), b...)
	return nil
}

// cursorSchema is cursorArg's input schema.
var cursorSchema = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
	{Type: "integer", Minimum: jsonschema.Ptr(0.0)},
	{Type: "string", Pattern: "^[0-9]+$"},
}}

// offset decodes the cursor; an absent one is 0.
func (c cursorArg) offset() (int, error) {
	if len(c.raw) == 0 || string(c.raw) == "null" {
		return 0, nil
	}
	var n int
	if json.Unmarshal(c.raw, &n) == nil && n >= 0 {
		return n, nil
	}
	var str string
	if json.Unmarshal(c.raw, &str) == nil {
		if n, err := strconv.Atoi(str); err == nil && n >= 0 {
			return n, nil
		}
	}
	return 0, fmt.Errorf("cursor %s: expected the non-negative integer next_cursor of the previous answer, or its string form", c.raw)
}

func (s *server) scaffoldSuite(ctx context.Context, in scaffoldIn) (any, error) {
	cat, t, cursor, err := s.introspect(ctx, in.Target, in.Cursor)
	if err != nil {
		return nil, err
	}
	opt := ScaffoldOptions{Tools: in.Tools, IncludeEdge: in.IncludeEdge == nil || *in.IncludeEdge, IncludeViolation: in.IncludeViolation == nil || *in.IncludeViolation, Probe: in.Probe, All: in.All, Cursor: cursor}
	return ScaffoldSuite(cat, t, opt), nil
}

// writtenAnnotations is each tool's annotations as the server wrote them
// (absent from the map when it sent none): the one write rule
// (gate.MayWrite) reads a hint the typed tool could not hold.
func writtenAnnotations(cat *live.Catalog) map[*mcp.Tool]any {
	raw := cat.RawTools()
	out := make(map[*mcp.Tool]any, len(cat.Tools))
	for i, t := range cat.Tools {
		if a, ok := raw[i]["annotations"]; ok {
			out[t] = a
		}
	}
	return out
}
