package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// toolRef is a tool a gate block names: where it is named and the id.
type toolRef struct {
	gate, field, id string
	// class is the class of equal_function_sets naming the tool (field
	// "class"), joined to field only in a finding's words (place): most
	// tests have none, and a string a member was an allocation a member.
	class string
}

// place is where in its block r names its tool: the field, and the
// class of a member.
func (r toolRef) place() string {
	if r.class != "" {
		return r.field + " " + r.class
	}
	return r.field
}

// toolRefs lists the tools a test's gate blocks name, block by block in
// registry order: equal_function_sets members, tool_edges allowed and
// restricted entries, the tool_selection expected_tool and the
// distractors' correct ids. A block names tools when it has a toolRefs
// method.
func toolRefs(c *Case) []toolRef {
	var refs []toolRef
	for _, b := range c.Blocks {
		if n, ok := b.(interface{ toolRefs() []toolRef }); ok {
			refs = append(refs, n.toolRefs()...)
		}
	}
	return refs
}

// toolIndex is a set of tools, each (server, name) once, in the order
// first added: the tools the runs called (agentRun.called), or those the
// catalogs offered (toolTally.offeredIndex), as unknownToolFindings
// checks a name against them.
type toolIndex struct {
	keys []toolKey
	seen map[toolKey]struct{}
	// server is the copy of the server of the tool added last.
	server string
}

// addTool records one tool of a server.
func (x *toolIndex) addTool(server, tool string) {
	k := toolKey{server, tool}
	if x.seen != nil {
		if _, ok := x.seen[k]; ok {
			return
		}
	} else if slices.Contains(x.keys, k) {
		return
	}
	// Copies, so the index never keeps a cassette's text alive; the
	// server's once for the tools of one server in a row.
	if server != x.server {
		x.server = strings.Clone(server)
	}
	k = toolKey{x.server, strings.Clone(k.tool)}
	x.keys = append(x.keys, k)
	switch {
	case x.seen != nil:
		x.seen[k] = struct{}{}
	case len(x.keys) > indexScan:
		x.seen = make(map[toolKey]struct{}, 2*len(x.keys))
		for _, k := range x.keys {
			x.seen[k] = struct{}{}
		}
	}
}

// indexScan is how many tools a toolIndex looks through one by one before
// it keeps a map of them: a test of one small cassette offers a few, and a
// map a test was a fiftieth of what such a run allocated.
const indexScan = 16

// unknownToolFindings returns a warning for each tool a gate block names
// that no tool of the recorded catalogs (tools) is, with a did-you-mean: a
// typo there would only lower the gate's score, silently. Without a
// recorded catalog the names are checked against the tools the runs called
// (called), and a warning is given only with a did-you-mean: a tool no run
// called may be the one the agent should have, but one a letter away from
// a called tool is a typo.
func unknownToolFindings(c *Case, tools, called *toolIndex) []report.Finding {
	what, needHint, never := "no tool of the recorded catalog", false, "it can never match a call"
	if len(tools.keys) == 0 {
		tools, what, needHint, never = called, "no tool any run called (no catalog was recorded)", true, "it matches no call of these runs"
	}
	if !slices.ContainsFunc(tools.keys, func(k toolKey) bool { return k.tool != "" }) {
		return nil
	}
	// The names and ids to suggest from are listed at the first name
	// found unknown: a catalog of many tools costs none when every name
	// is known.
	var ids, names []string
	candidates := func() {
		if names != nil {
			return
		}
		for _, k := range tools.keys {
			if k.tool == "" {
				continue
			}
			names = append(names, k.tool)
			if k.server == "" {
				ids = append(ids, k.tool) // a tool of no server (an agent's built-in)
			} else {
				ids = append(ids, k.server+"."+k.tool)
			}
		}
	}
	var out []report.Finding
	seen := map[string]bool{}
	for _, r := range toolRefs(c) {
		if seen[r.gate+"\x00"+r.id] || inCatalog(r.id, tools) || aliasOf(c, r.id) != "" {
			continue
		}
		seen[r.gate+"\x00"+r.id] = true
		msg := fmt.Sprintf("%s %s: `%s` is %s", r.gate, r.place(), r.id, what)
		candidates()
		candidates := names
		if strings.Contains(r.id, ".") {
			candidates = ids
		}
		s := diag.Suggest(r.id, candidates)
		if s != "" {
			msg += fmt.Sprintf(" (did you mean `%s`?%s)", s, aliasHint(r.id, s))
		} else if needHint {
			continue
		}
		out = append(out, report.Finding{Level: "warning", Gate: r.gate, Message: msg + ": " + never})
	}
	return out
}

// inCatalog reports whether id names a tool of the catalogs, as the gates
// match it (server.tool, or a bare tool name).
func inCatalog(id string, tools *toolIndex) bool {
	for _, k := range tools.keys {
		if gate.MatchID(id, k.server, k.tool) {
			return true
		}
	}
	return false
}

// aliasHint says how to make a name the suite writes and the recorded one
// it suggests one tool, when they differ only in '-' against '_' (the
// OpenAI Agents SDK shows the model a tool `get-sum` as `get_sum`); ""
// otherwise. Both are bare tool names or server.tool ids alike.
func aliasHint(written, recorded string) string {
	_, w, _ := strings.Cut(written, ".")
	_, r, _ := strings.Cut(recorded, ".")
	if !strings.Contains(written, ".") {
		w, r = written, recorded
	}
	if w == r || strings.ReplaceAll(w, "-", "_") != strings.ReplaceAll(r, "-", "_") {
		return ""
	}
	return fmt.Sprintf(" If the recordings name it both ways, `aliases: {%s: %s}` makes them one tool", w, r)
}

// aliasOf is the tool id names under the case's aliases: when its tool
// name (server.tool or bare) is another name of a tool, that tool's id;
// "" otherwise.
func aliasOf(c *Case, id string) string {
	server, tool, qualified := strings.Cut(id, ".")
	if !qualified {
		server, tool = "", id
	}
	to, ok := c.Aliases[tool]
	if !ok {
		return ""
	}
	if qualified {
		return server + "." + to
	}
	return to
}

// aliasedRefFindings warns of each tool a gate block names by another
// name of it (an alias): the calls recorded under that name are read as
// the tool, so the block's entry can never match a call.
func aliasedRefFindings(c *Case) []report.Finding {
	var out []report.Finding
	seen := map[string]bool{}
	for _, r := range toolRefs(c) {
		to := aliasOf(c, r.id)
		if to == "" || seen[r.gate+"\x00"+r.id] {
			continue
		}
		seen[r.gate+"\x00"+r.id] = true
		out = append(out, report.Finding{Level: "warning", Gate: r.gate, Message: fmt.Sprintf(
			"%s %s: `%s` is another name of `%s` (aliases:), and calls recorded as `%s` are read as `%s`: write `%s`, or it can never match a call",
			r.gate, r.place(), r.id, to, r.id, to, to)})
	}
	return out
}
