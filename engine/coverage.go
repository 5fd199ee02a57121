package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

type toolKey struct{ server, tool string }

// maxListedName bounds the bytes of a server or tool name a case lists
// (its tools and the catalog its recordings offered): MCP asks for tool
// names of at most 128 characters, and a recording of longer ones made
// the case's rows as long as the recording made them.
const maxListedName = 256

// listedName is name, or when it is longer than maxListedName bytes its
// first whole characters, "…" and 12 hex digits of the SHA-256 of the
// whole name, maxListedName bytes at most: two long names alike in their
// first bytes stay two tools, and the same name is cut the same in every
// run and every recording.
func listedName(name string) string {
	if len(name) <= maxListedName {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	digest := hex.EncodeToString(sum[:6])
	cut := maxListedName - len("…") - len(digest)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + "…" + digest
}

// listedKey is the key a case lists a tool of server under.
func listedKey(server, tool string) toolKey {
	return toolKey{listedName(server), listedName(tool)}
}

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
	// offered counts the tools a catalog offered.
	offered int
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
// owners of its tool names, for addRun.
func (t *toolTally) addCatalog(cas *cassette.Cassette) *owners {
	if t.m == nil {
		t.m = map[toolKey]toolCount{}
	}
	for _, sc := range cas.Catalog {
		for _, tl := range sc.Tools {
			k := listedKey(sc.Server, tl.Name)
			n, listed := t.m[k]
			if listed && !n.offered {
				t.unoffered-- // listed as called, and offered after all
			}
			if !n.offered {
				t.offered++
			}
			n.offered = true
			t.m[k] = n
		}
	}
	return &owners{cat: cas.Catalog}
}

// owners gives the server of each tool name that exactly one server of a
// catalog offers ("" for a name two offer, or none), mapped at the first
// call that names no server: most recordings name the server of every
// call, and a map of every tool of a catalog of many costs more than the
// catalog's names.
type owners struct {
	cat []cassette.ServerCatalog
	m   map[string]string
}

// of returns the server of the tool name.
func (o *owners) of(tool string) string {
	if o == nil {
		return ""
	}
	if o.m == nil {
		o.m = map[string]string{}
		for _, sc := range o.cat {
			for _, tl := range sc.Tools {
				if prev, seen := o.m[tl.Name]; seen && prev != sc.Server {
					o.m[tl.Name] = "" // offered by two servers: ambiguous
				} else {
					o.m[tl.Name] = sc.Server
				}
			}
		}
	}
	return o.m[tool]
}

// addRun counts every call of the run. A call that names no server is
// given its tool's owner, when it has one.
func (t *toolTally) addRun(owner *owners, r *cassette.Run) {
	if t.m == nil {
		t.m = map[toolKey]toolCount{}
	}
	for j := range r.Turns {
		for _, call := range r.Turns[j].Calls {
			server := call.Server
			if server == "" {
				server = owner.of(call.Tool)
			}
			k := listedKey(server, call.Tool)
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

// offeredIndex returns the tools offered as an index, in server then tool
// order.
func (t *toolTally) offeredIndex() *toolIndex {
	x := &toolIndex{keys: make([]toolKey, 0, t.offered)}
	for k, n := range t.m {
		if n.offered {
			x.keys = append(x.keys, k)
		}
	}
	slices.SortFunc(x.keys, func(a, b toolKey) int {
		if c := strings.Compare(a.server, b.server); c != 0 {
			return c
		}
		return strings.Compare(a.tool, b.tool)
	})
	return x
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
