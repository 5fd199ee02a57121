package engine

import (
	"sort"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

type toolKey struct{ server, tool string }

// toolTally counts the calls per tool of one case, and keeps the tools its
// recordings offered with no call at 0.
type toolTally map[toolKey]int64

// addCassette offers every tool of the cassette's catalog and counts every
// call of its runs (see addCatalog and addRun).
func (t toolTally) addCassette(cas *cassette.Cassette) {
	owner := t.addCatalog(cas)
	for i := range cas.Runs {
		t.addRun(owner, &cas.Runs[i])
	}
}

// addCatalog offers every tool of the cassette's catalog, and returns the
// server of each tool name that exactly one server of the catalog offers
// ("" for a name two offer), for addRun.
func (t toolTally) addCatalog(cas *cassette.Cassette) map[string]string {
	owner := map[string]string{}
	for _, sc := range cas.Catalog {
		for _, tl := range sc.Tools {
			k := toolKey{sc.Server, tl.Name}
			if _, ok := t[k]; !ok {
				t[k] = 0
			}
			if prev, seen := owner[tl.Name]; seen && prev != sc.Server {
				owner[tl.Name] = "" // offered by two servers: ambiguous
			} else {
				owner[tl.Name] = sc.Server
			}
		}
	}
	return owner
}

// addRun counts every call of the run. A call that names no server is
// given its tool's owner, when it has one.
func (t toolTally) addRun(owner map[string]string, r *cassette.Run) {
	for j := range r.Turns {
		for _, call := range r.Turns[j].Calls {
			server := call.Server
			if server == "" {
				server = owner[call.Tool]
			}
			t[toolKey{server, call.Tool}]++
		}
	}
}

// list returns the tally in server, then tool order; nil when empty.
func (t toolTally) list() []report.ToolUse {
	if len(t) == 0 {
		return nil
	}
	out := make([]report.ToolUse, 0, len(t))
	for k, n := range t {
		out = append(out, report.ToolUse{Server: k.server, Tool: k.tool, Calls: n})
	}
	sort.Slice(out, func(i, j int) bool { return report.ToolLess(out[i].Server, out[i].Tool, out[j].Server, out[j].Tool) })
	return out
}
