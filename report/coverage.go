package report

import (
	"sort"

	"github.com/mcptest/mcptest/internal/stats"
)

// ToolUse is one tool a case reached or was shown: the server that offers
// it (absent when neither the recording nor the catalog names one), the
// tool, and how many calls reached it. Calls is 0 for a tool the case's
// recordings offered the agent in their catalog and no run called.
type ToolUse struct {
	Server string `json:"server,omitempty"`
	Tool   string `json:"tool"`
	Calls  int64  `json:"calls"`
}

type toolKey struct{ server, tool string }

// ToolLess orders tools by server, then name.
func ToolLess(server1, tool1, server2, tool2 string) bool {
	if server1 != server2 {
		return server1 < server2
	}
	return tool1 < tool2
}

// ToolCoverage is how much of the tool surface a run exercised: every tool
// a case called or a catalog offered (a recording's catalog, or the list a
// live server gave the run), with the calls that reached it and the
// verdicts of the cases that called it.
type ToolCoverage struct {
	// Known counts the tools offered or called; Covered those called at
	// least once; Percent is Covered over Known, rounded half up (absent
	// when nothing is known).
	Known   int    `json:"known"`
	Covered int    `json:"covered"`
	Percent *int64 `json:"percent,omitempty"`
	// Tools are in server, then tool order.
	Tools []ToolCoverageRow `json:"tools"`
	// Uncovered names the tools no case called, in the same order.
	Uncovered []ToolUse `json:"uncovered"`
}

// ToolCoverageRow is one tool of a ToolCoverage: how many calls reached it
// and how many cases called it, by verdict.
type ToolCoverageRow struct {
	Server       string `json:"server,omitempty"`
	Tool         string `json:"tool"`
	Calls        int64  `json:"calls"`
	Cases        int    `json:"cases"`
	Passed       int    `json:"passed"`
	Failed       int    `json:"failed"`
	Inconclusive int    `json:"inconclusive"`
}

// ToolCoverage computes the run's tool coverage from its cases' tools and
// its servers' listed tools.
func (e *Envelope) ToolCoverage() ToolCoverage {
	rows := map[toolKey]*ToolCoverageRow{}
	row := func(k toolKey) *ToolCoverageRow {
		r, ok := rows[k]
		if !ok {
			r = &ToolCoverageRow{Server: k.server, Tool: k.tool}
			rows[k] = r
		}
		return r
	}
	for _, si := range e.Servers {
		for _, name := range si.Tools {
			row(toolKey{si.Name, name})
		}
	}
	catalogs := e.catalogIndex()
	for _, c := range e.Cases {
		if c == nil {
			continue
		}
		if cat := catalogs[c.Catalog]; cat != nil {
			for _, s := range cat.Servers {
				for _, t := range s.Tools {
					row(toolKey{s.Server, t})
				}
			}
		}
		for _, u := range c.Tools {
			r := row(toolKey{u.Server, u.Tool})
			if u.Calls == 0 {
				continue
			}
			r.Calls += u.Calls
			r.Cases++
			switch c.Verdict {
			case Pass:
				r.Passed++
			case Fail:
				r.Failed++
			default:
				r.Inconclusive++
			}
		}
	}
	out := ToolCoverage{Known: len(rows), Tools: make([]ToolCoverageRow, 0, len(rows)), Uncovered: []ToolUse{}}
	for _, r := range rows {
		out.Tools = append(out.Tools, *r)
	}
	sort.Slice(out.Tools, func(i, j int) bool {
		a, b := out.Tools[i], out.Tools[j]
		return ToolLess(a.Server, a.Tool, b.Server, b.Tool)
	})
	for _, r := range out.Tools {
		if r.Calls > 0 {
			out.Covered++
		} else {
			out.Uncovered = append(out.Uncovered, ToolUse{Server: r.Server, Tool: r.Tool})
		}
	}
	if out.Known > 0 {
		p := stats.Percent(int64(out.Covered), int64(out.Known))
		out.Percent = &p
	}
	return out
}
