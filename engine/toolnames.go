package engine

import (
	"fmt"
	"strings"

	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/report"
	"github.com/mcptest/mcptest/gate"
)

// toolRef is a tool a gate block names: where it is named and the id.
type toolRef struct {
	gate, field, id string
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

// unknownToolFindings returns a warning for each tool a gate block names
// that no tool of the recorded catalogs is, with a did-you-mean: a typo
// there would only lower the gate's score, silently. Without a recorded
// catalog there is nothing to check against, and no finding.
func unknownToolFindings(c *Case, catalogs []cassette.ServerCatalog) []report.Finding {
	var ids, names []string
	for _, sc := range catalogs {
		for _, t := range sc.Tools {
			if t.Name == "" {
				continue
			}
			names = append(names, t.Name)
			if sc.Server == "" {
				ids = append(ids, t.Name) // a tool of no server (an agent's built-in)
			} else {
				ids = append(ids, sc.Server+"."+t.Name)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var out []report.Finding
	seen := map[string]bool{}
	for _, r := range toolRefs(c) {
		if seen[r.gate+"\x00"+r.id] || inCatalog(r.id, catalogs) || aliasOf(c, r.id) != "" {
			continue
		}
		seen[r.gate+"\x00"+r.id] = true
		msg := fmt.Sprintf("%s %s: `%s` is no tool of the recorded catalog", r.gate, r.field, r.id)
		candidates := names
		if strings.Contains(r.id, ".") {
			candidates = ids
		}
		if s := diag.Suggest(r.id, candidates); s != "" {
			msg += fmt.Sprintf(" (did you mean `%s`?%s)", s, aliasHint(r.id, s))
		}
		out = append(out, report.Finding{Level: "warning", Gate: r.gate, Message: msg + ": it can never match a call"})
	}
	return out
}

// inCatalog reports whether id names a tool of the catalogs, as the gates
// match it (server.tool, or a bare tool name).
func inCatalog(id string, catalogs []cassette.ServerCatalog) bool {
	for _, sc := range catalogs {
		for _, t := range sc.Tools {
			if gate.MatchID(id, sc.Server, t.Name) {
				return true
			}
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
			r.gate, r.field, r.id, to, r.id, to, to)})
	}
	return out
}
