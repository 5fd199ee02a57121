package annotate

import (
	"encoding/json"
	"fmt"
	"html/template"
	"reflect"
	"sort"
	"strings"

	"github.com/mcptest/mcptest/report"
)

// htmlFigure is one figure of a case against its threshold: "57 < 80",
// with the outcome that colours it (pass, fail, or "" for a figure no
// assertion holds to a threshold, shown muted).
type htmlFigure struct {
	Name, Short, Value, Against, Outcome, Need string
}

// htmlGate is a gate's figures under the gate's name (tool_selection,
// distractors, reliability, ...), in figure order.
type htmlGate struct {
	Name    string
	Figures []htmlFigure
}

// threshold is a one-key comparison matcher on a number: {">=": 80}.
type threshold struct {
	op string
	at float64
}

// thresholdOf reads a comparison matcher ({">=": 80}), an exact number
// ({exact: 0}) or a schema
// matcher with one bound ({"schema": {"minimum": 80}}); ok is false for
// any other.
func thresholdOf(m any) (threshold, bool) {
	mm, ok := m.(map[string]any)
	if !ok || len(mm) != 1 {
		return threshold{}, false
	}
	if sch, ok := mm["schema"].(map[string]any); ok && len(sch) == 1 {
		bounds := map[string]string{"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
		for k, v := range sch {
			f, isNum := number(v)
			if op, known := bounds[k]; known && isNum {
				return threshold{op, f}, true
			}
		}
		return threshold{}, false
	}
	for k, v := range mm {
		f, isNum := number(v)
		switch k {
		case ">=", ">", "<=", "<", "==":
			if isNum {
				return threshold{k, f}, true
			}
		case "exact":
			if isNum {
				return threshold{"==", f}, true
			}
		}
	}
	return threshold{}, false
}

// number reads a matcher's bound: a float64 from a decoded envelope, a
// json.Number from a cached case, an integer from a suite.
func number(v any) (float64, bool) {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		return f, err == nil
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Float32, reflect.Float64:
		return r.Float(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(r.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(r.Uint()), true
	}
	return 0, false
}

// limit is a figure held to a threshold, and whether it held.
type limit struct {
	threshold
	passed bool
}

// limitsOf finds the threshold each figure of a case is held to: its
// assertions' comparisons (a failing one wins over a passing one), and
// the floors of a tool_selection: block.
func limitsOf(c *report.CaseResult) map[string]limit {
	out := map[string]limit{}
	for _, a := range c.Assertions {
		t, ok := thresholdOf(a.Matcher)
		if !ok {
			continue
		}
		if prev, seen := out[a.Target]; !seen || prev.passed && !a.Passed {
			out[a.Target] = limit{t, a.Passed}
		}
	}
	if ts := c.ToolSelection; ts != nil {
		rate := ts.MinSelectionRate
		if rate <= 1 {
			rate *= 100
		}
		add := func(name string, t threshold) {
			if v, ok := c.Targets[name]; ok {
				if _, seen := out[name]; !seen {
					out[name] = limit{t, t.margin(v) >= 0}
				}
			}
		}
		add("tool_selection.selection_rate", threshold{">=", rate})
		if ts.MaxTotalTokens != nil {
			add("tool_selection.tokens_max", threshold{"<=", float64(*ts.MaxTotalTokens)})
		}
	}
	return out
}

// relation is how v stands to t as one sign: "57 < 80".
func relation(v, t float64) string {
	switch {
	case v < t:
		return "<"
	case v > t:
		return ">"
	}
	return "="
}

// margin is how far v is inside its threshold (negative when outside),
// in the threshold's units, for picking the worst figure of a run.
func (t threshold) margin(v float64) float64 {
	switch t.op {
	case "<=", "<":
		return t.at - v
	case "==":
		if v == t.at {
			return 0
		}
		return -1
	}
	return v - t.at
}

// figuresOf groups a case's figures by gate, the gates in order of their
// first figure, each figure against the threshold it is held to
// (limitsOf), if any. A figure with no gate prefix is the case's own.
func figuresOf(c *report.CaseResult) []htmlGate {
	held := limitsOf(c)
	var gates []htmlGate
	index := map[string]int{}
	for _, p := range figurePairs(c) {
		name, value := p[0], p[1]
		gateName, short, ok := strings.Cut(name, ".")
		if !ok {
			gateName, short = "case", name
		}
		f := htmlFigure{Name: Clean(name), Short: Clean(short), Value: Clean(value)}
		if l, ok := held[name]; ok {
			f.Outcome, f.Need = "pass", Clean("needs "+l.op+" "+compact(l.at))
			if !l.passed {
				f.Outcome = "fail"
			}
			if v, isNum := c.Targets[name]; isNum {
				f.Against = relation(v, l.at) + " " + compact(l.at)
			}
		}
		gi, seen := index[gateName]
		if !seen {
			gi = len(gates)
			index[gateName] = gi
			gates = append(gates, htmlGate{Name: Clean(gateName)})
		}
		gates[gi].Figures = append(gates[gi].Figures, f)
	}
	return gates
}

// heldFigures are the figures of a case that an assertion holds to a
// threshold, failing ones first: the case row shows them.
func heldFigures(gates []htmlGate) []htmlFigure {
	var bad, good []htmlFigure
	for _, g := range gates {
		for _, f := range g.Figures {
			switch f.Outcome {
			case "fail":
				bad = append(bad, f)
			case "pass":
				good = append(good, f)
			}
		}
	}
	return append(bad, good...)
}

// worstFloor is the figure of the run furthest below its threshold (or,
// when every figure holds, the one closest to it), for the summary strip:
// "weather: tool_selection.f1 57 < 80". When no figure fails but a case
// failed on an assertion that holds no figure to a number (a
// final_response that lacks a word, a figure the case did not compute),
// it is that assertion, failing: a green "closest floor" would hide it.
type worstFloor struct {
	// Label is "worst floor", "closest floor" or "failing assertion".
	Label                                     string
	Case, Name, Value, Against, Outcome, Href string
}

// scale makes margins of figures in different units comparable: a
// margin over the threshold's size (at least 1).
func scale(t float64) float64 {
	if t < 0 {
		t = -t
	}
	if t < 1 {
		return 1
	}
	return t
}

func worstFloorOf(env *report.Envelope) *worstFloor {
	var best *worstFloor
	bestMargin := 0.0
	consider := func(w worstFloor, m float64) {
		if best == nil || m < bestMargin {
			best, bestMargin = &w, m
		}
	}
	for i, c := range env.Cases {
		held := limitsOf(c)
		names := make([]string, 0, len(held))
		for name := range held {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			l := held[name]
			v, isNum := c.Targets[name]
			if !isNum {
				continue
			}
			out := "pass"
			if !l.passed {
				out = "fail"
			}
			consider(worstFloor{Case: Clean(c.Name), Name: Clean(name), Value: compact(v), Against: relation(v, l.at) + " " + compact(l.at),
				Outcome: out, Href: fmt.Sprintf("#case-%d", i+1)}, l.margin(v)/scale(l.at))
		}
	}
	for _, f := range env.Floors {
		t, ok := thresholdOf(f.Matcher)
		v, isNum := number(f.Actual)
		if !ok || !isNum || f.Deferred {
			continue
		}
		out := "pass"
		if !f.Passed {
			out = "fail"
		}
		consider(worstFloor{Case: "suite", Name: Clean(f.Target), Value: compact(v), Against: relation(v, t.at) + " " + compact(t.at), Outcome: out, Href: "#reliability"}, t.margin(v)/scale(t.at))
	}
	if best != nil && best.Outcome == "fail" {
		best.Label = "worst floor"
		return best
	}
	if failed := failedAssertionOf(env); failed != nil {
		return failed
	}
	if best != nil {
		best.Label = "closest floor"
	}
	return best
}

// failedAssertionOf is the first failed assertion of the first case that
// failed on one, for the summary strip: its target, actual value and
// matcher; nil when no case failed on an assertion.
func failedAssertionOf(env *report.Envelope) *worstFloor {
	for i, c := range env.Cases {
		if c.Verdict != report.Fail {
			continue
		}
		for _, a := range c.Assertions {
			if a.Passed {
				continue
			}
			w := &worstFloor{Label: "failing assertion", Case: Clean(c.Name), Name: Clean(a.Target), Value: "no value",
				Against: Clean("needs " + clip(literal(a.Matcher), 120)), Outcome: "fail", Href: fmt.Sprintf("#case-%d", i+1)}
			if a.Actual != nil {
				w.Value = Clean(clip(literal(a.Actual), 120))
			}
			return w
		}
	}
	return nil
}

// ticks renders recorded text with its backticked names as inline code:
// "`get_weather` was never called" shows get_weather in code type. Every
// piece is escaped; an unpaired backtick stays a backtick.
func ticks(s string) template.HTML {
	parts := strings.Split(s, "`")
	if len(parts) < 3 {
		return template.HTML(template.HTMLEscapeString(s))
	}
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i%2 == 0:
			b.WriteString(template.HTMLEscapeString(p))
		case i == len(parts)-1:
			// An odd number of backticks: the last one has no pair.
			b.WriteString("`" + template.HTMLEscapeString(p))
		default:
			b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
		}
	}
	return template.HTML(b.String())
}
