package engine

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/report"
)

// ArgumentsBlock is an arguments: block: every recorded call's arguments
// held against the inputSchema of the tool it called.
type ArgumentsBlock struct {
	Pos diag.Pos
	// Catalog is the block's catalog: as written, "" for none.
	Catalog string
	Config  gate.ArgumentsConfig
}

// Key returns "arguments".
func (*ArgumentsBlock) Key() string { return "arguments" }

// readArguments reads the block and its catalog: file, relative to the
// suite's directory; a catalog that cannot be read is a suite error at
// the key.
func readArguments(b *builder, raw rawBlock) Block {
	a := &ArgumentsBlock{Pos: raw.pos}
	a.Config.Strict, _ = raw.m["strict"].(bool)
	a.Catalog, _ = raw.m["catalog"].(string)
	if a.Catalog == "" {
		return a
	}
	ptr := raw.ptr + "/catalog"
	cat, err := live.ReadFile(filepath.Join(b.suite.Dir, filepath.FromSlash(a.Catalog)))
	var l diag.List
	switch {
	case errors.As(err, &l):
		b.errs = append(b.errs, l...)
	case errors.Is(err, fs.ErrNotExist):
		b.errorf(ptr, b.doc.At(ptr), "catalog %q not found: expected a tools/list file relative to the suite's directory %q", a.Catalog, filepath.ToSlash(b.suite.Dir))
	case err != nil:
		b.errorf(ptr, b.doc.At(ptr), "catalog %q: %v", a.Catalog, err)
	default:
		for _, t := range cat.RawTools() {
			name, _ := t["name"].(string)
			a.Config.Catalog = append(a.Config.Catalog, cassette.SchemaTool(name, t["inputSchema"]))
		}
	}
	return a
}

func (a *ArgumentsBlock) newGate(*Case) caseGate {
	cfg := a.Config
	// A run's evidence shows its first maxEvidenceCalls calls: the checks
	// of later calls would be held for nothing (markArguments).
	cfg.Keep = maxEvidenceCalls
	return &argumentsGate{args: gate.NewArguments(cfg)}
}

// argumentsGate validates arguments (gate.Arguments) and places each
// violation in its cassette: file:line:col of the offending value in an
// mcptest cassette, the file alone in a transcript.
type argumentsGate struct {
	gateDefaults
	args *gate.Arguments
	// n numbers the runs of the case; inCas the runs of the cassette.
	n, inCas int
	cas      *cassette.Cassette
	// shared is the bytes of the file being streamed, when the runner
	// hands them (agentRun.fileBytes); else data is the cassette's bytes,
	// read again on its first violation.
	shared []byte
	data   []byte
	loaded bool
	last   gate.ArgumentsRun
	// loc places the violations in the bytes.
	loc argLocator
}

func (g *argumentsGate) addCassette(cas *cassette.Cassette) {
	g.args.AddCatalog(cas.Catalog)
	g.cas, g.inCas, g.data, g.loaded = cas, 0, nil, false
	g.loc.reset(nil)
}

func (g *argumentsGate) add(cas *cassette.Cassette, r *cassette.Run) { g.addScored(cas, r, nil) }

// score checks the run's calls against their schemas (runScorer), on the
// worker that decoded the run; nil, for a run prepared in the fold (a
// file streamed: the fold checks each call as it folds it, holding no
// verdicts a call).
func (g *argumentsGate) score(cas *cassette.Cassette, r *cassette.Run) any {
	return g.args.Score(cas.Catalog, r)
}

// addScored folds a run with its verdicts scored ahead, or none (s nil).
func (g *argumentsGate) addScored(_ *cassette.Cassette, r *cassette.Run, s any) {
	g.n++
	g.inCas++
	sc, _ := s.(*gate.ArgumentsScore)
	g.last = g.args.Fold(g.n, r, sc, g.locator(g.inCas-1))
}

// locator places a violation of run index ri (0-based) of the cassette.
func (g *argumentsGate) locator(ri int) gate.Locator {
	return func(turn, call int, ptr string) *diag.Pos {
		cas := g.cas
		if cas == nil || cas.Path == "" {
			return nil
		}
		pos := diag.Pos{File: cas.Path}
		if cas.Format != cassette.FormatV1 {
			return &pos
		}
		data := g.shared
		if data == nil {
			if !g.loaded {
				g.loaded = true
				g.data, _ = cassette.Load(cas.Path, cas.Path)
			}
			data = g.data
		}
		if !g.loc.holds(data) {
			g.loc.reset(data)
		}
		rel := "/turns/" + strconv.Itoa(turn-1) + "/calls/" + strconv.Itoa(call-1) + "/arguments" + ptr
		if p, ok := g.loc.locate(cas.Path, ri, rel); ok {
			pos = p
		}
		if g.args != nil && g.args.Room() <= 1 {
			// No violation is placed again: the bytes, a second copy of
			// the cassette beside the runner's, are let go (and read
			// again should a warning make room for one more).
			g.data, g.loaded = nil, false
		}
		return &pos
	}
}

// runValue gives arguments.invalid: the run's calls with a violation.
func (g *argumentsGate) runValue(string) (any, bool) { return float64(g.last.Invalid), true }

func (g *argumentsGate) result(res *report.CaseResult) { addGate(res, g.args.Result()) }

// markArguments marks the calls of a run's evidence whose arguments break
// their schema, with the violations, and gives the run its count; a case
// without an arguments: block is left as it is.
func markArguments(ev *report.RunEvidence, gates []caseGate) {
	for _, g := range gates {
		ag, ok := g.(*argumentsGate)
		if !ok {
			continue
		}
		n := ag.last.Invalid
		ev.ArgumentsInvalid = &n
		for _, cc := range ag.last.Calls {
			if len(cc.Violations) == 0 || cc.Turn > len(ev.Turns) || cc.Call > len(ev.Turns[cc.Turn-1].Calls) {
				continue
			}
			ce := &ev.Turns[cc.Turn-1].Calls[cc.Call-1]
			ce.Marks = append(ce.Marks, report.MarkInvalidArguments)
			for i, v := range cc.Violations {
				if i == maxCallViolations {
					ce.Violations = append(ce.Violations, "and "+strconv.Itoa(len(cc.Violations)-i)+" more")
					break
				}
				s, _ := excerpt(redact.String(v.String()))
				ce.Violations = append(ce.Violations, s)
			}
		}
	}
}

// maxCallViolations bounds the violations a call's evidence lists.
const maxCallViolations = 5
