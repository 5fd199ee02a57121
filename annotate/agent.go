package annotate

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcptest/mcptest/gate/tokens"
	"github.com/mcptest/mcptest/report"
)

// DefaultAgentBudget is the agent reporter's token budget when none is
// given (--agent-budget), in cl100k_base tokens.
const DefaultAgentBudget = 1024

// AgentFailure is one failing case as an agent reads it: the failed
// assertion, the actual value clipped to a field budget, and a command that
// re-runs just that case. The agent reporter renders it as a FAIL block; the
// mcp-server front door (run_tool_test) returns the same value as JSON, so a
// failure reads the same whichever surface it came through. Build it with
// AgentFailures.
type AgentFailure struct {
	// Test is the case's name.
	Test string `json:"test"`
	// Assert is the first thing that failed: an assertion's message, a
	// floor's, or an error finding's, on one line.
	Assert string `json:"assert"`
	// Actual is the failed assertion's actual value as compact JSON, clipped
	// to the field budget; empty when the failure has no value.
	Actual string `json:"actual,omitempty"`
	// Clipped says Actual was cut to the field budget.
	Clipped bool `json:"-"`
	// Full, set by a surface that can serve it (the front door's
	// mcptest://runs/{run_id}/tests/{name}/output), locates the complete
	// value when Actual was clipped. The agent reporter leaves it empty.
	Full string `json:"full,omitempty"`
	// Repro is a shell command that re-runs just this case, verbatim.
	Repro string `json:"repro"`
	// Runs, for a case with several runs, says how many passed, its
	// reliability class and which runs failed: "3/4 runs passed (75%):
	// flaky; failed: #2".
	Runs string `json:"runs,omitempty"`
}

// AgentOptions tune AgentFailures.
type AgentOptions struct {
	// FieldBudget caps Actual (and twice it, Assert) in cl100k_base
	// tokens; 0 means 128.
	FieldBudget int
	// Repro returns the command that re-runs the case named name; nil uses
	// Repro with the envelope's suite path.
	Repro func(name string) string
}

// AgentFailures returns the failing cases of env in suite order, shaped for
// an agent.
func AgentFailures(env *report.Envelope, opt AgentOptions) []AgentFailure {
	field := opt.FieldBudget
	if field <= 0 {
		field = 128
	}
	repro := opt.Repro
	if repro == nil {
		repro = func(name string) string { return Repro(env.Suite.Path, name) }
	}
	var out []AgentFailure
	for _, c := range env.Cases {
		if c.Verdict == report.Fail {
			out = append(out, agentFailure(c, field, repro))
		}
	}
	return out
}

func agentFailure(c *report.CaseResult, field int, repro func(string) string) AgentFailure {
	f := AgentFailure{Test: c.Name, Repro: repro(c.Name)}
	assert, actual := firstFailure(c)
	f.Assert = clipTokens(Clean(assert), 2*field)
	if actual != nil {
		full := Clean(compact(actual))
		f.Actual = clipTokens(full, field)
		f.Clipped = f.Actual != full
	}
	f.Runs = agentRuns(c)
	return f
}

// firstFailure names what made the case fail: its first failed assertion,
// else its first failed floor, else its first error finding.
func firstFailure(c *report.CaseResult) (string, any) {
	for _, a := range c.Assertions {
		if !a.Passed {
			return a.Message, a.Actual
		}
	}
	for _, fl := range c.Floors {
		if !fl.Passed {
			return "floor " + fl.Name + ": " + fl.Message, nil
		}
	}
	for _, f := range c.Findings {
		if f.Level == "error" {
			return f.Message, nil
		}
	}
	return "the case failed", nil
}

// Repro returns the command that re-runs just the case named name:
// `mcptest run --config SUITE --filter NAME`, quoted for a POSIX shell so
// each argument is byte for byte the path and the name (an exact name is
// matched before any substring). A name that cannot be shown as it is, one
// with a control character, a line or paragraph separator or a format
// character such as a bidi override, goes in --filter-escaped instead,
// written with Go escapes (EscapeName), so the command stays one line of
// printable text that still selects exactly that case.
func Repro(suite, name string) string {
	filter := " --filter " + shellQuote(name)
	if !printable(name) {
		filter = " --filter-escaped " + shellQuote(EscapeName(name))
	}
	return "mcptest run --config " + shellQuote(suite) + filter
}

// printable reports whether s is valid UTF-8 of printable characters and
// spaces only (strconv.IsPrint).
func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) })
}

// EscapeName writes a case name with Go string escapes (\n, \t, \x1b,
// \u202e, \" and \\) and without the surrounding quotes; UnescapeName,
// behind `mcptest run --filter-escaped`, reads it back byte for byte.
func EscapeName(name string) string {
	q := strconv.Quote(name)
	return q[1 : len(q)-1]
}

// UnescapeName reads a name written by EscapeName.
func UnescapeName(s string) (string, error) {
	name, err := strconv.Unquote(`"` + s + `"`)
	if err != nil {
		return "", fmt.Errorf("%q is not a name with Go escapes (\\n, \\x1b, \\u202e; a \" as \\\")", s)
	}
	return name, nil
}

// shellQuote quotes s for a POSIX shell: in double quotes when nothing in
// it is special there (the readable form), else in single quotes.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, "\"\\$`!'\n") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// clipTokens cuts s to at most n cl100k_base tokens, marking a cut with "…".
func clipTokens(s string, n int) string {
	// A token is at least one byte: more than 8n runes cannot fit, and
	// counting a huge value whole would cost more than it is worth.
	r := []rune(s)
	if len(r) > 8*n+8 {
		r = r[:8*n+8]
	}
	if len(r) == len([]rune(s)) && tokens.Count(s) <= n {
		return s
	}
	lo, hi := 0, len(r)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if tokens.Count(string(r[:mid])+"…") <= n {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(r[:lo]) + "…"
}

// Agent is the model-facing reporter: a VERDICT line, then one FAIL block
// per failing case (assert:, actual:, runs: for a case with several runs,
// repro:) while the token budget lasts,
// then OMITTED with the number of failures the budget cut. Passing cases are
// only counted. The field names are stable and line-oriented:
//
//	VERDICT fail 1/2 passed (1 failed, 0 inconclusive, 0 cached, 1ms)
//	FAIL status reports operational
//	assert: assertion #0 (`result.content[0].text`) failed: ...
//	actual: "status: degraded"
//	repro: mcptest run --config "suite.yml" --filter "status reports operational"
//	OMITTED 3 more failures (raise the agent reporter token budget to see them)
//
// The VERDICT line and the first FAIL block are written whatever the budget.
type Agent struct {
	// Budget caps the whole result in cl100k_base tokens; 0 means
	// DefaultAgentBudget.
	Budget int
	// Repro, when set, builds the re-run command of a case (see
	// AgentOptions.Repro).
	Repro func(name string) string
}

// Report implements Reporter.
func (a Agent) Report(w io.Writer, env *report.Envelope) error {
	budget := a.Budget
	if budget <= 0 {
		budget = DefaultAgentBudget
	}
	field := budget / 8
	if field < 16 {
		field = 16
	}
	if field > 256 {
		field = 256
	}
	repro := a.Repro
	if repro == nil {
		repro = func(name string) string { return Repro(env.Suite.Path, name) }
	}
	var failing []*report.CaseResult
	for _, c := range env.Cases {
		if c.Verdict == report.Fail {
			failing = append(failing, c)
		}
	}
	var b strings.Builder
	b.WriteString(VerdictLine(env) + "\n")
	used := tokens.Count(b.String())
	used += restrictedLines(&b, env, field, budget-used)
	// Blocks are built one at a time, so a run with thousands of failures
	// costs only the blocks that fit.
	for i, c := range failing {
		block := FailBlock(agentFailure(c, field, repro))
		cost := tokens.Count(block)
		if i > 0 {
			rest := len(failing) - i - 1
			reserve := 0
			if rest > 0 {
				reserve = tokens.Count(omitted(rest))
			}
			if used+cost+reserve > budget {
				b.WriteString(omitted(len(failing) - i))
				break
			}
		}
		b.WriteString(block)
		used += cost
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// restrictedLines writes, for each passing case that called a tool_edges:
// restricted tool, a RESTRICTED line naming the case and its first such
// call, while they fit in budget tokens, and returns the tokens written. A
// restricted call is shown whatever the verdict (see restrictedCall): an
// expect: that reads only allowed_pct would otherwise let it pass unseen.
func restrictedLines(b *strings.Builder, env *report.Envelope, field, budget int) int {
	used := 0
	for _, c := range env.Cases {
		fs := restrictedOnPass(c)
		if len(fs) == 0 {
			continue
		}
		line := fmt.Sprintf("RESTRICTED %s: %s\n", Clean(c.Name), clipTokens(Clean(fs[0].Message), field))
		if cost := tokens.Count(line); used+cost <= budget {
			b.WriteString(line)
			used += cost
		}
	}
	return used
}

// VerdictLine is the agent reporter's first line: the verdict, passed over
// total, then failed, inconclusive, the cases served from the cache
// (run.cached) and the run's duration.
func VerdictLine(env *report.Envelope) string {
	t := env.Totals
	return fmt.Sprintf("VERDICT %s %d/%d passed (%d failed, %d inconclusive, %d cached, %dms)",
		Clean(string(env.Verdict)), t.Passed, t.Total, t.Failed, t.Inconclusive, env.Run.Cached, env.Run.DurationMS)
}

// FailBlock renders one failure as the agent reporter's FAIL block, each
// line ending in a newline.
func FailBlock(f AgentFailure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FAIL %s\n", Clean(f.Test))
	fmt.Fprintf(&b, "assert: %s\n", f.Assert)
	if f.Actual != "" {
		fmt.Fprintf(&b, "actual: %s\n", f.Actual)
	}
	if f.Runs != "" {
		fmt.Fprintf(&b, "runs: %s\n", f.Runs)
	}
	fmt.Fprintf(&b, "repro: %s\n", Clean(f.Repro))
	return b.String()
}

func omitted(n int) string {
	noun := "failures"
	if n == 1 {
		noun = "failure"
	}
	return fmt.Sprintf("OMITTED %d more %s (raise the agent reporter token budget to see them)\n", n, noun)
}
