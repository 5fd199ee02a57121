package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// eagerCallDocs is the run's calls and turns as the document held them
// before they were built when read: every call's document in a []any,
// shared by calls and its turn's calls. It is the reference the lists of
// addCallLists are held to.
func eagerCallDocs(doc map[string]any, r *cassette.Run) {
	var calls, names, turns []any
	for _, t := range r.Turns {
		var tc []any
		for _, c := range t.Calls {
			call := callDoc(c)
			calls = append(calls, call)
			tc = append(tc, call)
			names = append(names, c.Tool)
		}
		turn := map[string]any{"calls": orEmpty(tc)}
		if t.FinalResponse != "" {
			turn["final_response"] = t.FinalResponse
		}
		turns = append(turns, turn)
	}
	doc["calls"] = orEmpty(calls)
	doc["tool_names"] = orEmpty(names)
	doc["turns"] = orEmpty(turns)
}

// docTargets are the targets TestCallDocsSameAsEager draws: the calls
// and turns as lists, a call or turn by its place (past the end too),
// fields inside a call, the whole document ("") and the fields beside.
var docTargets = []string{"calls", "turns", "", "turns[0].calls", "turns[1].calls", "turns[1]", "turns[9]",
	"calls[0]", "calls[1].tool", "calls[2].arguments", "calls[3].arguments.a", "calls[0].result",
	"calls[1].result.content", "calls[4].result.content[0].text", "calls[40]", "turns[0].calls[1].id",
	"tool_names", "tool_names[2]", "final_response", "run", "tokens.total"}

// TestCallDocsSameAsEager draws runs (turns of calls, empty turns among
// them, with drawn arguments and results of nested shapes, servers,
// errors and final responses) and checks over them (a target of
// docTargets under each matcher kind: exact and == of the value found or
// of a changed one, !=, contains of an element or of none, regex,
// comparisons, schema passing and failing, not), and holds the run's
// document whose calls and turns are built when read to the eager one:
// every check gives the same result, its pass, its message and the value
// it keeps (actualOf, cut or not) alike. A run of 20,000 calls now and
// then takes a schema over MaxInstanceValues. With callList.At off by
// one, or Len one short, it fails.
func TestCallDocsSameAsEager(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 30))
	n := 400
	if testing.Short() {
		n = 100
	}
	// seen tallies what the draws reached, so that a change to them that
	// stops reaching a kind of outcome fails.
	seen := map[string]int{}
	for i := range n {
		r, big := drawDocRun(rng, 4, 9), i%97 == 5
		if big {
			r = drawDocRun(rng, 3, 20_000)
		}
		cas := &cassette.Cassette{Model: "m", Agent: "a"}
		lazy := runDoc(i, cas, r, allCalls)
		eager := runDoc(i, cas, r, noCalls)
		eagerCallDocs(eager, r)
		for k := range 1 + rng.IntN(6) {
			a := drawDocCheck(t, rng, eager)
			if big && k == 0 {
				calls, _ := expr.ParsePath("calls")
				a = &Assertion{Target: calls, Matcher: mustMatcher(t, map[string]any{"schema": map[string]any{"type": "array"}})}
			}
			got, want := newRunCheck(a), newRunCheck(a)
			got.check(i, lazy)
			want.check(i, eager)
			gr, wr := got.result(1), want.result(1)
			if !reflect.DeepEqual(gr, wr) {
				t.Fatalf("run %d (%d turns), target %q, matcher %s:\nlazy  %s\neager %s", i, len(r.Turns),
					a.Target.String(), a.Matcher.String(), checkResultText(gr), checkResultText(wr))
			}
			if v, _ := a.Target.Lookup(eager); isList(v) || a.Target.String() == "" {
				seen[fmt.Sprintf("passed %v", gr.Passed)]++
			}
			if gr.ActualClipped {
				seen["clipped"]++
			}
			if strings.Contains(gr.Message, "JSON values, over the") {
				seen["over MaxInstanceValues"]++
			}
		}
	}
	for _, k := range []string{"passed true", "passed false", "clipped", "over MaxInstanceValues"} {
		if seen[k] == 0 {
			t.Errorf("no check over the calls, turns or document drawn: %s (%v)", k, seen)
		}
	}
}

func isList(v any) bool {
	_, ok := v.([]any)
	return ok
}

// checkResultText shows an assertion result for a failure: its pass, message
// and kept value (cut to 300 bytes).
func checkResultText(r report.AssertionResult) string {
	v := fmt.Sprintf("%v", r.Actual)
	return fmt.Sprintf("passed %v, clipped %v, %q, actual %.300s", r.Passed, r.ActualClipped, r.Message, v)
}

// drawDocCheck draws a check over doc (the eager document): a target of
// docTargets and a matcher, its operand taken from what doc holds there
// when drawn so.
func drawDocCheck(t *testing.T, rng *rand.Rand, doc map[string]any) *Assertion {
	t.Helper()
	var p expr.Path
	if tg := docTargets[rng.IntN(len(docTargets))]; tg != "" {
		var err error
		if p, err = expr.ParsePath(tg); err != nil {
			t.Fatal(err)
		}
	}
	found, _ := p.Lookup(doc)
	var elem any = "nothing"
	if l, ok := found.([]any); ok && len(l) > 0 && rng.IntN(3) > 0 {
		elem = l[rng.IntN(len(l))]
	}
	// changed is a value next to found: a list with its last element
	// left out or replaced.
	var changed any = map[string]any{"changed": found}
	if l, ok := found.([]any); ok && len(l) > 0 {
		cut := append([]any(nil), l[:len(l)-1]...)
		if rng.IntN(2) == 0 {
			cut = append(cut, "last")
		}
		changed = cut
	}
	var m any
	switch rng.IntN(12) {
	case 0, 1:
		m = map[string]any{drawOp(rng, "exact", "=="): found}
	case 2:
		m = map[string]any{drawOp(rng, "exact", "!="): changed}
	case 3:
		m = map[string]any{"!=": found}
	case 4, 5:
		m = map[string]any{"contains": elem}
	case 6:
		m = map[string]any{"regex": drawOp(rng, ".", "^search")}
	case 7:
		m = map[string]any{drawOp(rng, ">=", "<"): float64(rng.IntN(3))}
	case 8, 9:
		m = map[string]any{"schema": drawDocSchema(rng)}
	case 10:
		m = map[string]any{"not": map[string]any{"contains": elem}}
	default:
		m = map[string]any{"not": map[string]any{"schema": drawDocSchema(rng)}}
	}
	return &Assertion{Target: p, Matcher: mustMatcher(t, m)}
}

// drawOp is one of two matcher keys or operands, drawn.
func drawOp(rng *rand.Rand, a, b string) string {
	if rng.IntN(2) == 0 {
		return a
	}
	return b
}

// drawDocSchema draws a JSON Schema over a list, a call or a turn: types,
// item counts, required fields, items and contains.
func drawDocSchema(rng *rand.Rand) any {
	schemas := []any{
		map[string]any{"type": "array"},
		map[string]any{"type": "array", "maxItems": float64(rng.IntN(4))},
		map[string]any{"type": "array", "minItems": float64(1 + rng.IntN(4))},
		map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []any{"tool", "id"}}},
		map[string]any{"type": "array", "items": map[string]any{"properties": map[string]any{"tool": map[string]any{"enum": []any{"search", "fetch"}}}}},
		map[string]any{"contains": map[string]any{"properties": map[string]any{"is_error": map[string]any{"const": true}}, "required": []any{"is_error"}}},
		map[string]any{"type": "object", "required": []any{"calls"}},
		map[string]any{"type": "object", "properties": map[string]any{"calls": map[string]any{"type": "array", "maxItems": float64(rng.IntN(6))}}},
		map[string]any{"type": "string"},
		true,
	}
	return schemas[rng.IntN(len(schemas))]
}

func mustMatcher(t *testing.T, v any) *expr.Matcher {
	t.Helper()
	m, err := expr.ParseMatcher(v)
	if err != nil {
		t.Fatalf("matcher %v: %v", v, err)
	}
	return m
}

// drawDocRun draws a run for the tests of a run's document: up to turns
// turns of up to calls calls each (none now and then), with and without
// a server, arguments of drawn shapes, a result (an MCP one with its
// content, text or another value) or an error, and final responses now
// and then.
func drawDocRun(rng *rand.Rand, turns, calls int) *cassette.Run {
	tools := []string{"search", "fetch", "write_file", "git_reset", ""}
	r := &cassette.Run{}
	for range rng.IntN(turns + 1) {
		var turn cassette.Turn
		for range rng.IntN(calls + 1) {
			c := cassette.Call{Tool: tools[rng.IntN(len(tools))], IsError: rng.IntN(4) == 0}
			if rng.IntN(2) == 0 {
				c.Server = "web"
			}
			if rng.IntN(3) > 0 {
				c.Arguments = cassette.JSONOf(drawArgs(rng, 3))
			}
			switch rng.IntN(4) {
			case 0:
				c.Result = "r"
			case 1:
				c.Result = map[string]any{"content": []any{map[string]any{"type": "text", "text": drawText(rng)}}}
			case 2:
				c.Result = map[string]any{"structured": drawArgs(rng, 2)}
			}
			turn.Calls = append(turn.Calls, c)
		}
		if rng.IntN(2) == 0 {
			turn.FinalResponse = "done " + drawText(rng)
		}
		r.Turns = append(r.Turns, turn)
	}
	return r
}

// drawArgs draws a JSON value depth levels deep at most: an object, a
// list, a string, a number, a boolean or null.
func drawArgs(rng *rand.Rand, depth int) any {
	k := rng.IntN(7)
	if depth == 0 {
		k = 2 + rng.IntN(5)
	}
	switch k {
	case 0:
		m := map[string]any{}
		for range rng.IntN(4) {
			m[string(rune('a'+rng.IntN(5)))] = drawArgs(rng, depth-1)
		}
		return m
	case 1:
		l := []any{}
		for range rng.IntN(4) {
			l = append(l, drawArgs(rng, depth-1))
		}
		return l
	case 2, 3:
		return drawText(rng)
	case 4:
		return float64(rng.IntN(2000)-1000) / 8
	case 5:
		return rng.IntN(2) == 0
	}
	return nil
}

// drawText draws a string: short, long (past a message's 200 characters
// and the kept value's 4 KiB), with quotes and characters of several
// bytes, or a token redaction masks.
func drawText(rng *rand.Rand) string {
	switch rng.IntN(5) {
	case 0:
		return ""
	case 1:
		return strings.Repeat("é\"x", rng.IntN(2000))
	case 2:
		return "ghp_" + "Zq8uR2mT5vX1yB4nK7pL0sD3fG6hJ9wE2cA5"
	}
	return fmt.Sprintf("q%d", rng.IntN(100))
}

// TestPaceCallsTight: checks that read a run's calls or turns hold the
// collector at the tight pace while they read a run of tightCalls calls
// or more, its calls in one turn or in many; a run one call short, or
// checks that read the names alone or no calls, leave the pace as it is;
// its end puts back the pace from before.
func TestPaceCallsTight(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the collector's pace is kept as it is")
	}
	before := debug.SetGCPercent(73)
	defer debug.SetGCPercent(before)
	run := func(calls, turns int) *cassette.Run {
		r := &cassette.Run{Turns: make([]cassette.Turn, turns)}
		for i := range calls {
			r.Turns[i%turns].Calls = append(r.Turns[i%turns].Calls, cassette.Call{Tool: "t"})
		}
		return r
	}
	for _, tc := range []struct {
		parts        callParts
		calls, turns int
		tight        bool
	}{
		{callLists, tightCalls, 1, true},
		{allCalls, tightCalls, 7, true},
		{callLists, tightCalls - 1, 1, false},
		{allCalls, tightCalls - 1, 3, false},
		{callNames, 2 * tightCalls, 1, false},
		{noCalls, 2 * tightCalls, 2, false},
	} {
		done := paceCalls(tc.parts, run(tc.calls, tc.turns))
		want := 73
		if tc.tight {
			want = tightPercent
		}
		if p := gcPercent(t); p != want {
			t.Errorf("parts %d, %d calls in %d turns: percent %d while read, want %d", tc.parts, tc.calls, tc.turns, p, want)
		}
		done()
		if p := gcPercent(t); p != 73 {
			t.Errorf("parts %d, %d calls: percent %d once read, want 73 back", tc.parts, tc.calls, p)
		}
	}
}
