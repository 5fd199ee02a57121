package agentsuite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/engine/schema"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/report"
)

// maxFacts bounds the final-response facts a test asserts.
const maxFacts = 3

// Proposal is a proposed suite and what its author should review.
type Proposal struct {
	// Suite is the YAML text.
	Suite string
	// Notes say what the proposal left for a person to decide.
	Notes []string
	// Cases is the number of agent tests proposed.
	Cases int
	// Unclassed is the number of them with no selection class: recordings
	// whose runs agree on no tool, so tool_selection checks nothing.
	Unclassed int
}

// draft is what one cassette proposes, before it is measured.
type draft struct {
	name, cassette string
	runs           int
	classes        []string          // members of the tools every run called, in first-call order
	toolOf         map[string]string // a member's tool name, for tool_names
	sometimes      []string          // tools only some runs called
	allowed        []string          // catalog tools that only read
	restricted     []string          // catalog tools that may write (gate.MayWrite)
	facts          []string          // stated by every run's final response
	maxTokens      *int64            // nil unless every run recorded tokens
	// arguments marks a draft whose recording carries the schema of every
	// tool its runs called: it proposes arguments: {} against them.
	arguments bool
	// lack are the tools the runs called whose schema the recording does
	// not carry; argCatalog is the catalog file (relative to the suite)
	// that has them all, proposed as arguments: { catalog: ... }.
	lack       []string
	argCatalog string
	// recorded are the names of the recording's catalog tools, schema or
	// not, that a called name may resolve to (cassette.ResolveTool) as
	// the gate resolves it; ambiguous notes a called name two tools
	// could be, once.
	recorded  []string
	ambiguous map[string]bool
	// steps are the calls every run made, in the same order (members),
	// proposed as a strict trajectory; nil when the runs differ.
	steps []string
	// calls counts the calls of all the runs.
	calls int
	minF1 *int64 // the lowest selection F1 of a run on the classes
	notes []string
	// unclassed marks a draft with runs and no class: every tool called
	// was dropped (called in some runs only) or none was called.
	unclassed bool
	// sources are the recordings of a joined draft (ProposeJoined), the
	// calls source first; nil for a draft of one cassette.
	sources []draftSource
}

// draftSource is one entry of a joined draft's sources: a recording and
// what it gives.
type draftSource struct {
	cassette string
	use      []string
}

// Propose reads the cassettes and proposes one agent test per cassette for
// a suite to be written at suitePath ("" for the working directory): the
// cassette paths in the suite are relative to its directory.
func Propose(suitePath string, cassettes []string) (*Proposal, error) {
	return ProposeWith(suitePath, cassettes, Options{})
}

// Options are what a proposal takes beside the recordings.
type Options struct {
	// Catalog is a saved tools/list file (`mcptest tools --format json`):
	// a recording that carries no input schema for a tool its runs called
	// gets arguments: { catalog: ... } when this catalog names every such
	// tool. "" for none.
	Catalog string
}

// ProposeWith is Propose with the options.
func ProposeWith(suitePath string, cassettes []string, opt Options) (*Proposal, error) {
	if len(cassettes) == 0 {
		return nil, fmt.Errorf("no recording given: name one or more cassettes with --from")
	}
	dir := filepath.Dir(suitePath)
	if suitePath == "" {
		suitePath, dir = "agent-suite.yml", "."
	}
	cat, err := readCatalog(dir, opt.Catalog)
	if err != nil {
		return nil, err
	}
	var drafts []*draft
	names := map[string]bool{}
	for _, path := range cassettes {
		cas, err := readAll(path)
		if err != nil {
			return nil, err
		}
		d := propose(cas, relativeTo(dir, path))
		cat.apply(d)
		// A name already taken (by a recording of the same name, or by one
		// named like a numbered one, "a #2") gets the next free number.
		base := d.name
		for n := 2; names[d.name]; n++ {
			d.name = base + " #" + strconv.Itoa(n)
		}
		names[d.name] = true
		drafts = append(drafts, d)
	}
	return proposal(suitePath, drafts)
}

// proposal renders the drafts as a suite at suitePath, measured on their
// recordings.
func proposal(suitePath string, drafts []*draft) (*Proposal, error) {
	figures, err := measure(suitePath, render(drafts, nil))
	if err != nil {
		return nil, err
	}
	p := &Proposal{Suite: render(drafts, figures), Cases: len(drafts)}
	for _, d := range drafts {
		if m := figures[d.name]; d.arguments && m.invalid != nil && *m.invalid > 0 {
			d.notes = append(d.notes, fmt.Sprintf("%s calls of the recorded runs have arguments their tool's schema refuses: "+
				"arguments.invalid is held at that count, review the calls (the run's findings name them)", number(*m.invalid)))
		}
	}
	if err := selfCheck(suitePath, p.Suite, drafts); err != nil {
		return nil, err
	}
	for _, d := range drafts {
		if d.unclassed {
			p.Unclassed++
		}
		for _, n := range d.notes {
			p.Notes = append(p.Notes, d.name+": "+n)
		}
	}
	return p, nil
}

// readAll reads what one --from names as one recording: a file, or the
// files of a directory or a glob (as a suite's `cassette:` reads them), their
// runs in file order, the catalog of the first file that has one.
func readAll(from string) (*cassette.Cassette, error) {
	files, err := engine.ResolveCassettes("", from)
	if err != nil {
		msg := err.Error()
		if _, serr := os.Stat(from); errors.Is(serr, fs.ErrNotExist) && !strings.ContainsAny(from, "*?[") {
			msg = "no such file or directory: name a recording, a directory of recordings or a glob"
		}
		return nil, &diag.Error{Pos: diag.Pos{File: from}, Kind: "cassette", Message: msg}
	}
	var all *cassette.Cassette
	for _, f := range files {
		cas, err := cassette.ReadFile(f)
		if err != nil && !errors.As(err, new(*diag.Error)) && !errors.As(err, new(diag.List)) {
			// A file that cannot be read is the caller's input, as a
			// malformed one is.
			return nil, &diag.Error{Pos: diag.Pos{File: f}, Kind: "cassette", Message: err.Error()}
		}
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = cas
			continue
		}
		all.Runs = append(all.Runs, cas.Runs...)
		if len(all.Catalog) == 0 {
			all.Catalog = cas.Catalog
		}
	}
	return all, nil
}

func relativeTo(dir, path string) string {
	abs, err1 := filepath.Abs(path)
	base, err2 := filepath.Abs(dir)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(base, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

// propose reads what the runs of one cassette agree on.
func propose(cas *cassette.Cassette, path string) *draft {
	d := &draft{cassette: path, runs: len(cas.Runs), toolOf: map[string]string{}}
	d.name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if cas.Agent != "" {
		d.name = cas.Agent + ": " + d.name
	}
	inRuns := map[string]int{}
	var order []string
	var responses []string
	tokens := 0
	for i := range cas.Runs {
		r := &cas.Runs[i]
		seen := map[string]bool{}
		for _, c := range r.Calls() {
			if c.Tool == "" {
				continue // no member can name it
			}
			id := member(c.Server, c.Tool)
			d.toolOf[id] = c.Tool
			if !seen[id] {
				seen[id] = true
				if inRuns[id] == 0 {
					order = append(order, id)
				}
				inRuns[id]++
			}
		}
		responses = append(responses, finalResponse(r))
		if r.Tokens != nil {
			tokens++
			if d.maxTokens == nil || r.Tokens.Total > *d.maxTokens {
				t := r.Tokens.Total
				d.maxTokens = &t
			}
		}
	}
	if tokens < len(cas.Runs) {
		// A run without tokens would fail a token floor on its own.
		d.maxTokens = nil
	}
	d.allowed, d.restricted = edges(cas)
	for _, tool := range order {
		if slices.Contains(d.restricted, tool) {
			// A tool that may change state and that the runs called is
			// what the agent did, not a restricted call: restricting it
			// would fail the draft on its own recordings. It is allowed,
			// and said so, for a person to decide.
			d.restricted = slices.DeleteFunc(d.restricted, func(t string) bool { return t == tool })
			d.allowed = append(d.allowed, tool)
			sort.Strings(d.allowed)
			if inRuns[tool] == len(cas.Runs) {
				d.notes = append(d.notes, fmt.Sprintf("%s may change state (its annotations, or its name without them) and every run called it: "+
					"proposed as expected and allowed, not restricted; review that the agent should change state here", quote(tool)))
			} else {
				d.notes = append(d.notes, fmt.Sprintf("%s may change state (its annotations, or its name without them) and %d of %d runs called it: "+
					"allowed, not restricted; review whether the agent should", quote(tool), inRuns[tool], len(cas.Runs)))
			}
		}
		if inRuns[tool] == len(cas.Runs) {
			d.classes = append(d.classes, tool)
		} else {
			d.sometimes = append(d.sometimes, tool)
		}
	}
	d.calls, d.steps = sameSteps(cas)
	d.arguments = schemasFor(cas, order, d)
	if len(d.sometimes) > 0 {
		d.notes = append(d.notes, fmt.Sprintf("%s called in some runs only: left out of the classes", quoteList(d.sometimes)))
	}
	d.facts = commonFacts(responses)
	d.minF1 = minF1(cas, d.classes)
	if len(cas.Runs) == 0 {
		d.notes = append(d.notes, "the cassette has no runs: nothing to propose from")
	}
	unclassed(d, len(order) > 0)
	return d
}

// unclassed marks and notes, loudly, a draft with runs but no selection
// class: its test would pass whatever tools the agent calls. The usual
// cause is a run that called nothing beside runs that called the tools
// (an empty run a recording proxy wrote for a client's probe), or a
// recording read without its calls.
func unclassed(d *draft, called bool) {
	if d.runs == 0 || len(d.classes) > 0 || called && len(d.sometimes) == 0 {
		// No runs, classes, or only destructive tools called, which the
		// restricted edge fails on (and a note says so).
		return
	}
	d.unclassed = true
	if len(d.sometimes) > 0 {
		d.notes = append(d.notes, fmt.Sprintf("NO SELECTION CLASS: every tool the runs called (%s) was called in some runs only, "+
			"so tool_selection checks nothing and the test passes whatever tools the agent calls; "+
			"a run that called nothing is the usual cause: drop it from the recording, or write the classes by hand", quoteList(d.sometimes)))
		return
	}
	d.notes = append(d.notes, "NO SELECTION CLASS: no run called a tool, so tool_selection checks nothing and the test "+
		"passes whatever tools the agent calls; `mcptest validate` on the recording says what was read of it")
}

// minF1 is the lowest selection F1 of a run on one class per tool: a floor
// every run meets. The suite's F1 pools the runs (a mediant of theirs), so
// it meets it too.
func minF1(cas *cassette.Cassette, tools []string) *int64 {
	if len(tools) == 0 {
		return nil
	}
	classes := make([]gate.Class, len(tools))
	for i, t := range tools {
		classes[i] = gate.Class{Name: t, Members: []string{t}}
	}
	var low *int64
	for i := range cas.Runs {
		r := gate.ScoreSelection(classes, &cas.Runs[i])
		f1 := gate.Scores(r.TP, r.FP, r.FN).F1
		if low == nil || f1 < *low {
			low = &f1
		}
	}
	return low
}

// maxSteps bounds the strict trajectory a draft proposes.
const maxSteps = 20

// sameSteps counts the calls of the runs and returns, when every run made
// the same calls in the same order (at most maxSteps, at least one), their
// members, for a strict trajectory: a run that reorders them, drops one or
// adds one then fails.
func sameSteps(cas *cassette.Cassette) (int, []string) {
	var first []string
	calls := 0
	for i := range cas.Runs {
		var steps []string
		for _, c := range cas.Runs[i].Calls() {
			steps = append(steps, member(c.Server, c.Tool))
		}
		calls += len(steps)
		if i == 0 {
			first = steps
		} else if !slices.Equal(first, steps) {
			first = nil
		}
	}
	if len(first) == 0 || len(first) > maxSteps || slices.Contains(first, "") {
		return calls, nil
	}
	return calls, first
}

// schemasFor reports whether the recording's catalog gives an input
// schema for every tool of called (members): then arguments: {} checks
// each call's arguments against it. A recording without them gets a note
// naming the catalog to give the block.
func schemasFor(cas *cassette.Cassette, called []string, d *draft) bool {
	if len(called) == 0 {
		return false
	}
	schemas := map[string]bool{}
	for _, sc := range cas.Catalog {
		for _, t := range sc.Tools {
			d.recorded = append(d.recorded, t.Name)
			if t.HasInputSchema() {
				schemas[member(sc.Server, t.Name)] = true
				schemas[t.Name] = true
			}
		}
	}
	sort.Strings(d.recorded)
	for _, tool := range called {
		if !d.resolves(tool, d.recorded, schemas) {
			d.lack = append(d.lack, tool)
		}
	}
	return len(d.lack) == 0
}

// resolves reports whether the arguments: gate finds a schema for the
// called tool (a member) among names, those of them with a schema in
// schemas: its exact name, else the one name it resolves to
// (cassette.ResolveTool: a framework's server prefix, everything_get-sum,
// or sanitized name, get_sum). A name two tools could be is noted.
func (d *draft) resolves(tool string, names []string, schemas map[string]bool) bool {
	name := d.toolOf[tool]
	if name == "" {
		name = tool
	}
	if schemas[tool] || schemas[name] {
		return true
	}
	to, ambiguous := cassette.ResolveTool(names, name)
	if ambiguous != nil && !d.ambiguous[name] {
		if d.ambiguous == nil {
			d.ambiguous = map[string]bool{}
		}
		d.ambiguous[name] = true
		d.notes = append(d.notes, fmt.Sprintf("%s could be any of the catalog's tools %s, so the arguments: check does not check its calls",
			quote(name), quoteList(ambiguous)))
	}
	return to != "" && to != name && schemas[to]
}

// argCatalog is the catalog of Options.Catalog: its path relative to the
// suite and the names of the tools it gives a schema; nil for none.
type argCatalog struct {
	rel   string
	tools map[string]bool
}

// readCatalog reads the catalog file at path (as given, relative to the
// working directory) for a suite in dir; "" is none.
func readCatalog(dir, path string) (*argCatalog, error) {
	if path == "" {
		return nil, nil
	}
	cat, err := live.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &argCatalog{rel: relativeTo(dir, path), tools: map[string]bool{}}
	for _, t := range cat.RawTools() {
		if name, _ := t["name"].(string); name != "" && t["inputSchema"] != nil {
			c.tools[name] = true
		}
	}
	return c, nil
}

// apply decides a draft's arguments: block where its recording lacks
// schemas: against the catalog when it names every tool lacking one (the
// gate reads the block's catalog: for a tool the recording has no schema
// of), else a note naming the tools, and the catalog to give.
func (c *argCatalog) apply(d *draft) {
	if d.arguments || len(d.lack) == 0 {
		return
	}
	if c == nil {
		d.notes = append(d.notes, fmt.Sprintf("the recording carries no input schema for %s, so no arguments: check is proposed: "+
			"save the servers' tools/list (`mcptest tools --format json -- SERVER COMMAND > catalog.json`) and draft again with "+
			"`--catalog catalog.json`, or add `arguments: { catalog: catalog.json }`, to check every call's arguments against it", quoteList(d.lack)))
		return
	}
	// The gate resolves a called name among the recording's tools and
	// the catalog's together.
	names := slices.Clone(d.recorded)
	for name := range c.tools {
		names = append(names, name)
	}
	sort.Strings(names)
	var missing []string
	for _, tool := range d.lack {
		if !d.resolves(tool, names, c.tools) {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		d.notes = append(d.notes, fmt.Sprintf("neither the recording nor the catalog %s gives an input schema for %s "+
			"(the framework may name the server's tools its own way), so no arguments: check is proposed", quote(c.rel), quoteList(missing)))
		return
	}
	d.arguments, d.argCatalog = true, c.rel
}

func finalResponse(r *cassette.Run) string {
	for i := len(r.Turns) - 1; i >= 0; i-- {
		if r.Turns[i].FinalResponse != "" {
			return r.Turns[i].FinalResponse
		}
	}
	return ""
}

// edges splits the recorded catalog: tools that may change state
// (gate.MayWrite, the rule generate suite holds tests back by) are
// restricted, the others allowed; both sorted.
func edges(cas *cassette.Cassette) (allowed, restricted []string) {
	seen := map[string]bool{}
	for _, sc := range cas.Catalog {
		for _, t := range sc.Tools {
			if seen[t.Name] || t.Name == "" {
				continue
			}
			seen[t.Name] = true
			if gate.MayWrite(t.Name, t.Member("annotations").Value()) {
				restricted = append(restricted, member(sc.Server, t.Name))
			} else {
				allowed = append(allowed, member(sc.Server, t.Name))
			}
		}
	}
	sort.Strings(allowed)
	sort.Strings(restricted)
	return allowed, restricted
}

// member names a server's tool as a class or edge member: its bare name,
// which matches the tool on any server, unless the name holds a dot, which
// a member reads as "server.tool": then server.tool when the server's own
// name has no dot.
func member(server, tool string) string {
	if server != "" && strings.Contains(tool, ".") && !strings.Contains(server, ".") {
		return server + "." + tool
	}
	return tool
}

// fact is a word a final response states that a later run could get wrong:
// a number (4.2M, 12%, 2026-11-20) or a code with a digit or in capitals
// (HAT083, ZFA04Y).
var fact = regexp.MustCompile(`[A-Z0-9][A-Za-z0-9]*(?:[.,:/-][A-Za-z0-9]+)*%?`)

// commonFacts are the facts every response states, in the first
// response's order, at most maxFacts of them. They are read from the first
// response with its secrets masked (package redact), so a key or token a
// response repeats is never copied into the suite.
func commonFacts(responses []string) []string {
	if len(responses) == 0 || responses[0] == "" {
		return nil
	}
	var out []string
	for _, f := range fact.FindAllString(redact.String(responses[0]), -1) {
		if !strings.ContainsAny(f, "0123456789") && strings.ToUpper(f) != f || len(f) < 2 || slices.Contains(out, f) || "["+f+"]" == redact.Mask {
			continue
		}
		all := true
		for _, r := range responses[1:] {
			all = all && strings.Contains(r, f)
		}
		if all {
			out = append(out, f)
		}
		if len(out) == maxFacts {
			break
		}
	}
	return out
}

// selfCheck runs the proposal on the recordings it came from: every test
// passes on them, by construction, but for one whose runs hold no call,
// which is inconclusive (no_calls in the engine). Anything else is a
// defect of mcptest, an error naming the test and what failed.
func selfCheck(suitePath, suite string, drafts []*draft) error {
	s, err := engine.ParseSuite(suitePath, []byte(suite))
	if err != nil {
		return fmt.Errorf("the proposed suite does not load (a defect of mcptest): %w", err)
	}
	env, err := engine.Run(s, engine.Options{Version: "propose"})
	if err != nil {
		return err
	}
	calls := map[string]int{}
	for _, d := range drafts {
		calls[d.name] = d.calls
	}
	for _, c := range env.Cases {
		if c.Verdict == report.Pass || c.Verdict == report.Inconclusive && calls[c.Name] == 0 || c.Runs == 0 {
			// A test of no runs fails, and says so (renderCase).
			continue
		}
		var why []string
		for _, a := range c.Assertions {
			if !a.Passed {
				why = append(why, a.Message)
			}
		}
		for _, f := range c.Findings {
			if f.Level == "error" {
				why = append(why, f.Message)
			}
		}
		return fmt.Errorf("the proposed test %q is %s on its own recordings (a defect of mcptest): %s", c.Name, c.Verdict, strings.Join(why, "; "))
	}
	return nil
}

// measured is what the draft suite measured on its recordings, per test.
type measured struct {
	passRate *float64
	// invalid is arguments.invalid, the recorded calls whose arguments
	// break their tool's schema; nil when the draft checks none.
	invalid *float64
}

// measure runs the draft suite on its recordings.
func measure(suitePath, suite string) (map[string]measured, error) {
	s, err := engine.ParseSuite(suitePath, []byte(suite))
	if err != nil {
		return nil, fmt.Errorf("the proposed suite does not load (a defect of mcptest): %w", err)
	}
	env, err := engine.Run(s, engine.Options{Version: "propose"})
	if err != nil {
		return nil, err
	}
	out := map[string]measured{}
	for _, c := range env.Cases {
		out[c.Name] = measure1(c)
	}
	return out, nil
}

func measure1(c *report.CaseResult) measured {
	var m measured
	if v, ok := c.Targets["reliability.pass_rate"]; ok {
		m.passRate = &v
	}
	if v, ok := c.Targets["arguments.invalid"]; ok {
		m.invalid = &v
	}
	return m
}

// render writes the suite; figures (nil in the draft) set the floors.
func render(drafts []*draft, figures map[string]measured) string {
	var b strings.Builder
	b.WriteString(schema.Modeline() + "#\n")
	b.WriteString("# Proposed by `mcptest generate agent-suite` from recordings. Every line says what\n")
	b.WriteString("# the recorded runs did, not what the agent should do: review each one.\n")
	b.WriteString("# The floors are the values measured on these recordings (review: raise or relax).\n\n")
	b.WriteString("agents:\n")
	for i, d := range drafts {
		if i > 0 {
			b.WriteString("\n")
		}
		renderCase(&b, d, figures[d.name])
	}
	return b.String()
}

func renderCase(b *strings.Builder, d *draft, m measured) {
	fmt.Fprintf(b, "  - name: %s\n", quote(d.name))
	if len(d.sources) == 0 {
		fmt.Fprintf(b, "    cassette: %s\n", quote(d.cassette))
	}
	if d.runs == 0 {
		b.WriteString("    # review: the recording holds no runs, so this test fails (nothing to gate) until it does\n")
	}
	if len(d.sources) > 0 {
		b.WriteString("    # review: the runs of these recordings, joined by order; what each gives\n    sources:\n")
		for _, src := range d.sources {
			fmt.Fprintf(b, "      - cassette: %s\n        use: [%s]\n", quote(src.cassette), strings.Join(src.use, ", "))
		}
	}
	if d.unclassed {
		b.WriteString("    # REVIEW: NO SELECTION CLASS. The recorded runs agree on no tool, so this test passes\n" +
			"    # whatever tools the agent calls. Write the classes by hand, or record again (see the notes).\n")
	}
	if d.runs > 1 {
		fmt.Fprintf(b, "    runs: %d\n", d.runs)
	}
	var expect []string
	for _, tool := range d.classes {
		expect = append(expect, fmt.Sprintf("tool_names: { contains: %s }", quote(d.toolOf[tool])))
	}
	for _, f := range d.facts {
		expect = append(expect, fmt.Sprintf("final_response: { contains: %s }", quote(f)))
	}
	if d.maxTokens != nil {
		expect = append(expect, fmt.Sprintf("tokens.total: { \"<=\": %d }", *d.maxTokens))
	}
	if len(expect) > 0 {
		b.WriteString("    # review: per run, what every recorded run did and said\n    expect:\n")
		for _, e := range expect {
			fmt.Fprintf(b, "      - %s\n", e)
		}
	}
	if d.runs > 1 && m.passRate != nil {
		fmt.Fprintf(b, "    # review: the share of recorded runs that passed the checks above\n    reliability:\n      min_pass_rate: %s\n", number(*m.passRate))
	}
	if len(d.classes) > 0 {
		b.WriteString("    # review: one class per tool every run called")
		if len(d.sometimes) > 0 {
			fmt.Fprintf(b, "; called in some runs only: %s", quoteList(d.sometimes))
		}
		b.WriteString("\n    equal_function_sets:\n      classes:\n")
		for _, tool := range d.classes {
			fmt.Fprintf(b, "        - name: %s\n          members: [%s]\n", quote(tool), quote(tool))
		}
		if d.minF1 != nil {
			fmt.Fprintf(b, "      # review: the lowest F1 of a recorded run\n      expect:\n        - tool_selection.f1: { \">=\": %d }\n", *d.minF1)
		}
	}
	renderChecks(b, d, m)
	if len(d.allowed)+len(d.restricted) > 0 {
		b.WriteString("    # review: the recorded catalog; tools that may change state and no run called are restricted\n    tool_edges:\n")
		if len(d.allowed) > 0 {
			fmt.Fprintf(b, "      allowed: [%s]\n", quoteJoin(d.allowed))
		}
		if len(d.restricted) > 0 {
			fmt.Fprintf(b, "      restricted: [%s]\n", quoteJoin(d.restricted))
		}
	}
}

// renderChecks writes a test's trajectory: and arguments: blocks.
func renderChecks(b *strings.Builder, d *draft, m measured) {
	if len(d.steps) > 0 {
		b.WriteString("    # review: every recorded run made these calls, in this order\n    trajectory:\n      match: strict\n      steps:\n")
		for _, st := range d.steps {
			fmt.Fprintf(b, "        - { tool: %s }\n", quote(st))
		}
	}
	switch {
	case d.arguments && m.invalid != nil && *m.invalid > 0:
		// The recorded runs already send invalid arguments: the floor is
		// what they send, for a person to tighten.
		fmt.Fprintf(b, "    # REVIEW: %s of the recorded runs break their tool's schema; the floor is that count\n    arguments:\n", number(*m.invalid))
		if d.argCatalog != "" {
			fmt.Fprintf(b, "      catalog: %s\n", quote(d.argCatalog))
		}
		fmt.Fprintf(b, "      expect:\n        - arguments.invalid: { \"<=\": %s }\n", number(*m.invalid))
	case d.arguments && d.argCatalog != "":
		fmt.Fprintf(b, "    # review: every call's arguments against the input schema of its tool in the catalog\n    arguments: { catalog: %s }\n", quote(d.argCatalog))
	case d.arguments:
		b.WriteString("    # review: every call's arguments against the recorded input schema of its tool\n    arguments: {}\n")
	}
}

// quote writes s as a YAML double-quoted scalar (JSON's escapes are
// YAML's), every character that does not print (DEL, C1 controls such as
// NEL, which YAML reads as a line break, zero-width and bidi characters)
// escaped as \uXXXX or \UXXXXXXXX: recorded names and text never break out
// of their line, and read back as they were recorded.
func quote(s string) string {
	b, _ := json.Marshal(s)
	var out strings.Builder
	for _, r := range string(b) {
		switch {
		case unicode.IsPrint(r) || r == ' ':
			out.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(&out, `\U%08x`, r)
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return out.String()
}

func quoteJoin(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = quote(x)
	}
	return strings.Join(q, ", ")
}

func quoteList(xs []string) string { return quoteJoin(xs) }

func number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
