package engine

import (
	"slices"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/expr"
)

// A per-run check whose target reads a run's calls (calls, calls[0].tool,
// turns, turns[0].calls, the whole document) is given them as lists whose
// elements are built when read (expr.List): a call's document (callDoc,
// its arguments decoded, its result with the protocol's defaults) is made
// when a lookup, a matcher or the kept value's copy (actualOf) reaches it,
// and dropped once used. A check over a run of 200,000 calls holds one
// call's document at a time: the run's document had held every one (a
// check of the calls of one run of 200,000 calls, 19.9 MB, peaked at
// 371,380 KiB, 67,744 with no check), and a target that named one call by
// its place (calls[0].tool) a slot for each of them.

// tightCalls is the calls of a run from which checks that read them
// (callLists) hold the collector at a tight pace (paceTight) while they
// read: a check over the calls as a list makes a call's document of
// garbage for each call, which at the run's pace the heap grows by what
// is live before it is collected, the run's decoded calls and its
// cassette's bytes, about twice the file, past SECURITY.md's bound of
// three (one run of 200,000 calls, 19.9 MB, its calls read by a
// contains: 146,796 KiB resident at the run's pace, 86,292 to 91,976 at
// the tight one, against a bound of 132,421).
const tightCalls = 10_000

// paceCalls holds the collector at a tight pace while checks that read
// parts of the run r's calls read them, when they read the calls or
// turns, built when read, and r has tightCalls calls or more, and
// returns what ends it.
func paceCalls(parts callParts, r *cassette.Run) (done func()) {
	if parts&callLists == 0 {
		return func() {}
	}
	n := 0
	for _, t := range r.Turns {
		n += len(t.Calls)
	}
	if n < tightCalls {
		return func() {}
	}
	return paceTight()
}

// runCalls is the run's calls in order across its turns, as the calls of
// its document: one turn's list as it is, else the turns' lists end to
// end.
func runCalls(r *cassette.Run) expr.List {
	if len(r.Turns) == 1 {
		return turnCalls(r.Turns[0].Calls)
	}
	ends := make([]int, len(r.Turns))
	n := 0
	for t, turn := range r.Turns {
		n += len(turn.Calls)
		ends[t] = n
	}
	return &callList{turns: r.Turns, ends: ends}
}

// callList is the calls of several turns end to end.
type callList struct {
	turns []cassette.Turn
	// ends[t] is how many calls turns[0] to turns[t] hold.
	ends []int
}

// Len is the calls of every turn.
func (l *callList) Len() int {
	if len(l.ends) == 0 {
		return 0
	}
	return l.ends[len(l.ends)-1]
}

// At is the document of the i-th call: of the first turn whose calls end
// past i.
func (l *callList) At(i int) any {
	t, _ := slices.BinarySearch(l.ends, i+1)
	start := 0
	if t > 0 {
		start = l.ends[t-1]
	}
	return callDoc(l.turns[t].Calls[i-start])
}

// turnCalls is one turn's calls as a list of their documents.
type turnCalls []cassette.Call

// Len is the turn's calls.
func (l turnCalls) Len() int { return len(l) }

// At is the document of the turn's i-th call.
func (l turnCalls) At(i int) any { return callDoc(l[i]) }

// turnList is a run's turns as the turns of its document: each a map of
// its calls (turnCalls) and its final response when it has one.
type turnList []cassette.Turn

// Len is the run's turns.
func (l turnList) Len() int { return len(l) }

// At is the document of the i-th turn.
func (l turnList) At(i int) any {
	turn := map[string]any{"calls": turnCalls(l[i].Calls)}
	if l[i].FinalResponse != "" {
		turn["final_response"] = l[i].FinalResponse
	}
	return turn
}
