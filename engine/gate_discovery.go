package engine

import (
	"slices"
	"strings"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// DiscoveryBlock is a discovery: block.
type DiscoveryBlock struct {
	Pos      diag.Pos
	NameFree bool
}

// Key returns "discovery".
func (*DiscoveryBlock) Key() string { return "discovery" }

func readDiscovery(_ *builder, raw rawBlock) Block {
	d := &DiscoveryBlock{Pos: raw.pos}
	d.NameFree, _ = raw.m["name_free"].(bool)
	return d
}

func (d *DiscoveryBlock) newGate(c *Case) caseGate {
	g := &discoveryGate{blk: d, prompt: c.Prompt}
	if sel, ok := blockOf[*SelectionBlock](c); ok {
		g.classes, g.hasClasses = sel.Classes, true
	}
	if d.NameFree {
		g.checkPrompt(c.Prompt)
	}
	return g
}

// discoveryGate checks that a name-free prompt names no tool: the
// scenario then measures discovery, not execution. It has no targets.
type discoveryGate struct {
	gateDefaults
	blk          *DiscoveryBlock
	prompt       string
	classes      []gate.Class
	hasClasses   bool
	promptsNamed []string
}

// addCassette checks a recorded prompt that is not the suite's.
func (g *discoveryGate) addCassette(cas *cassette.Cassette) {
	if g.blk.NameFree && cas.Prompt != g.prompt {
		g.checkPrompt(cas.Prompt)
	}
}

// checkPrompt notes the tool names a name-free prompt gives away: a member
// of a declared class written in the prompt (a qualified id, or a tool name
// with an `_`, a `-` or a capital letter, which no plain sentence holds).
func (g *discoveryGate) checkPrompt(prompt string) {
	if prompt == "" {
		return
	}
	for _, cl := range g.classes {
		for _, id := range cl.Members {
			_, tool, qualified := strings.Cut(id, ".")
			if !qualified {
				tool = id
			}
			named := qualified && strings.Contains(prompt, id)
			if !named && strings.ContainsAny(tool, "_-ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.Contains(prompt, tool) {
				named = true
			}
			if named && !slices.Contains(g.promptsNamed, tool) {
				g.promptsNamed = append(g.promptsNamed, tool)
			}
		}
	}
}

func (g *discoveryGate) result(res *report.CaseResult) {
	res.Discovery = &report.DiscoveryDetail{NameFree: g.blk.NameFree}
	if g.blk.NameFree && !g.hasClasses {
		res.Findings = append(res.Findings, report.Finding{Level: "warning", Gate: "discovery",
			Message: "`discovery.name_free: true` without `equal_function_sets:`: there are no classes to judge the discovered path against"})
	}
	if len(g.promptsNamed) > 0 {
		res.Findings = append(res.Findings, report.Finding{Level: "warning", Gate: "discovery",
			Message: "`discovery.name_free: true`, but the prompt names " + backtickList(g.promptsNamed) + ": the scenario measures execution, not discovery"})
	}
}

func backtickList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}
