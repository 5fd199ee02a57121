package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/expr"
)

// TestNamedCallsDocDrawn draws runs (turns of calls with and without
// servers, arguments and results, final responses) and sets of per-run
// check targets (calls by place, then a field or nothing, past the end
// too, tool_names, the calls as a list, turns, the whole document, keys
// of no call), and holds the document the checks are given to the whole
// one (allCalls): every target looks up the same value, present or
// missing, and a set with a target that needs more than the calls it
// names gets the whole document.
func TestNamedCallsDocDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 12))
	targets := []string{"calls[0].tool", "calls[1]", "calls[2].arguments.q", "calls[3].result", "calls[7].id",
		"calls[40].tool", "tool_names", "tool_names[1]", "final_response", "run", "tokens.total",
		"calls", "turns[0].calls[0]", ""}
	for i := range 500 {
		r := drawDocRun(rng, 4, 8)
		var checks []*runCheck
		for range 1 + rng.IntN(4) {
			var p expr.Path
			if tg := targets[rng.IntN(len(targets))]; tg != "" {
				var err error
				if p, err = expr.ParsePath(tg); err != nil {
					t.Fatal(err)
				}
			}
			checks = append(checks, &runCheck{a: &Assertion{Target: p}})
		}
		cas := &cassette.Cassette{Model: "m"}
		parts, places := fewerCalls(checks, readsCalls(checks))
		if err := checkFewer(checks, parts, places); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		doc, whole := runDocAt(i, cas, r, parts, places), runDoc(i, cas, r, allCalls)
		for _, rc := range checks {
			got, gotOK := rc.a.Target.Lookup(doc)
			want, wantOK := rc.a.Target.Lookup(whole)
			if gotOK != wantOK || !reflect.DeepEqual(got, want) {
				t.Fatalf("run %d, target %q (places %v): %v %v, want %v %v", i, rc.a.Target.String(), places, got, gotOK, want, wantOK)
			}
		}
	}
}

// drawDocRun draws a run for the tests of a run's document: up to turns
// turns of up to calls calls each, with and without a server, arguments,
// a result or an error, and final responses now and then.
func drawDocRun(rng *rand.Rand, turns, calls int) *cassette.Run {
	tools := []string{"search", "fetch", "write_file", "git_reset", ""}
	r := &cassette.Run{}
	for range rng.IntN(turns) {
		var turn cassette.Turn
		for range rng.IntN(calls) {
			c := cassette.Call{Tool: tools[rng.IntN(len(tools))], IsError: rng.IntN(4) == 0}
			if rng.IntN(2) == 0 {
				c.Server = "web"
			}
			if rng.IntN(2) == 0 {
				c.Arguments = cassette.JSONOf(map[string]any{"q": float64(rng.IntN(9))})
			}
			if rng.IntN(3) == 0 {
				c.Result = "r"
			}
			turn.Calls = append(turn.Calls, c)
		}
		if rng.IntN(2) == 0 {
			turn.FinalResponse = "done"
		}
		r.Turns = append(r.Turns, turn)
	}
	return r
}

// checkFewer holds fewerCalls to when it gives fewer calls: exactly when
// a check reads a call by its place and none reads the calls as a list,
// the turns or the whole document; then with the names exactly when a
// check reads them.
func checkFewer(checks []*runCheck, parts callParts, places []int) error {
	byPlace, more, names := false, false, false
	for _, rc := range checks {
		segs := rc.a.Target.Segments()
		switch {
		case len(segs) == 0, segs[0].Name == "turns":
			more = true
		case segs[0].Name == "calls":
			if len(segs) > 1 && segs[1].Kind == expr.Index {
				byPlace = true
			} else {
				more = true
			}
		case segs[0].Name == "tool_names":
			names = true
		}
	}
	if want := byPlace && !more; (places != nil) != want {
		return fmt.Errorf("places %v, want them: %v", places, want)
	}
	if places != nil && (parts == callNames) != names {
		return fmt.Errorf("the names in the document: %v, read: %v", parts == callNames, names)
	}
	return nil
}
