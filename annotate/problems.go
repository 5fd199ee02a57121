package annotate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// problem is one failed check of a case, as every reporter shows it (the
// text report, the job summary, JUnit, SARIF and HTML): a failed
// assertion, a missed floor, an error finding, a per-run check no
// assertion of the case stands for, or, for an inconclusive case, the
// finding that says why. Each check is one problem, once, with its
// evidence under it: the actual value, the runs that failed it and a
// floor's FLOOR lines.
type problem struct {
	// Kind is "assertion", "floor", "finding", "run" or "inconclusive".
	Kind    string
	Message string
	// Pos is where the check is written, else the case's position;
	// Located says it is the check's own, which the text report prints.
	Pos     diag.Pos
	Located bool
	// Level is a finding's level ("error"), which the text report
	// prints before it; "" for the other kinds.
	Level string
	// Actual is the assertion's actual value, compact JSON, clipped.
	Actual string
	// Lines are the evidence under the check past its actual value: the
	// runs that failed it, a floor's FLOOR lines and the runs that missed
	// it (those that do not only repeat the checks' own runs).
	Lines []string
	// Key identifies the problem within its case, stably across runs (for
	// SARIF fingerprints): the assertion's block, index and target, the
	// floor's name or the finding's gate.
	Key string
}

// Text renders the problem on its own lines, the way the pretty reporter
// does: "file:line:col: message", then the actual value and the other
// evidence indented.
func (p problem) Text() string {
	return strings.Join(p.TextLines(), "\n")
}

// TextLines are the problem's lines: the check, then its evidence, each
// indented by two spaces.
func (p problem) TextLines() []string {
	head := p.Message
	if p.Located {
		head = p.Pos.String() + ": " + head
	}
	if p.Level != "" {
		head = p.Level + ": " + head
	}
	out := []string{head}
	if p.Actual != "" {
		out = append(out, "  actual: "+p.Actual)
	}
	for _, l := range p.Lines {
		out = append(out, "  "+l)
	}
	return out
}

// caseProblems lists why a case failed or is inconclusive (caseFailures);
// a passing case has none.
func caseProblems(c *report.CaseResult) []problem {
	if c.Verdict == report.Pass {
		return nil
	}
	return caseFailures(c)
}

// caseFailures is the one model of a case's failures, grouped: each check
// the case or one of its runs failed, once, in the order failed
// assertions, missed floors, error findings (for an inconclusive case,
// its warning findings too), then the per-run checks no assertion stands
// for; under each, its evidence. A passing case judged by its runs
// (reliability:) lists the checks some of its runs failed.
func caseFailures(c *report.CaseResult) []problem {
	var out []problem
	runsOf := failedRuns(c)
	claimed := map[string]bool{}
	var asserts []report.AssertionResult // the failed ones, as out holds them first
	for _, a := range c.Assertions {
		if a.Passed {
			continue
		}
		asserts = append(asserts, a)
		p := problem{Kind: "assertion", Message: a.Message, Pos: a.Position, Located: a.Position.File != "",
			Key: fmt.Sprintf("assertion/%s/%d/%s", a.Block, a.Index, a.Target)}
		if a.Actual != nil {
			p.Actual = clip(literal(a.Actual), 200)
		}
		if p.Pos.File == "" {
			p.Pos = c.Position
		}
		var runs []int
		for label, rs := range runsOf {
			if checkOf(label, a) {
				claimed[label] = true
				runs = mergeRuns(runs, rs)
			}
		}
		if l := runsLine(runs, c.Runs); l != "" {
			p.Lines = append(p.Lines, l)
		}
		out = append(out, p)
	}
	for _, f := range c.Floors {
		if f.Passed {
			continue
		}
		out = append(out, problem{Kind: "floor", Message: f.Name + ": " + f.Message, Pos: c.Position, Lines: floorEvidence(c, f), Key: "floor/" + f.Name})
	}
	for i, f := range c.Findings {
		if f.Level != "error" && !(c.Verdict == report.Inconclusive && f.Level == "warning") || c.Verdict == report.Pass {
			continue
		}
		line := f.Message
		if f.Position != nil && f.Position.File != "" {
			line = f.Position.String() + ": " + line
		}
		if j := evidenceFor(out, asserts, f); j >= 0 {
			out[j].Lines = append(out[j].Lines, line) // the run's evidence of the check it failed
			continue
		}
		p := problem{Kind: "finding", Message: f.Message, Pos: c.Position, Level: f.Level, Key: fmt.Sprintf("finding/%s/%d", f.Gate, i)}
		if f.Position != nil && f.Position.File != "" {
			p.Pos, p.Located = *f.Position, true
		}
		if c.Verdict == report.Inconclusive {
			p.Kind = "inconclusive"
		}
		out = append(out, p)
	}
	if c.ToolSelection != nil {
		return out // its runs are listed one by one, with what each selected
	}
	for _, label := range runLabels(c) {
		if claimed[label] {
			continue
		}
		out = append(out, problem{Kind: "run", Message: label, Pos: c.Position, Lines: []string{runsLine(runsOf[label], c.Runs)}, Key: "run/" + label})
	}
	return out
}

// evidenceFor is the index in out of the failed assertion an error
// finding of a run is evidence of: the one failed assertion of the
// finding's gate, or, of several (budget: floors), the one whose floor
// the finding names ("over max_calls 4"); -1 for none, and the finding
// is a problem of its own.
func evidenceFor(out []problem, asserts []report.AssertionResult, f report.Finding) int {
	if f.Level != "error" || f.Gate == "" {
		return -1
	}
	var of []int
	for i, a := range asserts {
		if a.Block == f.Gate {
			of = append(of, i)
		}
	}
	if len(of) == 1 {
		return of[0]
	}
	for _, i := range of {
		_, rest, ok := strings.Cut(asserts[i].Message, "` floor ")
		name, _, _ := strings.Cut(rest, " ")
		if ok && name != "" && strings.Contains(f.Message, " "+name+" ") {
			return i
		}
	}
	return -1
}

// failedRuns maps each check a run of c failed (its label, as the run's
// verdict names it) to the runs that failed it, in run order.
func failedRuns(c *report.CaseResult) map[string][]int {
	out := map[string][]int{}
	if c.Reliability == nil {
		return out
	}
	for _, row := range c.Reliability.Rows {
		for _, l := range row.Failed {
			out[l] = append(out[l], row.Run)
		}
	}
	return out
}

// runLabels are the labels of failedRuns in the order the runs first
// name them.
func runLabels(c *report.CaseResult) []string {
	var out []string
	seen := map[string]bool{}
	if c.Reliability == nil {
		return nil
	}
	for _, row := range c.Reliability.Rows {
		for _, l := range row.Failed {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return out
}

// checkOf reports whether a run's failed-check label names assertion a:
// "assertion #0 (`final_response`)", "assertion #1 (`x`) in block" (with
// what the gate adds after a colon), "default gate of `block:` (`target`
// ...)" or "`budget:` floor NAME (`target` ...)".
func checkOf(label string, a report.AssertionResult) bool {
	target := "(`" + a.Target + "`"
	if a.Default {
		return strings.HasPrefix(label, "default gate of `"+a.Block+":` "+target) ||
			strings.HasPrefix(label, "`"+a.Block+":` floor ") && strings.Contains(label, " "+target+" ")
	}
	own := fmt.Sprintf("assertion #%d %s)", a.Index, target)
	if a.Block != "" {
		own += " in " + a.Block
	}
	return label == own || strings.HasPrefix(label, own+":")
}

// mergeRuns is the sorted union of two sorted run lists.
func mergeRuns(a, b []int) []int {
	out := append(append([]int(nil), a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// maxRunsNamed is how many runs a check's evidence names one by one.
const maxRunsNamed = 20

// runsLine says which runs failed a check: "failed in runs 1, 3 and 5
// of 5", or "" for a case of one run or no run named.
func runsLine(runs []int, total int) string {
	if total <= 1 || len(runs) == 0 {
		return ""
	}
	words := make([]string, 0, min(len(runs), maxRunsNamed))
	for _, r := range runs[:min(len(runs), maxRunsNamed)] {
		words = append(words, strconv.Itoa(r))
	}
	list := words[0]
	switch {
	case len(runs) > maxRunsNamed:
		list = strings.Join(words, ", ") + fmt.Sprintf(" and %d more", len(runs)-maxRunsNamed)
	case len(words) > 1:
		list = strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
	}
	if len(runs) == 1 {
		return fmt.Sprintf("failed in run %s of %d", list, total)
	}
	return fmt.Sprintf("failed in runs %s of %d", list, total)
}

// floorEvidence is a missed floor's lines less those that only repeat
// the checks of its failing runs ("  run 4: assertion #0 (...)", which
// each check's own runs line says) and the count of those left out.
func floorEvidence(c *report.CaseResult, f report.Floor) []string {
	checks := map[int]string{}
	if c.Reliability != nil {
		for _, row := range c.Reliability.Rows {
			checks[row.Run] = strings.Join(row.Failed, "; ")
		}
	}
	var out []string
	for _, l := range f.Lines {
		if rest, ok := strings.CutPrefix(l, "  run "); ok {
			n, what, found := strings.Cut(rest, ": ")
			if run, err := strconv.Atoi(n); found && err == nil && checks[run] == what {
				continue
			}
		}
		if strings.HasPrefix(l, "  and ") && strings.HasSuffix(l, " more failing runs") && c.Reliability != nil {
			continue
		}
		out = append(out, l)
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
