package engine

import (
	"fmt"

	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/report"
)

// A case's findings are the one part of its result whose size a recording
// decides: a gate names what it saw (an unexpected tool, a call outside
// the declared edges), and a recording may call a new tool, with a long
// name, at every call. Each gate bounds the names it keeps (gate's tally),
// and every case, whatever its kind, passes boundFindings on its way out
// of runCase: no more than maxGateFindings findings of one gate, each
// message no longer than maxFindingBytes. That bounds what a failing case
// carries into the envelope, the reports and the pull request's comment
// (docs/reports.md), and keeps the work of every reporter linear.

const (
	// maxGateFindings bounds the findings a case keeps of one gate (the
	// case's own findings, of no gate, count as one): past it, one more
	// finding says how many were left out, at the most severe level of
	// those left out.
	maxGateFindings = 64
	// maxFindingBytes bounds a finding's message: a longer one is cut on a
	// character boundary and says how many bytes it lost.
	maxFindingBytes = 4 << 10
)

// boundFindings holds res's findings to maxGateFindings a gate and
// maxFindingBytes a message, keeping their order.
func boundFindings(res *report.CaseResult) {
	if len(res.Findings) <= maxGateFindings && !longMessage(res.Findings) {
		return
	}
	kept := map[string]int{}
	type over struct {
		n     int
		level string
	}
	left := map[string]*over{}
	var order []string // the gates past the bound, in the order they went past it
	out := res.Findings[:0]
	for _, f := range res.Findings {
		if kept[f.Gate] == maxGateFindings {
			o := left[f.Gate]
			if o == nil {
				o = &over{level: f.Level}
				left[f.Gate] = o
				order = append(order, f.Gate)
			}
			o.n++
			if severity(f.Level) > severity(o.level) {
				o.level = f.Level
			}
			continue
		}
		kept[f.Gate]++
		f.Message = clipMessage(f.Message)
		out = append(out, f)
	}
	for _, g := range order {
		o := left[g]
		out = append(out, report.Finding{Level: o.level, Gate: g,
			Message: fmt.Sprintf("%d more findings of this gate are not listed (a case lists %d a gate)", o.n, maxGateFindings)})
	}
	clear(res.Findings[len(out):])
	res.Findings = out
}

// longMessage reports whether a finding's message is over maxFindingBytes.
func longMessage(fs []report.Finding) bool {
	for _, f := range fs {
		if len(f.Message) > maxFindingBytes {
			return true
		}
	}
	return false
}

// clipMessage cuts a message to maxFindingBytes, masked first so that the
// cut leaves no part of a secret the mask would have hidden whole.
func clipMessage(msg string) string {
	if len(msg) <= maxFindingBytes {
		return msg
	}
	msg = redact.String(msg)
	head := cutBytes(msg, maxFindingBytes)
	if len(head) == len(msg) {
		return msg
	}
	return fmt.Sprintf("%s… (%d more bytes not shown)", head, len(msg)-len(head))
}

// severity orders the levels of findings, the most severe highest.
func severity(level string) int {
	switch level {
	case "error":
		return 3
	case "warning":
		return 2
	case "notice":
		return 1
	}
	return 0
}
