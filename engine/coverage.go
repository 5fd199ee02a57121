package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

type toolKey struct{ server, tool string }

// toolTally counts the calls per tool of one case, and marks the tools its
// recordings' catalogs offered. It lists every tool a catalog offered and
// at most maxUnofferedTools others: a recording that calls a new tool name
// with every call (a flood of names) would otherwise cost the tally, the
// envelope's tools and the reports' coverage a row a call. The calls of
// the tools past that are counted (unlisted), not listed, and the case
// says so in a finding (setTools).
type toolTally struct {
	m map[toolKey]toolCount
	// unoffered is how many tools no catalog offered are listed so far.
	unoffered int
	// unlisted counts the calls of the tools that are not listed.
	unlisted int64
}

// maxUnofferedTools bounds the tools a case lists that no catalog of its
// recordings offered.
const maxUnofferedTools = 1000

// toolCount is one tool's calls and whether a catalog offered it.
type toolCount struct {
	calls   int64
	offered bool
}

// addCassette offers every tool of the cassette's catalog and counts every
// call of its runs (see addCatalog and addRun).
func (t *toolTally) addCassette(cas *cassette.Cassette) {
	owner := t.addCatalog(cas)
	for i := range cas.Runs {
		t.addRun(owner, &cas.Runs[i])
	}
}

// addCatalog offers every tool of the cassette's catalog, and returns the
// server of each tool name that exactly one server of the catalog offers
// ("" for a name two offer), for addRun.
func (t *toolTally) addCatalog(cas *cassette.Cassette) map[string]string {
	owner := map[string]string{}
	if t.m == nil {
		t.m = map[toolKey]toolCount{}
	}
	for _, sc := range cas.Catalog {
		for _, tl := range sc.Tools {
			k := toolKey{sc.Server, tl.Name}
			n, listed := t.m[k]
			if listed && !n.offered {
				t.unoffered-- // listed as called, and offered after all
			}
			n.offered = true
			t.m[k] = n
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
func (t *toolTally) addRun(owner map[string]string, r *cassette.Run) {
	if t.m == nil {
		t.m = map[toolKey]toolCount{}
	}
	for j := range r.Turns {
		for _, call := range r.Turns[j].Calls {
			server := call.Server
			if server == "" {
				server = owner[call.Tool]
			}
			k := toolKey{server, call.Tool}
			n, listed := t.m[k]
			if !listed {
				if t.unoffered == maxUnofferedTools {
					t.unlisted++
					continue
				}
				t.unoffered++
			}
			n.calls++
			t.m[k] = n
		}
	}
}

// called returns the tools called, with their calls, in server then tool
// order; nil when none was.
func (t *toolTally) called() []report.ToolUse {
	out := make([]report.ToolUse, 0, len(t.m))
	for k, c := range t.m {
		if c.calls > 0 {
			out = append(out, report.ToolUse{Server: k.server, Tool: k.tool, Calls: c.calls})
		}
	}
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, func(a, b report.ToolUse) int {
		if c := strings.Compare(a.Server, b.Server); c != 0 {
			return c
		}
		return strings.Compare(a.Tool, b.Tool)
	})
	return out
}

// catalog returns the catalog of the tools offered, nil when none was.
func (t *toolTally) catalog() *report.Catalog {
	var offered []report.ToolUse
	for k, n := range t.m {
		if n.offered {
			offered = append(offered, report.ToolUse{Server: k.server, Tool: k.tool})
		}
	}
	return report.NewCatalog(offered)
}

// setTools sets the case's called tools and its catalog, and says how
// many calls reached tools past those listed.
func (t *toolTally) setTools(res *report.CaseResult) {
	res.Tools = t.called()
	if t.unlisted > 0 {
		res.Findings = append(res.Findings, report.Finding{Level: "warning",
			Message: fmt.Sprintf("%d calls reached tools that are not listed: a case lists the tools its recordings' catalogs offer and %d others", t.unlisted, maxUnofferedTools)})
	}
	res.Offered = t.catalog()
	res.Catalog = ""
	if res.Offered != nil {
		res.Catalog = res.Offered.SHA256
	}
}
