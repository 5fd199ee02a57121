package gate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/stats"
	"github.com/mcptest/mcptest/report"
)

// PassKConfig is a tool_selection: block: the tool every run should reach
// for, the fraction of runs that must, and an optional per-run token cap.
type PassKConfig struct {
	ExpectedTool string
	// MinRate is min_selection_rate, a fraction from 0 to 1.
	MinRate float64
	// MaxTokens is max_total_tokens; nil means no token budget.
	MaxTokens *int64
}

// ScorePassK scores one run against the floor. The row names the first
// maxNamed tools the run called, each once, as a gate's findings do: a
// run that calls a new tool with every call names no more.
func ScorePassK(cfg PassKConfig, run *cassette.Run) report.PassKRun {
	r := report.PassKRun{Called: []string{}, WithinBudget: true}
	for i := range run.Turns {
		for j := range run.Turns[i].Calls {
			c := &run.Turns[i].Calls[j]
			if MatchID(cfg.ExpectedTool, c.Server, c.Tool) {
				r.Selected = true
			}
			if len(r.Called) < maxNamed && !containsString(r.Called, c.Tool) {
				r.Called = append(r.Called, c.Tool)
			}
		}
	}
	if run.Tokens != nil {
		t := run.Tokens.Total
		r.Tokens = &t
	}
	if cfg.MaxTokens != nil {
		r.WithinBudget = r.Tokens != nil && *r.Tokens <= *cfg.MaxTokens
	}
	r.PassK = r.Selected && r.WithinBudget
	return r
}

// PassK folds the runs of a test into the pass^k tool-selection floor:
// the selection rate, pass^k (selected AND within the token budget) and the
// token distribution. It keeps one small row per run, since the floor names
// the runs that missed and a median needs every value.
type PassK struct {
	cfg  PassKConfig
	rows []report.PassKRun
}

// NewPassK returns an empty accumulator.
func NewPassK(cfg PassKConfig) *PassK { return &PassK{cfg: cfg} }

// Add scores one run, numbered run within the group of model.
func (p *PassK) Add(run int, model string, r *cassette.Run) report.PassKRun {
	return p.Fold(run, model, p.Score(r))
}

// Score is what run r gives its row, read from the run and the
// configuration alone: safe for several runs at once, in any order.
func (p *PassK) Score(r *cassette.Run) report.PassKRun { return ScorePassK(p.cfg, r) }

// Fold adds the row a run scored (Score) as run number run of model, in
// run order, and returns it.
func (p *PassK) Fold(run int, model string, row report.PassKRun) report.PassKRun {
	row.Run, row.Model = run, model
	p.rows = append(p.rows, row)
	return row
}

// Rows returns the per-run rows in the order they were added.
func (p *PassK) Rows() []report.PassKRun { return p.rows }

// PassKSummary is the aggregation over a set of runs.
type PassKSummary struct {
	Runs, Selected, PassK, OverBudget, TokensRecorded int64
	// TokensMedian and TokensMax are over the runs that recorded tokens;
	// valid when TokensRecorded > 0. An even count's median is the mean of
	// the two middle values rounded half up.
	TokensMedian, TokensMax int64
	// Worst is the largest token total of a run over budget.
	Worst int64
}

// Summarize aggregates rows.
func Summarize(cfg PassKConfig, rows []report.PassKRun) PassKSummary {
	var s PassKSummary
	var tokens []int64
	for _, r := range rows {
		s.Runs++
		if r.Selected {
			s.Selected++
		}
		if r.PassK {
			s.PassK++
		}
		if !r.WithinBudget {
			s.OverBudget++
			if r.Tokens != nil {
				s.Worst = max(s.Worst, *r.Tokens)
			}
		}
		if r.Tokens != nil {
			tokens = append(tokens, *r.Tokens)
		}
	}
	s.TokensRecorded = int64(len(tokens))
	if len(tokens) > 0 {
		sort.Slice(tokens, func(i, j int) bool { return tokens[i] < tokens[j] })
		m := len(tokens) / 2
		if len(tokens)%2 == 1 {
			s.TokensMedian = tokens[m]
		} else {
			s.TokensMedian = (tokens[m-1] + tokens[m] + 1) / 2
		}
		s.TokensMax = tokens[len(tokens)-1]
	}
	return s
}

// Result reports tool_selection.selection_rate and tool_selection.pass_k
// (integer percents), tool_selection.tokens_median and .tokens_max (absent
// when no run recorded tokens), over every run added.
func (p *PassK) Result() Result {
	s := Summarize(p.cfg, p.rows)
	res := Result{
		Targets: map[string]float64{
			"tool_selection.selection_rate": float64(stats.Percent(s.Selected, s.Runs)),
			"tool_selection.pass_k":         float64(stats.Percent(s.PassK, s.Runs)),
		},
		Counts: map[string]int64{
			"tool_selection.runs":            s.Runs,
			"tool_selection.selected":        s.Selected,
			"tool_selection.pass_k_runs":     s.PassK,
			"tool_selection.over_budget":     s.OverBudget,
			"tool_selection.tokens_recorded": s.TokensRecorded,
		},
	}
	if s.TokensRecorded > 0 {
		res.Targets["tool_selection.tokens_median"] = float64(s.TokensMedian)
		res.Targets["tool_selection.tokens_max"] = float64(s.TokensMax)
	}
	return res
}

// FloorOutcome is a floor's verdict with the lines that explain it.
type FloorOutcome struct {
	Passed bool
	// Summary is the cost-vs-accuracy line without its verdict prefix:
	// "weather selection: selection 9/10 (90%), pass^k 90%, tokens 1520
	// median / 1840 max".
	Summary string
	// Breaches are the FLOOR lines, each naming a failed condition, then
	// one line per run that missed ("run 7: did not select ..."), in order,
	// for the first maxNamed of them and one that counts the rest.
	Breaches []string
}

// MeetsRate reports whether selected/runs >= rate, decided on the rate's
// value in millionths so 0.7 of 10 runs is 7 runs, not 7.000000000000001.
func MeetsRate(selected, runs int64, rate float64) bool {
	if runs == 0 {
		return rate <= 0
	}
	return selected*1_000_000 >= int64(math.Round(rate*1_000_000))*runs
}

// Floor decides the floor for the rows of one (agent, model) pair, named
// name. It passes when the selection rate meets MinRate and every run stayed
// within the token budget (when set): one run over the cap fails the floor
// even at a 100% selection rate.
func (p *PassK) Floor(name string, rows []report.PassKRun) FloorOutcome {
	cfg := p.cfg
	s := Summarize(cfg, rows)
	tokens := "tokens not recorded"
	if s.TokensRecorded > 0 {
		tokens = fmt.Sprintf("tokens %d median / %d max", s.TokensMedian, s.TokensMax)
	}
	out := FloorOutcome{Passed: true, Summary: fmt.Sprintf("%s: selection %d/%d (%d%%), pass^k %d%%, %s",
		name, s.Selected, s.Runs, stats.Percent(s.Selected, s.Runs), stats.Percent(s.PassK, s.Runs), tokens)}
	if !MeetsRate(s.Selected, s.Runs, cfg.MinRate) {
		out.Passed = false
		out.Breaches = append(out.Breaches, fmt.Sprintf("FLOOR %s: selection rate %d%% is below the %s%% floor (%d of %d runs selected `%s`)",
			name, stats.Percent(s.Selected, s.Runs), ratePercent(cfg.MinRate), s.Selected, s.Runs, cfg.ExpectedTool))
	}
	if cfg.MaxTokens != nil && s.OverBudget > 0 {
		out.Passed = false
		worst := ""
		if s.Worst > 0 {
			worst = fmt.Sprintf(" (worst run %d tokens)", s.Worst)
		}
		out.Breaches = append(out.Breaches, fmt.Sprintf("FLOOR %s: %d of %d runs exceeded the %d-token budget%s",
			name, s.OverBudget, s.Runs, *cfg.MaxTokens, worst))
	}
	if out.Passed {
		return out
	}
	missed := 0
	for _, r := range rows {
		if r.PassK {
			continue
		}
		if missed++; missed > maxNamed {
			continue
		}
		var why []string
		if !r.Selected {
			called := "called no tool"
			if len(r.Called) > 0 {
				called = "called " + strings.Join(r.Called, ", ")
			}
			why = append(why, fmt.Sprintf("did not select `%s`, %s", cfg.ExpectedTool, called))
		}
		if !r.WithinBudget {
			if r.Tokens == nil {
				why = append(why, "no token usage recorded, so the budget cannot be checked")
			} else {
				why = append(why, fmt.Sprintf("%d tokens, over budget", *r.Tokens))
			}
		}
		out.Breaches = append(out.Breaches, fmt.Sprintf("  run %d: %s", r.Run, strings.Join(why, "; ")))
	}
	if missed > maxNamed {
		out.Breaches = append(out.Breaches, fmt.Sprintf("  and %d more runs that missed, not listed", missed-maxNamed))
	}
	return out
}

// ratePercent renders a rate as a percent: 0.8 -> "80", 0.825 -> "82.5".
func ratePercent(rate float64) string {
	v := math.Round(rate*1_000_000) / 10_000
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
