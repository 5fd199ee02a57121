package engine

import (
	"fmt"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// Scenarios are the suite's scenarios, or those named exactly by names
// (`mcptest scenario run --name`). A suite without scenarios, or a name
// that is no scenario, is a diag.List, with a did-you-mean.
func (s *Suite) Scenarios(names []string) ([]*Case, error) {
	var all []*Case
	var known []string
	for _, c := range s.Cases {
		if c.Kind == report.KindScenario {
			all = append(all, c)
			known = append(known, c.Name)
		}
	}
	if len(all) == 0 {
		return nil, diag.List{{Pos: diag.Pos{File: s.Path}, Kind: "suite", Message: "the suite declares no `scenarios:`, so there is nothing to replay"}}
	}
	if len(names) == 0 {
		return all, nil
	}
	keep := map[string]bool{}
	for _, n := range names {
		found := false
		for _, c := range all {
			if c.Name == n {
				found = true
			}
		}
		if !found {
			e := &diag.Error{Pos: diag.Pos{File: "--name"}, Kind: "flag", Message: fmt.Sprintf("no scenario is named %q", n)}
			if sug := diag.Suggest(n, known); sug != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", sug)
			}
			return nil, diag.List{e}
		}
		keep[n] = true
	}
	var out []*Case
	for _, c := range all {
		if keep[c.Name] {
			out = append(out, c)
		}
	}
	return out, nil
}

// RunScenarios replays the scenarios of the suite at path (those named
// exactly by names, else all of them) against their worlds: `mcptest
// scenario run`.
func RunScenarios(path string, names []string, opt Options) (*report.Envelope, error) {
	suite, err := LoadSuite(path)
	if err != nil {
		return nil, err
	}
	scenarios, err := suite.Scenarios(names)
	if err != nil {
		return nil, err
	}
	only := *suite
	only.Cases = scenarios
	return Run(&only, opt)
}
