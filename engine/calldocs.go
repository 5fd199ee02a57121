package engine

import (
	"slices"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/expr"
)

// A per-run check whose target reads a run's calls made runDoc build a
// document of every call of the run (allCalls), though a target such as
// calls[0].tool reads one: about 1.2 KB a call, 1.15 GiB for a run of a
// million calls. When every check that reads the calls names each by its
// place (calls[K], then anything) and none reads the turns, the calls as
// a list or the whole document, the run's document holds the calls so
// named alone (runDocNamed): its calls list has the run's length, so a
// place past the end is missing as before, and every other place is
// empty.

// namedCalls returns the places of the calls the checks read, when
// every check that reads the run's calls names each so; nil when one
// reads more, or none reads the calls (readsCalls decides then).
func namedCalls(checks []*runCheck) []int {
	var places []int
	for _, rc := range checks {
		segs := rc.a.Target.Segments()
		if len(segs) == 0 {
			return nil
		}
		switch segs[0].Name {
		case "turns":
			return nil
		case "calls":
			if len(segs) < 2 || segs[1].Kind != expr.Index {
				return nil
			}
			if !slices.Contains(places, segs[1].Index) {
				places = append(places, segs[1].Index)
			}
		}
	}
	return places
}

// runDocNamed is runDoc with parts (noCalls or callNames) and the calls
// at places: the calls list holds those calls' documents, as runDoc's
// allCalls writes them, and nothing at every other place.
func runDocNamed(n int, cas *cassette.Cassette, r *cassette.Run, parts callParts, places []int) map[string]any {
	doc := runDoc(n, cas, r, parts)
	total := 0
	for _, t := range r.Turns {
		total += len(t.Calls)
	}
	calls := make([]any, total)
	at := 0
	for _, t := range r.Turns {
		for _, c := range t.Calls {
			if slices.Contains(places, at) {
				calls[at] = callDoc(c)
			}
			at++
		}
	}
	doc["calls"] = calls
	return doc
}

// fewerCalls is what of the calls the checks' documents hold: parts as
// readsCalls says, unless it is every call and namedCalls finds the
// checks name theirs by place: then the names if a check reads them,
// and those places.
func fewerCalls(checks []*runCheck, parts callParts) (callParts, []int) {
	if parts != allCalls {
		return parts, nil
	}
	places := namedCalls(checks)
	if places == nil {
		return allCalls, nil
	}
	names := noCalls
	for _, rc := range checks {
		if segs := rc.a.Target.Segments(); segs[0].Name == "tool_names" {
			names = callNames
		}
	}
	return names, places
}

// runDocAt is runDoc, or runDocNamed where places are given.
func runDocAt(n int, cas *cassette.Cassette, r *cassette.Run, parts callParts, places []int) map[string]any {
	if places == nil {
		return runDoc(n, cas, r, parts)
	}
	return runDocNamed(n, cas, r, parts, places)
}
