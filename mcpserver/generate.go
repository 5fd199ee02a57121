package mcpserver

import (
	"fmt"
	"io"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine/agentsuite"
	"github.com/mcptest/mcptest/gate/security"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/live"
)

// Generated is one rendered suite with what its renderer has to say about
// it: `mcptest generate` prints it with WriteSuite.
type Generated struct {
	Suite    string
	Notes    []string
	Warnings []security.Finding
	// Summary is the line printed when the suite goes to a file.
	Summary string
}

// Generate renders the suite of one kind (suite, conformance, redteam
// or eval) for every tool
// of cat at once: scaffold_suite's with opt, scaffold_conformance's, or
// scaffold_redteam's and scaffold_eval's with opt's tools and cursor.
func Generate(kind string, cat *live.Catalog, t live.Target, opt ScaffoldOptions) Generated {
	switch kind {
	case "suite":
		opt.All = true
		sc := ScaffoldSuite(cat, t, opt)
		return Generated{sc.Suite, sc.Notes, sc.Warnings, fmt.Sprintf("%d %s, %d %s and %d %s scaffolded", len(sc.Tools), plural(len(sc.Tools), "tool", "tools"), sc.ResourcesScaffolded, plural(sc.ResourcesScaffolded, "resource", "resources"), sc.PromptsScaffolded, plural(sc.PromptsScaffolded, "prompt", "prompts"))}
	case "conformance":
		cf := ScaffoldConformance(cat, t)
		return Generated{cf.Suite, cf.Notes, nil, fmt.Sprintf("%d compliance checks scaffolded", cf.ChecksScaffolded)}
	}
	render, what := ScaffoldRedteam, "red-team probes"
	if kind == "eval" {
		render, what = ScaffoldEval, "eval cases"
	}
	ms := render(cat, t, ModelOptions{Tools: opt.Tools, All: true, Cursor: opt.Cursor})
	return Generated{ms.Suite, ms.Notes, ms.Warnings, fmt.Sprintf("%d %s scaffolded", ms.ToolsCovered, what)}
}

// ProposeAgentSuite is `mcptest generate agent-suite`: the agents: suite
// package agentsuite proposes from the recordings from, with its cassette
// paths relative to output's directory (output "" or "-" is stdout), and
// arguments: checked against catalog (a saved tools/list, "" for none)
// for a recording that carries no schemas. With
// recordings to join, from is one recording, and the suite one test over
// it joined with them (agentsuite.ProposeJoined). No recording, or
// recordings to join to more than one, or a catalog beside recordings to
// join, is wrong input.
func ProposeAgentSuite(output string, from, join []string, catalog string) (Generated, error) {
	switch {
	case len(from) == 0:
		return Generated{}, diag.Input("generate agent-suite: name the recordings with --from CASSETTE")
	case len(join) > 0 && len(from) != 1:
		return Generated{}, diag.Input("generate agent-suite: --join joins recordings to one --from recording, and %d are named", len(from))
	case len(join) > 0 && catalog != "":
		return Generated{}, diag.Input("generate agent-suite: --catalog is for recordings without schemas, and a --join test takes its calls and their catalog from the --from recording")
	}
	if output == "-" {
		output = ""
	}
	var p *agentsuite.Proposal
	var err error
	if len(join) > 0 {
		p, err = agentsuite.ProposeJoined(output, from[0], join)
	} else {
		p, err = agentsuite.ProposeWith(output, from, agentsuite.Options{Catalog: catalog})
	}
	if err != nil {
		return Generated{}, err
	}
	n := len(from) + len(join)
	summary := fmt.Sprintf("%d %s proposed from %d %s", p.Cases, plural(p.Cases, "agent test", "agent tests"), n, plural(n, "recording", "recordings"))
	if len(join) > 0 {
		summary += " joined run by run"
	}
	if p.Unclassed > 0 {
		summary += fmt.Sprintf(", %d of them WITH NO SELECTION CLASS (they pass whatever tools the agent calls: see the notes)", p.Unclassed)
	}
	return Generated{Suite: p.Suite, Notes: p.Notes, Summary: summary}, nil
}

// WriteSuite prints g's warnings and notes to log, then its suite to out,
// or, when output is set (and not "-"), to that file with its summary on
// log; write writes the file (by rename), nil is safefile.WriteOutput.
func WriteSuite(out, log io.Writer, output string, g Generated, write func(path string, data []byte) error) error {
	WriteWarnings(log, g.Warnings)
	for _, n := range g.Notes {
		fmt.Fprintf(log, "note: %s\n", annotate.Clean(n))
	}
	if output == "" || output == "-" {
		_, err := fmt.Fprint(out, g.Suite)
		return err
	}
	if write == nil {
		write = func(path string, data []byte) error { return safefile.WriteOutput(path, data, 0o644) }
	}
	if err := write(output, []byte(g.Suite)); err != nil {
		return fmt.Errorf("write %s: %w", output, err)
	}
	fmt.Fprintf(log, "mcptest: %s; suite written to %s\n", g.Summary, output)
	return nil
}

// plural is one for a count of 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
