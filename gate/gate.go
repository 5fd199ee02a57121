package gate

import (
	"fmt"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
)

// Result is what a gate contributes to a case of the run envelope.
type Result struct {
	// Targets maps a dotted target name (tool_selection.f1) to its value in
	// the seeds' units. An undefined figure is absent.
	Targets map[string]float64
	// Counts maps a dotted count name (tool_selection.tp) to the raw number
	// behind the targets.
	Counts map[string]int64
	// Labels maps a dotted target name to a value that is a word rather
	// than a number (token_efficiency.grade).
	Labels map[string]string
	// Findings say, in order, what the gate saw that a reader should know.
	Findings []Finding
}

// Finding is one observation of a gate: a missed class, an unexpected tool,
// a restricted call.
type Finding struct {
	// Level is "error" (the gate's evidence of a failure), "warning" or
	// "notice".
	Level   string
	Gate    string
	Message string
	// Run is the 1-based run the finding is about; 0 when it is about the
	// whole case.
	Run int
	// Position is where in a recording the finding points; nil for none.
	Position *diag.Pos
}

// MatchID reports whether a declared member id matches a call. A member with
// a server prefix ("brave.web_search") matches the fully qualified call
// only; a bare member ("web_search") matches that tool on any server. A call
// without a server matches bare members only.
func MatchID(member, server, tool string) bool {
	if s, t, ok := strings.Cut(member, "."); ok {
		if server == "" {
			return member == tool
		}
		return s == server && t == tool
	}
	return member == tool
}

// tally counts named things in first-seen order, so findings follow the
// order of appearance rather than map order. It names at most maxNamed
// of them: what is counted under a name past those is counted in more,
// not named, so a recording that calls a new tool name with every call
// (a flood of names) costs a gate maxNamed names and the findings that
// name them (unexpected tools, calls outside the declared edges, ...)
// as many lines, whatever the number of calls. The sum of the counts and
// more is every count added.
type tally struct {
	order []string
	n     map[string]int
	more  int
}

// maxNamed bounds the names a tally keeps.
const maxNamed = 50

func (t *tally) add(name string) { t.addN(name, 1) }

// addN counts name k times.
func (t *tally) addN(name string, k int) {
	if t.n == nil {
		t.n = map[string]int{}
	}
	if _, ok := t.n[name]; !ok {
		if len(t.order) == maxNamed {
			t.more += k
			return
		}
		t.order = append(t.order, name)
	}
	t.n[name] += k
}

// addTally counts what u counted: its names (as far as t names them)
// and what it did not name.
func (t *tally) addTally(u *tally) {
	for _, name := range u.order {
		t.addN(name, u.n[name])
	}
	t.more += u.more
}

// sum is every count added.
func (t *tally) sum() int {
	n := t.more
	for _, k := range t.n {
		n += k
	}
	return n
}

// runsOf renders "in 2 of 5 runs" or "" for a single run.
func runsOf(k, runs int) string {
	if runs <= 1 {
		return ""
	}
	return fmt.Sprintf(" (in %d of %d runs)", k, runs)
}

// backticked quotes and joins names for a message: `a`, `b`.
func backticked(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}
