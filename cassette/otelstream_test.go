package cassette

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// spansDraw draws OTLP JSON export requests: resources of scope spans of
// agent, model, tool and MCP spans in traces, mostly of the shape
// readSpans reads, with near misses mixed in at a low rate (a member OTLP
// does not have, one twice, a null or an object where an array is, an
// element that is not an object, a span without its trace id, the old
// instrumentationLibrarySpans before scopeSpans, a number out of range, a
// call-shaped object nested about as deep as the audit looks).
type spansDraw struct {
	draws
	n int // spans drawn
}

func spanAttr(k string, v any) any {
	switch v := v.(type) {
	case string:
		return ord{{"key", k}, {"value", ord{{"stringValue", v}}}}
	case int:
		return ord{{"key", k}, {"value", ord{{"intValue", fmt.Sprint(v)}}}}
	}
	return ord{{"key", k}, {"value", v}}
}

func (g *spansDraw) doc() string {
	g.n = 0
	var resources []any
	for range 1 + g.rng.IntN(3) {
		resources = append(resources, g.resource())
	}
	root := ord{{"resourceSpans", any(resources)}}
	if g.maybe() {
		root = append(root, [2]any{g.pick("resourceSpans", "messages", "eval", "extra").(string), []any{}})
	}
	if g.maybe() {
		root[0][1] = g.pick(nil, ord{}, "x")
	}
	var b strings.Builder
	writeJSON(&b, root)
	return b.String()
}

func (g *spansDraw) resource() any {
	r := ord{}
	if g.rng.IntN(2) == 0 {
		r = append(r, [2]any{"resource", ord{{"attributes", []any{spanAttr("service.name", "agent")}}}})
	}
	var scopes []any
	for range 1 + g.rng.IntN(2) {
		scopes = append(scopes, g.scope())
	}
	r = append(r, [2]any{"scopeSpans", scopes})
	if g.rng.IntN(5) == 0 {
		old := ord{{"instrumentationLibrarySpans", []any{g.scope()}}}
		if g.rng.IntN(2) == 0 {
			r = append(old, r...)
		} else {
			r = append(r, old...)
		}
	}
	if g.rng.IntN(4) == 0 {
		r = append(r, [2]any{"schemaUrl", "https://opentelemetry.io/schemas/1.26.0"})
	}
	switch {
	case !g.maybe():
	case g.rng.IntN(3) == 0:
		r = append(r, r[len(r)-1])
	case g.rng.IntN(3) == 0:
		r = append(r, [2]any{g.pick("name", "spans", "other").(string), g.pick("x", []any{})})
	case g.rng.IntN(2) == 0:
		r = append(r, [2]any{"name", "ghost"}, [2]any{"arguments", ord{{"q", 1.0}}})
	default:
		r = append(r, [2]any{"resource", ord{{"attributes", []any{ghost(g.pick(58, 59, 60).(int))}}}})
	}
	if g.maybe() {
		return g.pick(nil, "resource", 3.0)
	}
	return r
}

func (g *spansDraw) scope() any {
	s := ord{}
	if g.rng.IntN(2) == 0 {
		s = append(s, [2]any{"scope", ord{{"name", "opentelemetry.instrumentation.openai_agents"}, {"version", "0.1.0"}}})
	}
	trace := fmt.Sprintf("%032x", g.rng.IntN(3)+1)
	var spans []any
	root := g.span(trace, "", "invoke_agent helper", spanAttr("gen_ai.operation.name", "invoke_agent"), spanAttr("gen_ai.agent.name", "helper"))
	spans = append(spans, root)
	parent := fmt.Sprintf("%016x", g.n)
	for range g.rng.IntN(6) {
		tool := g.pick("get-sum", "echo", "mcp__fs__read_file", "search").(string)
		switch g.rng.IntN(3) {
		case 0:
			spans = append(spans, g.span(trace, parent, "execute_tool "+tool,
				spanAttr("gen_ai.operation.name", "execute_tool"), spanAttr("gen_ai.tool.name", tool),
				spanAttr("gen_ai.tool.call.id", fmt.Sprintf("call_%d", g.n)),
				spanAttr("gen_ai.tool.call.arguments", `{"a":1}`), spanAttr("gen_ai.tool.call.result", "ok")))
		case 1:
			spans = append(spans, g.span(trace, parent, "tools/call "+tool,
				spanAttr("mcp.method.name", "tools/call"), spanAttr("gen_ai.tool.name", tool)))
		default:
			spans = append(spans, g.span(trace, parent, "chat gpt-4o",
				spanAttr("gen_ai.operation.name", "chat"), spanAttr("gen_ai.request.model", "gpt-4o"),
				spanAttr("gen_ai.usage.input_tokens", 10), spanAttr("gen_ai.usage.output_tokens", 2)))
		}
	}
	if g.rng.IntN(2) == 0 {
		g.rng.Shuffle(len(spans), func(i, j int) { spans[i], spans[j] = spans[j], spans[i] })
	}
	s = append(s, [2]any{"spans", spans})
	switch {
	case !g.maybe():
	case g.rng.IntN(3) == 0:
		s = append(s, [2]any{"spans", []any{}})
	case g.rng.IntN(3) == 0:
		s[len(s)-1][1] = g.pick(nil, ord{}, []any{"span", 1.0})
	case g.rng.IntN(2) == 0:
		s = append(s, [2]any{"name", "ghost"}, [2]any{"input", ord{{"q", 1.0}}})
	default:
		s = append(s, [2]any{"scope", ord{{"name", "x"}, {"attributes", []any{ghost(g.pick(56, 57, 58).(int))}}}})
	}
	return s
}

func (g *spansDraw) span(trace, parent, name string, attrs ...any) any {
	g.n++
	start := 1000 + 10*g.rng.IntN(50)
	s := ord{{"traceId", trace}, {"spanId", fmt.Sprintf("%016x", g.n)}, {"parentSpanId", parent}, {"name", name},
		{"startTimeUnixNano", fmt.Sprint(start)}, {"endTimeUnixNano", fmt.Sprint(start + 5)}, {"attributes", attrs}}
	if g.rng.IntN(4) == 0 {
		s = append(s, [2]any{"status", ord{{"code", g.pick(1.0, 2.0, "STATUS_CODE_ERROR")}}})
	}
	if !g.maybe() {
		return s
	}
	switch g.rng.IntN(4) {
	case 0:
		return s[1:] // no trace id
	case 1:
		return append(s, [2]any{"kind", raw("1e999")})
	case 2:
		return append(s, s[3])
	}
	return append(s, [2]any{"links", []any{ghost(g.pick(0, 55, 56, 57).(int))}})
}

// TestReadSpansAsGeneric: readSpans reads what the generic path reads. It
// draws 3,000 OTLP export requests, half with no near miss and half with
// near misses at a rate of one in twenty, each read by Read and by the
// generic path alone: the same cassette and the same errors. A refusal
// leaves nothing recorded, and a draw of the first half that the generic
// path reads without a problem is one readSpans must read.
func TestReadSpansAsGeneric(t *testing.T) {
	took := asGeneric(t, 3000, func(i int, miss float64) []byte {
		g := &spansDraw{draws: draws{rand.New(rand.NewPCG(uint64(i), 41)), miss}}
		return []byte(g.doc())
	}, (*decoder).readSpans, FormatOTel)
	if took[FormatOTel] < 1500 {
		t.Errorf("readSpans read %d of the 3,000 draws, want at least 1,500", took[FormatOTel])
	}
}
