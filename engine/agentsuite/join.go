package agentsuite

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
)

// ProposeJoined proposes one agent test over several recordings of the
// same runs, for a suite to be written at suitePath: the recording calls
// gives the calls, and each recording of join, in turn, the tokens, model
// and answer the recordings before it lack (a test of sources:, joined
// by order). The figures are those of the joined runs. A join recording
// of another run count, or that gives nothing, is an error naming it.
func ProposeJoined(suitePath, calls string, join []string) (*Proposal, error) {
	dir := filepath.Dir(suitePath)
	if suitePath == "" {
		suitePath, dir = "agent-suite.yml", "."
	}
	joined, err := readAll(calls)
	if err != nil {
		return nil, err
	}
	sources := []draftSource{{cassette: relativeTo(dir, calls), use: []string{"calls"}}}
	lack := lacking(joined)
	for _, path := range join {
		cas, err := readAll(path)
		if err != nil {
			return nil, err
		}
		if len(cas.Runs) != len(joined.Runs) {
			return nil, &diag.Error{Pos: diag.Pos{File: path}, Kind: "cassette", Message: fmt.Sprintf(
				"it holds %s and %s (--from) holds %s: recordings are joined run by run, in order, so each must hold the same runs",
				runs(len(cas.Runs)), calls, runs(len(joined.Runs)))}
		}
		var use []string
		for _, what := range lack {
			if gives(cas, what) {
				use = append(use, what)
				give(joined, cas, what)
			}
		}
		if len(use) == 0 {
			return nil, &diag.Error{Pos: diag.Pos{File: path}, Kind: "cassette", Message: fmt.Sprintf(
				"it gives nothing the recordings before it lack (%s): drop it, or join a recording that has them", strings.Join(lack, ", "))}
		}
		lack = slices.DeleteFunc(lack, func(w string) bool { return slices.Contains(use, w) })
		sources = append(sources, draftSource{cassette: relativeTo(dir, path), use: use})
	}
	d := propose(joined, sources[0].cassette)
	(*argCatalog)(nil).apply(d)
	d.sources = sources
	return proposal(suitePath, []*draft{d})
}

func runs(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// lacking lists what a recording does not have of what a joined source
// may give: tokens (a run without), the model, the answer (no run has one).
func lacking(cas *cassette.Cassette) []string {
	var out []string
	for _, what := range []string{"tokens", "model", "answer"} {
		if !gives(cas, what) {
			out = append(out, what)
		}
	}
	return out
}

// gives reports whether a recording has what: tokens in every run, a
// model, an answer in some run.
func gives(cas *cassette.Cassette, what string) bool {
	switch what {
	case "tokens":
		return len(cas.Runs) > 0 && !slices.ContainsFunc(cas.Runs, func(r cassette.Run) bool { return r.Tokens == nil })
	case "model":
		return cas.Model != ""
	}
	return slices.ContainsFunc(cas.Runs, func(r cassette.Run) bool { return finalResponse(&r) != "" })
}

// give copies what from the runs of from to those of to, run by run, as
// the runner joins them (engine/join.go).
func give(to, from *cassette.Cassette, what string) {
	if what == "model" {
		to.Model, to.Provider = from.Model, from.Provider
		return
	}
	for i := range to.Runs {
		r, src := &to.Runs[i], &from.Runs[i]
		if what == "tokens" {
			r.Tokens, r.CostMicros = src.Tokens, src.CostMicros
			continue
		}
		turns := make([]cassette.Turn, max(len(r.Turns), len(src.Turns)))
		copy(turns, r.Turns)
		for k := range turns {
			turns[k].FinalResponse = ""
			if k < len(src.Turns) {
				turns[k].FinalResponse = src.Turns[k].FinalResponse
			}
		}
		r.Turns = turns
	}
}
