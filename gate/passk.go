package gate

import (
	"fmt"
	"math"
	"slices"
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
// token distribution, for every model's runs and for all of them. Its
// memory does not follow the rows: it keeps the first
// report.MaxSelectionRows rows (the detail lists them), and for each model
// the counts, the first maxNamed rows that missed (the floor names them)
// and every recorded token total (a median needs every value: 8 bytes a
// run that recorded tokens).
type PassK struct {
	cfg    PassKConfig
	head   []report.PassKRun
	runs   int
	groups []*passKTally // one per model, in order of first appearance
	model  map[string]*passKTally
}

// NewPassK returns an empty accumulator.
func NewPassK(cfg PassKConfig) *PassK {
	return &PassK{cfg: cfg, model: map[string]*passKTally{}}
}

// Add scores one run of model: Fold of Score.
func (p *PassK) Add(model string, r *cassette.Run) report.PassKRun {
	return p.Fold(model, p.Score(r))
}

// Score is what run r gives its row, read from the run and the
// configuration alone: safe for several runs at once, in any order.
func (p *PassK) Score(r *cassette.Run) report.PassKRun { return ScorePassK(p.cfg, r) }

// Fold adds the row a run of model scored (Score), in run order, and
// returns it numbered: its Run is its place among model's runs, from 1.
func (p *PassK) Fold(model string, row report.PassKRun) report.PassKRun {
	g, ok := p.model[model]
	if !ok {
		g = &passKTally{model: model}
		p.groups = append(p.groups, g)
		p.model[model] = g
	}
	row.Run, row.Model = int(g.s.Runs)+1, model
	if len(p.head) < report.MaxSelectionRows {
		p.head = append(p.head, row)
	}
	p.runs++
	g.add(row)
	return row
}

// Head returns the rows of the first report.MaxSelectionRows runs, in the
// order they were added.
func (p *PassK) Head() []report.PassKRun { return p.head }

// Runs counts every run added.
func (p *PassK) Runs() int { return p.runs }

// Models names the models whose runs were added, in order of first
// appearance ("" for runs without one).
func (p *PassK) Models() []string {
	out := make([]string, len(p.groups))
	for i, g := range p.groups {
		out[i] = g.model
	}
	return out
}

// SummaryOf aggregates the runs of model (zero when it has none).
func (p *PassK) SummaryOf(model string) PassKSummary {
	if g, ok := p.model[model]; ok {
		return g.summary()
	}
	return PassKSummary{}
}

// passKTally is the fold of one group of rows: the counts, every recorded
// token total, and the first maxNamed rows that missed (not PassK) with
// the number of the rest.
type passKTally struct {
	model   string
	s       PassKSummary
	tokens  []int64
	missed  []report.PassKRun
	missedN int
}

func (t *passKTally) add(r report.PassKRun) {
	t.s.Runs++
	if r.Selected {
		t.s.Selected++
	}
	if r.PassK {
		t.s.PassK++
	} else if t.missedN++; len(t.missed) < maxNamed {
		t.missed = append(t.missed, r)
	}
	if !r.WithinBudget {
		t.s.OverBudget++
		if r.Tokens != nil {
			t.s.Worst = max(t.s.Worst, *r.Tokens)
		}
	}
	if r.Tokens != nil {
		t.tokens = append(t.tokens, *r.Tokens)
	}
}

// summary completes the counts with the token median and maximum.
func (t *passKTally) summary() PassKSummary {
	s := t.s
	s.TokensRecorded = int64(len(t.tokens))
	if len(t.tokens) > 0 {
		slices.Sort(t.tokens) // the order of the totals is not kept
		m := len(t.tokens) / 2
		if len(t.tokens)%2 == 1 {
			s.TokensMedian = t.tokens[m]
		} else {
			s.TokensMedian = (t.tokens[m-1] + t.tokens[m] + 1) / 2
		}
		s.TokensMax = t.tokens[len(t.tokens)-1]
	}
	return s
}

// merge adds the counts and token totals u folded, for Result over every
// model (the rows that missed are the floors', model by model).
func (t *passKTally) merge(u *passKTally) {
	t.s.Runs += u.s.Runs
	t.s.Selected += u.s.Selected
	t.s.PassK += u.s.PassK
	t.s.OverBudget += u.s.OverBudget
	t.s.Worst = max(t.s.Worst, u.s.Worst)
	t.tokens = append(t.tokens, u.tokens...)
}

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

// Result reports tool_selection.selection_rate and tool_selection.pass_k
// (integer percents), tool_selection.tokens_median and .tokens_max (absent
// when no run recorded tokens), over every run added.
func (p *PassK) Result() Result {
	all := &passKTally{}
	if len(p.groups) == 1 {
		all = p.groups[0] // one model: its totals, not a copy
	} else {
		for _, g := range p.groups {
			all.merge(g)
		}
	}
	s := all.summary()
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

// FloorOf decides the floor for the runs of model, one (agent, model)
// pair, named name. It passes when the selection rate meets MinRate and
// every run stayed within the token budget (when set): one run over the
// cap fails the floor even at a 100% selection rate.
func (p *PassK) FloorOf(name, model string) FloorOutcome {
	t, ok := p.model[model]
	if !ok {
		t = &passKTally{model: model}
	}
	cfg := p.cfg
	s := t.summary()
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
	for _, r := range t.missed {
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
	if more := t.missedN - len(t.missed); more > 0 {
		out.Breaches = append(out.Breaches, fmt.Sprintf("  and %d more runs that missed, not listed", more))
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
