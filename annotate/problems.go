package annotate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// problem is one reason a case did not pass, as the JUnit, SARIF and HTML
// reporters show it: a failed assertion, a missed floor, an error finding,
// or, for an inconclusive case, the finding that says why.
type problem struct {
	// Kind is "assertion", "floor", "finding" or "inconclusive".
	Kind    string
	Message string
	Pos     diag.Pos
	// Actual is the assertion's actual value, compact JSON, clipped.
	Actual string
	// Lines are a floor's FLOOR lines and missed runs.
	Lines []string
	// Key identifies the problem within its case, stably across runs (for
	// SARIF fingerprints): the assertion's block, index and target, the
	// floor's name or the finding's gate.
	Key string
}

// Text renders the problem on its own lines, the way the pretty reporter
// does: "file:line:col: message", then the actual value or the floor
// lines indented.
func (p problem) Text() string {
	var b strings.Builder
	if p.Pos.File != "" {
		b.WriteString(p.Pos.String())
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	if p.Actual != "" {
		b.WriteString("\n  actual: ")
		b.WriteString(p.Actual)
	}
	for _, l := range p.Lines {
		b.WriteString("\n  ")
		b.WriteString(l)
	}
	return b.String()
}

// caseProblems lists why a case failed or is inconclusive, in the order
// the pretty reporter prints them: failed assertions, missed floors, then
// error findings (for an inconclusive case, its warning findings too). A
// passing case has none.
func caseProblems(c *report.CaseResult) []problem {
	if c.Verdict == report.Pass {
		return nil
	}
	var out []problem
	for _, a := range c.Assertions {
		if a.Passed {
			continue
		}
		p := problem{Kind: "assertion", Message: a.Message, Pos: a.Position,
			Key: fmt.Sprintf("assertion/%s/%d/%s", a.Block, a.Index, a.Target)}
		if a.Actual != nil {
			p.Actual = clip(literal(a.Actual), 200)
		}
		if p.Pos.File == "" {
			p.Pos = c.Position
		}
		out = append(out, p)
	}
	for _, f := range c.Floors {
		if f.Passed {
			continue
		}
		out = append(out, problem{Kind: "floor", Message: f.Name + ": " + f.Message, Pos: c.Position, Lines: f.Lines, Key: "floor/" + f.Name})
	}
	for i, f := range c.Findings {
		if f.Level != "error" && !(c.Verdict == report.Inconclusive && f.Level == "warning") {
			continue
		}
		p := problem{Kind: "finding", Message: f.Message, Pos: c.Position, Key: fmt.Sprintf("finding/%s/%d", f.Gate, i)}
		if f.Position != nil && f.Position.File != "" {
			p.Pos = *f.Position
		}
		if c.Verdict == report.Inconclusive {
			p.Kind = "inconclusive"
		}
		out = append(out, p)
	}
	return out
}

// provenance lists what the envelope says about where the run came from,
// as label/value pairs in the order the "Audit this run" block shows them.
// Values are raw recorded text: every reporter escapes them for its format.
func provenance(env *report.Envelope) [][2]string {
	out := [][2]string{
		{"run id", orNotRecorded(env.Run.ID)},
		{"mode", modeWords(env.Run.Mode)},
		{"profile", "none recorded (this mcptest version has no run profiles)"},
	}
	if env.Run.Shard != "" {
		out = append(out, [2]string{"shard", env.Run.Shard})
	}
	out = append(out, [2]string{"started", orNotRecorded(env.Run.StartedAt)})
	if s := env.Source; s != nil {
		commit := orNotRecorded(s.Commit)
		if s.Dirty {
			commit += " with uncommitted changes"
		}
		out = append(out, [2]string{"repository", orNotRecorded(s.Repo)}, [2]string{"branch", orNotRecorded(s.Branch)}, [2]string{"commit", commit})
	} else {
		out = append(out, [2]string{"source", "not recorded (no CI repository, branch or commit in the environment, and no git repository)"})
	}
	out = append(out, [2]string{"suite", env.Suite.Path + " (sha256 " + env.Suite.SHA256 + ")"})
	if e := env.Environment; e != nil {
		where := "local"
		if e.CI != "" {
			where = e.CI
			if e.Runner != "" {
				where += ", runner " + e.Runner
			}
		}
		out = append(out, [2]string{"environment", where}, [2]string{"platform", e.Platform})
	} else {
		out = append(out, [2]string{"environment", "not recorded"})
	}
	out = append(out, [2]string{"mcptest version", env.Tool.Name + " " + env.Tool.Version})
	return out
}

func orNotRecorded(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

func modeWords(mode string) string {
	switch mode {
	case "replay":
		return "replay (recorded runs replayed from cassettes, offline)"
	case "live":
		return "live (servers started and called during the run)"
	}
	return orNotRecorded(mode)
}

// serverWords describes a server's transport and auth posture.
func serverWords(s report.ServerInfo) (transport, auth string) {
	transport = s.Transport
	switch s.Transport {
	case "stdio":
		transport = "stdio (local command)"
	case "http":
		transport = "streamable HTTP"
	}
	auth = s.Auth
	switch s.Auth {
	case "none":
		auth = "no auth"
	case "bearer":
		auth = "bearer token from $" + s.TokenEnv
	}
	return transport, auth
}

// figures renders a case's targets and labels as "name=value" in name
// order, one line, with its number of runs first.
func figures(c *report.CaseResult) string {
	return strings.Join(append([]string{fmt.Sprintf("runs=%d", c.Runs)}, caseFigures(c)...), " ")
}

// runRowWords describes one run of a tool_selection: floor the way the
// pretty reporter does: "selected `get_weather`, 1500 tokens".
func runRowWords(ts *report.ToolSelectionDetail, r report.SelectionRow) string {
	what := fmt.Sprintf("selected `%s`", ts.ExpectedTool)
	if !r.Selected {
		what = "did not select `" + ts.ExpectedTool + "`"
		if len(r.Called) > 0 {
			what += ", called " + strings.Join(r.Called, ", ")
		} else {
			what += ", called no tool"
		}
	}
	tokens := "tokens not recorded"
	if r.Tokens != nil {
		tokens = fmt.Sprintf("%d tokens", *r.Tokens)
	}
	if !r.WithinBudget {
		tokens += ", over budget"
	}
	return what + ", " + tokens
}

// literal renders a recorded value as compact JSON without escaping <, >
// and & (each reporter escapes for its own format), so a reader sees the
// value as it was recorded.
func literal(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
