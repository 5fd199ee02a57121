package engine

import (
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// JudgeBlock is an evals: case's judge: the metrics a judge model scores
// from 0 to 1, the rubric it scores against and the score each must reach.
type JudgeBlock struct {
	Metrics   []string
	Rubric    string
	Threshold float64
}

// modelCase reads a redteam: probe or an evals: case. Both need a live
// model to play the agent, which mcptest never runs: they are checked as
// thoroughly as an agent test (declared servers, the targets of expect:
// against the fields of a recorded run) and reported inconclusive, so a
// suite can carry them next to the deterministic cases and a run can never
// count them as passed.
func (b *builder) modelCase(ptr string, m map[string]any, kind report.Kind) {
	c := b.newCase(ptr, m, kind)
	noun := "eval case"
	if kind == report.KindRedteam {
		noun = "red-team probe"
	}
	b.agentFields(ptr, c, m, noun)
	c.SystemPrompt, _ = m["system_prompt"].(string)
	if j, ok := m["judge"].(map[string]any); ok {
		jb := &JudgeBlock{Metrics: strings_(j["metrics"])}
		jb.Rubric, _ = j["rubric"].(string)
		jb.Threshold, _ = j["threshold"].(float64)
		if contains(jb.Metrics, "rubric") && jb.Rubric == "" && !b.broken(ptr+"/judge") {
			b.errorf(ptr+"/judge", b.doc.KeyAt(ptr+"/judge"), "eval case %q scores the `rubric` metric but its judge has no `rubric:` text to score against", c.Name)
		}
		c.Judge = jb
	}
	b.expect(c, expectList{ptr: ptr + "/expect", items: list(m["expect"])})
}

// runModelCase reports a redteam: or evals: case inconclusive, with what
// it would need to run.
func runModelCase(p casePlan, res *report.CaseResult) (*report.CaseResult, diag.List) {
	c := p.c
	res.Verdict = report.Inconclusive
	pos := c.Pos
	var msg string
	if c.Kind == report.KindRedteam {
		msg = "a red-team probe needs a live model to play the agent (its system prompt, then the prompt that smuggles an instruction); mcptest runs no model, so the probe was validated, not run. " +
			"Run it with your agent, record the session with `mcptest record`, and gate the cassette as an `agents:` test with the same expect: list"
	} else {
		msg = "an eval case needs a live model to answer the prompt"
		if c.Judge != nil {
			msg += " and a judge model to score " + strings.Join(c.Judge.Metrics, ", ")
		}
		msg += "; mcptest runs no model, so the case was validated, not run. " +
			"Record your agent answering it with `mcptest record` and gate the cassette as an `agents:` test to check its deterministic assertions"
	}
	res.Findings = append(res.Findings, report.Finding{Level: "warning", Gate: string(c.Kind), Position: &pos, Message: msg})
	return res, nil
}
