package engine

import (
	"sort"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

type toolKey struct{ server, tool string }

// toolTally counts the calls per tool of one case, and marks the tools its
// recordings' catalogs offered.
type toolTally map[toolKey]toolCount

// toolCount is one tool's calls and whether a catalog offered it.
type toolCount struct {
	calls   int64
	offered bool
}

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
			n := t[k]
			n.offered = true
			t[k] = n
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
			k := toolKey{server, call.Tool}
			n := t[k]
			n.calls++
			t[k] = n
		}
	}
}

// called returns the tools called, with their calls, in server then tool
// order; nil when none was.
func (t toolTally) called() []report.ToolUse {
	var out []report.ToolUse
	for k, n := range t {
		if n.calls > 0 {
			out = append(out, report.ToolUse{Server: k.server, Tool: k.tool, Calls: n.calls})
		}
	}
	sort.Slice(out, func(i, j int) bool { return report.ToolLess(out[i].Server, out[i].Tool, out[j].Server, out[j].Tool) })
	return out
}

// catalog returns the catalog of the tools offered, nil when none was.
func (t toolTally) catalog() *report.Catalog {
	var offered []report.ToolUse
	for k, n := range t {
		if n.offered {
			offered = append(offered, report.ToolUse{Server: k.server, Tool: k.tool})
		}
	}
	return report.NewCatalog(offered)
}

// setTools sets the case's called tools and its catalog.
func (t toolTally) setTools(res *report.CaseResult) {
	res.Tools = t.called()
	res.Offered = t.catalog()
	res.Catalog = ""
	if res.Offered != nil {
		res.Catalog = res.Offered.SHA256
	}
}
