package annotate

import (
	"fmt"
	"strings"

	"github.com/mcptest/mcptest/report"
)

// maxWorldRuns is how many runs of a scenario the human reporters describe
// one by one; the envelope keeps the first 100.
const maxWorldRuns = 10

// maxWorldChanges is how many changes of one run a line lists.
const maxWorldChanges = 20

// changeWords renders one change of a replayed world:
// "inventory.widgets: 3 → 4", "seat: (absent) → \"12A\"".
func changeWords(c report.StateChange) string {
	side := func(v any, present bool) string {
		if !present {
			return "(absent)"
		}
		return clip(literal(v), 200)
	}
	return fmt.Sprintf("%s: %s → %s", c.Path, side(c.Before, c.Op != "add"), side(c.After, c.Op != "remove"))
}

// htmlChange is one row of a scenario run's diff table.
type htmlChange struct {
	Path, Op, Before, After string
}

func changeRow(c report.StateChange) htmlChange {
	side := func(v any, present bool) string {
		if !present {
			return ""
		}
		return Clean(clip(literal(v), 200))
	}
	return htmlChange{Path: Clean(c.Path), Op: Clean(c.Op), Before: side(c.Before, c.Op != "add"), After: side(c.After, c.Op != "remove")}
}

// diffWords lists a run's changes on one line, at most maxWorldChanges.
func diffWords(r report.ScenarioRun) string {
	if len(r.Diff) == 0 {
		return "the world is as seeded"
	}
	var parts []string
	for i, c := range r.Diff {
		if i == maxWorldChanges {
			parts = append(parts, fmt.Sprintf("and %d more", len(r.Diff)-i))
			break
		}
		parts = append(parts, changeWords(c))
	}
	return strings.Join(parts, "; ")
}

// worldLines describes the runs of a scenario some run of which failed its
// oracles: for each such run (at most maxWorldRuns), what it changed and
// what the world refused. A case of one run already says so in its
// findings, so it has none.
func worldLines(c *report.CaseResult) []string {
	sd := c.Scenario
	if sd == nil || c.Runs < 2 {
		return nil
	}
	var out []string
	shown := 0
	for _, r := range sd.Runs {
		if r.StateMatched && len(r.InvalidActions)+len(r.ForbiddenTransitions) == 0 {
			continue
		}
		if shown == maxWorldRuns {
			out = append(out, "and more runs (the JSON envelope holds every run's world)")
			break
		}
		shown++
		line := fmt.Sprintf("world of run %d: %s", r.Run, diffWords(r))
		if n := len(r.InvalidActions) + len(r.ForbiddenTransitions); n > 0 {
			line += fmt.Sprintf(" (%d invalid, %d forbidden)", len(r.InvalidActions), len(r.ForbiddenTransitions))
		}
		out = append(out, line)
	}
	return out
}

// world prints worldLines.
func (p Pretty) world(b *strings.Builder, c *report.CaseResult) {
	for _, l := range worldLines(c) {
		fmt.Fprintf(b, "      %s %s\n", p.paint(dim, "info:"), Clean(l))
	}
}

// htmlWorld is one replayed run of a scenario in the HTML report.
type htmlWorld struct {
	Run                 int
	Matched             bool
	Changes             []htmlChange
	Refused             []string
	FinalState          string
	MoreChanges, Hidden int
}

// worldsOf describes the replayed runs of a scenario case for the HTML
// report, at most maxWorldRuns, with the final state clipped.
func worldsOf(c *report.CaseResult) (out []htmlWorld, more int) {
	sd := c.Scenario
	if sd == nil {
		return nil, 0
	}
	for i, r := range sd.Runs {
		if i == maxWorldRuns {
			return out, len(sd.Runs) - i + sd.OmittedRuns
		}
		w := htmlWorld{Run: r.Run, Matched: r.StateMatched, FinalState: Clean(clip(literal(r.FinalState), 4000))}
		for j, ch := range r.Diff {
			if j == maxWorldChanges {
				w.MoreChanges = len(r.Diff) - j
				break
			}
			w.Changes = append(w.Changes, changeRow(ch))
		}
		for _, e := range r.InvalidActions {
			w.Refused = append(w.Refused, Clean(fmt.Sprintf("turn %d, call %d `%s`: invalid action: %s", e.Turn, e.Call, e.Tool, e.Reason)))
		}
		for _, e := range r.ForbiddenTransitions {
			w.Refused = append(w.Refused, Clean(fmt.Sprintf("turn %d, call %d `%s`: forbidden transition: %s", e.Turn, e.Call, e.Tool, e.Reason)))
		}
		out = append(out, w)
	}
	return out, sd.OmittedRuns
}

// worldText is a scenario case's world for JUnit's system-out: per run (at
// most maxWorldRuns), its final state and its changes.
func worldText(c *report.CaseResult) string {
	sd := c.Scenario
	if sd == nil {
		return ""
	}
	var b strings.Builder
	for i, r := range sd.Runs {
		if i == maxWorldRuns {
			break
		}
		fmt.Fprintf(&b, "\nrun %d final state: %s\nrun %d changes: %s", r.Run, clip(literal(r.FinalState), 2000), r.Run, diffWords(r))
	}
	return b.String()
}
