package toolbench

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Text renders a Report for a terminal: the baseline's figures, one line
// per mutation in the spec's order, and the largest drop.
type Text struct {
	// Clean escapes the control characters of a spec's text (a tool name,
	// a dropped word) before it is printed; nil prints it as it is.
	Clean func(string) string
}

// Write writes rep to w.
func (t Text) Write(w io.Writer, rep Report) error {
	clean := t.Clean
	if clean == nil {
		clean = func(s string) string { return s }
	}
	bw := bufio.NewWriter(w)
	b := rep.Baseline
	fmt.Fprintf(bw, "baseline     accuracy %s (%d/%d, 95%% CI %s-%s)  TDQS mean %.2f min %.2f  smells %d  ~%d tokens\n",
		pct(b.Accuracy), b.Correct, b.Intents, pct(b.CILow), pct(b.CIHigh), b.TDQSMean, b.TDQSMin, b.SmellSum, b.Tokens)
	for i, m := range rep.Mutations {
		what := m.Kind
		switch m.Kind {
		case Truncate:
			if m.Chars != nil {
				what += fmt.Sprintf(" %d", *m.Chars)
			}
		case DropKeyword:
			what += " " + clean(m.Word)
		}
		var smells []string
		for _, s := range sortedKeys(m.NewSmells) {
			smells = append(smells, fmt.Sprintf("+%s %d", s, m.NewSmells[s]))
		}
		extra := ""
		if len(smells) > 0 {
			extra = "  " + strings.Join(smells, " ")
		}
		fmt.Fprintf(bw, "mutation %-3d %s %s  accuracy %s (%d/%d)  drop %.2f  %d tokens removed%s\n",
			i+1, clean(m.Tool), what, pct(m.Accuracy), m.Correct, m.Intents, m.Drop, m.TokensRemoved, extra)
	}
	fmt.Fprintf(bw, "max drop %.2f\n", rep.MaxDrop)
	return bw.Flush()
}

// pct renders a fraction as a whole percent.
func pct(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
