package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/gate/toolbench"
)

// toolBench is `mcptest tool-bench run <spec> [--min-drop FRACTION]
// [--json]`.
func (c *Command) toolBench(args []string) error {
	if len(args) > 0 && isHelp(args[0]) {
		args = []string{"run", "--help"}
	}
	if len(args) == 0 || args[0] != "run" {
		return inputErr("usage: mcptest tool-bench run <spec.yml> [--min-drop FRACTION] [--json]")
	}
	fs := c.newFlags("tool-bench run", "mcptest tool-bench run <spec.yml> [--min-drop FRACTION] [--json]")
	minDrop := fs.Float64("min-drop", -1, "exit 1 when the largest selection drop across mutations is below `FRACTION` (0..1)")
	asJSON := fs.Bool("json", false, "print the structured report")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return inputErr("usage: mcptest tool-bench run <spec.yml> [--min-drop FRACTION] [--json]")
	}
	if *minDrop > 1 {
		return inputErr("--min-drop %v: expected a fraction between 0 and 1", *minDrop)
	}
	spec, doc, err := readBenchSpec(pos[0])
	if err != nil {
		return err
	}
	rep, err := toolbench.Run(spec)
	if err != nil {
		var se *toolbench.SpecError
		if errors.As(err, &se) {
			return &diag.Error{Pos: specPos(doc, se), Kind: "tool-bench", Message: se.Error(), Source: doc.Data}
		}
		return inputErr("%s: %v", pos[0], err)
	}
	if *asJSON {
		if err := writeJSON(c.Stdout, rep); err != nil {
			return err
		}
	} else {
		writeBench(c, rep)
	}
	if *minDrop >= 0 && rep.MaxDrop < *minDrop {
		fmt.Fprintf(c.Stderr, "FLOOR tool-bench: the largest selection drop %.2f is below --min-drop %.2f: the descriptions do not carry the selection signal\n", rep.MaxDrop, *minDrop)
		return errFailed
	}
	return nil
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }

func writeBench(c *Command, rep toolbench.Report) {
	b := rep.Baseline
	fmt.Fprintf(c.Stdout, "baseline     accuracy %s (%d/%d, 95%% CI %s-%s)  TDQS mean %.2f min %.2f  smells %d  ~%d tokens\n",
		pct(b.Accuracy), b.Correct, b.Intents, pct(b.CILow), pct(b.CIHigh), b.TDQSMean, b.TDQSMin, b.SmellSum, b.Tokens)
	for i, m := range rep.Mutations {
		what := m.Kind
		switch m.Kind {
		case toolbench.Truncate:
			what += fmt.Sprintf(" %d", *m.Chars)
		case toolbench.DropKeyword:
			what += " " + annotate.Clean(m.Word)
		}
		var smells []string
		for _, s := range sortedSmells(m.NewSmells) {
			smells = append(smells, fmt.Sprintf("+%s %d", s, m.NewSmells[s]))
		}
		extra := ""
		if len(smells) > 0 {
			extra = "  " + strings.Join(smells, " ")
		}
		fmt.Fprintf(c.Stdout, "mutation %-3d %s %s  accuracy %s (%d/%d)  drop %.2f  %d tokens removed%s\n",
			i+1, annotate.Clean(m.Tool), what, pct(m.Accuracy), m.Correct, m.Intents, m.Drop, m.TokensRemoved, extra)
	}
	fmt.Fprintf(c.Stdout, "max drop %.2f\n", rep.MaxDrop)
}

func sortedSmells(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
