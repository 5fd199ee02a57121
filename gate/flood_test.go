package gate

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

// TestTallyBoundedDrawn draws sequences of names (few and many distinct,
// repeated, added in counts) and holds a tally to its rule: it names the
// first maxNamed distinct names in first-seen order with their exact
// counts, counts the rest in more, and its sum is every count added;
// adding one tally to another (addTally) keeps the same sum.
func TestTallyBoundedDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 1))
	for range 300 {
		distinct := 1 + rng.IntN(4*maxNamed)
		var tl, merged tally
		var firstSeen []string
		counts := map[string]int{}
		total := 0
		for range rng.IntN(2000) {
			name := fmt.Sprintf("tool_%d", rng.IntN(distinct))
			k := 1 + rng.IntN(3)
			if counts[name] == 0 {
				firstSeen = append(firstSeen, name)
			}
			counts[name] += k
			total += k
			tl.addN(name, k)
		}
		want := firstSeen[:min(len(firstSeen), maxNamed)]
		if !slices.Equal(tl.order, want) {
			t.Fatalf("named %v, want the first %d seen %v", tl.order, maxNamed, want)
		}
		for _, name := range tl.order {
			if tl.n[name] != counts[name] {
				t.Fatalf("%s counted %d, want %d", name, tl.n[name], counts[name])
			}
		}
		if len(tl.n) != len(tl.order) || tl.sum() != total {
			t.Fatalf("%d counted under %d names, sum %d, want %d", len(tl.n), len(tl.order), tl.sum(), total)
		}
		merged.addTally(&tl)
		merged.addTally(&tl)
		if merged.sum() != 2*total || len(merged.order) > maxNamed {
			t.Fatalf("two tallies added: sum %d, want %d, %d names", merged.sum(), 2*total, len(merged.order))
		}
	}
}

// floodRun is one run whose calls each name a tool drawn from distinct
// names (a new name with nearly every call when distinct is large), with
// long names now and then, on one server or none.
func floodRun(rng *rand.Rand, calls, distinct int) cassette.Run {
	var r cassette.Run
	turn := cassette.Turn{}
	for range calls {
		name := fmt.Sprintf("t%d", rng.IntN(distinct))
		if rng.IntN(50) == 0 {
			name += strings.Repeat("x", rng.IntN(9000))
		}
		server := "s"
		if rng.IntN(4) == 0 {
			server = ""
		}
		turn.Calls = append(turn.Calls, cassette.Call{Server: server, Tool: name, Arguments: cassette.JSON(`{"q":1}`)})
	}
	r.Turns = []cassette.Turn{turn}
	return r
}

// TestGatesNameFloodsBounded feeds every gate that names the tools of a
// recording (selection F1, token efficiency, tool edges, arguments,
// budget) runs of drawn floods of tool names and
// holds what each says to a bound that does not grow with the calls: no
// more than maxNamed plus a few findings (its summary and the gate's own
// lines), and no finding of more than maxNamed names' worth of text.
func TestGatesNameFloodsBounded(t *testing.T) {
	// The bounds, written out (not the constants they follow from, so
	// that raising a constant fails here): 50 names, 50 violations of
	// arguments:, a few lines of each gate's own; 50 names of at most
	// 9,000 bytes in one line.
	const floodFindings, floodMessage = 104, 50*9100 + 1000
	rng := rand.New(rand.NewPCG(60, 2))
	classes := []Class{{Name: "a", Members: []string{"s.t0"}}, {Name: "b", Members: []string{"s.t1"}}}
	for i := range 12 {
		runs, calls, distinct := 1+rng.IntN(5), 500+rng.IntN(3000), 1+rng.IntN(20000)
		sel := NewSelectionBy(classes, Counting(rng.IntN(2)))
		te := NewTokenEfficiency(classes)
		edges := NewEdges(Edges{Allowed: []string{"s.t0", "s.t1"}, Restricted: []string{"s.t2"}})
		args := NewArguments(ArgumentsConfig{})
		one := int64(1)
		budget := NewBudget(Budget{MaxCalls: &one})
		var fp int64
		for run := range runs {
			r := floodRun(rng, calls, distinct)
			fp += sel.Add(&r).FP
			te.Add(&r)
			edges.Add(&r)
			budget.Add(&r)
			args.Add(run+1, &r, nil)
		}
		for name, res := range map[string]Result{"selection": sel.Result(), "tokens": te.Result(), "edges": edges.Result(), "arguments": args.Result(), "budget": budget.Result()} {
			if len(res.Findings) > floodFindings {
				t.Errorf("flood %d (%d runs of %d calls over %d names), %s: %d findings", i, runs, calls, distinct, name, len(res.Findings))
			}
			for _, f := range res.Findings {
				if len(f.Message) > floodMessage {
					t.Errorf("flood %d, %s: a finding of %d bytes", i, name, len(f.Message))
				}
			}
		}
		if got := sel.Result().Counts["tool_selection.fp"]; got != fp {
			t.Errorf("flood %d: tool_selection.fp %d, the runs' false positives %d", i, got, fp)
		}
	}
}

// orchestrationByScan is the orchestration rule as first written, each
// failed call looking forward for its recovery: the specification
// scoreOrchestration is held to.
func orchestrationByScan(classes []Class, calls []cassette.Call) OrchestrationRun {
	r := OrchestrationRun{Calls: int64(len(calls)), Classes: int64(len(classes))}
	reached := make([]bool, len(classes))
	sameClass := func(a, b cassette.Call) bool {
		for _, cl := range classes {
			if memberOf(cl.Members, a.Server, a.Tool) && memberOf(cl.Members, b.Server, b.Tool) {
				return true
			}
		}
		return false
	}
	for i, c := range calls {
		isObject := c.Arguments.IsObject()
		if isObject && !c.Arguments.IsEmptyObject() {
			r.Parameterized++
		}
		if isObject && c.Tool != "" {
			r.WellFormed++
		}
		for k, cl := range classes {
			if memberOf(cl.Members, c.Server, c.Tool) {
				reached[k] = true
			}
		}
		if !c.IsError {
			continue
		}
		r.Errors++
		for _, later := range calls[i+1:] {
			if !later.IsError && (later.ID() == c.ID() || sameClass(c, later)) {
				r.Recovered++
				break
			}
		}
	}
	r.Reached = int64(countTrue(reached))
	return r
}

// TestScoreOrchestrationDrawn draws runs (turns of calls to a few tools
// or many, on a server, on none, or named with a dot as a call of no
// server may be; failed now and then; arguments of every shape) and
// classes over those tools, and holds Orchestration's score of the run,
// read from its last call, to orchestrationByScan's of its calls.
func TestScoreOrchestrationDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 6))
	args := []cassette.JSON{``, `{}`, `{"q":1}`, `[]`, `"x"`}
	for i := range 2000 {
		pool := 1 + rng.IntN([]int{3, 10, 1000}[rng.IntN(3)])
		tool := func() (string, string) {
			n := rng.IntN(pool)
			switch rng.IntN(4) {
			case 0:
				return "", fmt.Sprintf("t%d", n)
			case 1:
				return "", fmt.Sprintf("s.t%d", n) // the id of a call to s
			}
			return "s", fmt.Sprintf("t%d", n)
		}
		var classes []Class
		for range rng.IntN(4) {
			var members []string
			for range 1 + rng.IntN(3) {
				server, name := tool()
				members = append(members, (&cassette.Call{Server: server, Tool: name}).ID())
			}
			classes = append(classes, Class{Name: fmt.Sprint(len(classes)), Members: members})
		}
		var run cassette.Run
		var all []cassette.Call
		for range rng.IntN(4) {
			var turn cassette.Turn
			for range rng.IntN(30) {
				server, name := tool()
				c := cassette.Call{Server: server, Tool: name, IsError: rng.IntN(3) == 0, Arguments: args[rng.IntN(len(args))]}
				turn.Calls = append(turn.Calls, c)
				all = append(all, c)
			}
			run.Turns = append(run.Turns, turn)
		}
		o := NewOrchestration(classes)
		got, want := o.Score(&run), orchestrationByScan(classes, all)
		if got != want {
			t.Fatalf("draw %d: %+v, want %+v (calls %+v, classes %+v)", i, got, want, all, classes)
		}
	}
}

// TestPassKFloorBoundedDrawn draws the rows of many runs (selected or
// not, over a token budget or not) and holds the floor's lines to its
// rule: its FLOOR lines, then a line for each of the first 50 runs that
// missed, in order, then one that counts the rest exactly.
func TestPassKFloorBoundedDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 7))
	budget := int64(100)
	for i := range 200 {
		p := NewPassK(PassKConfig{ExpectedTool: "t0", MinRate: 0.9, MaxTokens: &budget})
		missed := 0
		runs := rng.IntN(400)
		if i%4 == 0 { // every run misses: 49, 50 or 51 of them
			runs = 49 + rng.IntN(3)
		}
		for run := range runs {
			tokens := int64(rng.IntN(150))
			if i%4 == 0 {
				tokens = budget + 1
			}
			r := report.PassKRun{Run: run + 1, Selected: rng.IntN(4) > 0, Tokens: &tokens, WithinBudget: tokens <= budget}
			r.PassK = r.Selected && r.WithinBudget
			if !r.PassK {
				missed++
			}
			p.Fold("", r)
		}
		f := p.FloorOf("drawn", "")
		var runLines []string
		for _, l := range f.Breaches {
			if strings.HasPrefix(l, "  run ") {
				runLines = append(runLines, l)
			}
		}
		if want := min(missed, 50); len(runLines) != want {
			t.Fatalf("draw %d: %d runs missed, %d named, want %d", i, missed, len(runLines), want)
		}
		counted := 0
		for _, l := range f.Breaches {
			if strings.HasPrefix(l, "  and ") {
				counted++
			}
		}
		last := f.Breaches[len(f.Breaches)-1]
		if more := missed - 50; counted != min(1, max(0, more)) || more > 0 && last != fmt.Sprintf("  and %d more runs that missed, not listed", more) {
			t.Fatalf("draw %d: %d runs missed, %d lines counting the rest, the last %q", i, missed, counted, last)
		}
	}
}

// TestSelectionFloodCountsDrawn draws runs of floods of names and holds
// Selection, under each counting, to counts made here from the calls:
// tool_selection.fp is every unexpected call (CountCalls) or every
// unexpected tool once a run (CountDistinct), the findings name the
// first 50 unexpected tools in the order first called, and one more
// says the rest are counted exactly when more than 50 were.
func TestSelectionFloodCountsDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 10))
	classes := []Class{{Name: "a", Members: []string{"s.t0"}}}
	for i := range 60 {
		counting := Counting(rng.IntN(2))
		sel := NewSelectionBy(classes, counting)
		var fp int64
		var order []string
		seenAll := map[string]bool{}
		for range 1 + rng.IntN(4) {
			r := floodRun(rng, 1+rng.IntN(400), 1+rng.IntN([]int{40, 70, 5000}[rng.IntN(3)]))
			seenRun := map[string]bool{}
			for _, c := range r.Turns[0].Calls {
				id := c.ID()
				if id == "s.t0" {
					continue // reached class a (or repeats it)
				}
				if counting == CountCalls || !seenRun[id] {
					fp++
				}
				seenRun[id] = true
				if !seenAll[id] {
					seenAll[id] = true
					order = append(order, id)
				}
			}
			sel.Add(&r)
		}
		res := sel.Result()
		if got := res.Counts["tool_selection.fp"]; got != fp {
			t.Fatalf("draw %d (counting %d): fp %d, want %d", i, counting, got, fp)
		}
		var named []string
		more := false
		for _, f := range res.Findings {
			if id, ok := strings.CutPrefix(f.Message, "unexpected tool `"); ok {
				named = append(named, id[:strings.Index(id, "`")])
			}
			more = more || strings.HasPrefix(f.Message, "tools not named here")
		}
		if want := order[:min(len(order), 50)]; !slices.Equal(named, want) || more != (len(order) > 50) {
			t.Fatalf("draw %d: %d named, the count of the rest %v; %d unexpected tools", i, len(named), more, len(order))
		}
	}
}

// TestScorePassKCalledDrawn: a run's pass^k row names the first 50 tools
// it called, each once, in the order first called.
func TestScorePassKCalledDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 11))
	for i := range 200 {
		r := floodRun(rng, rng.IntN(300), 1+rng.IntN([]int{30, 60, 5000}[rng.IntN(3)]))
		var want []string
		for _, c := range r.Turns[0].Calls {
			if len(want) < 50 && !slices.Contains(want, c.Tool) {
				want = append(want, c.Tool)
			}
		}
		if got := ScorePassK(PassKConfig{ExpectedTool: "t0"}, &r).Called; !slices.Equal(got, append([]string{}, want...)) {
			t.Fatalf("draw %d: called %d names, want %d", i, len(got), len(want))
		}
	}
}

// TestPassKKeepsBoundedRowsDrawn draws the rows of runs over one to three
// models (a selection, a token total or none, a budget or none) and holds
// what PassK keeps in place of every row to what the rows give, counted
// here: each model's counts, median and maximum, the rows its floor
// names (the first 50 that missed, in order, and a count of the rest),
// the totals over every model, and the first report.MaxSelectionRows rows.
func TestPassKKeepsBoundedRowsDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 2))
	for i := range 300 {
		cfg := PassKConfig{ExpectedTool: "t0", MinRate: []float64{0.5, 0.6, 0.9}[rng.IntN(3)]}
		if i%2 == 0 {
			cfg.MaxTokens = i64(100)
		}
		p := NewPassK(cfg)
		rows := foldDrawnRows(rng, p, cfg)
		if head := p.Head(); !reflect.DeepEqual(head, rows[:min(len(rows), report.MaxSelectionRows)]) || p.Runs() != len(rows) {
			t.Fatalf("draw %d: %d rows kept of %d, runs %d", i, len(head), len(rows), p.Runs())
		}
		var all PassKSummary
		var allTokens []int64
		for _, m := range p.Models() {
			want, tokens, named := passKOf(rows, m)
			all.Runs, all.Selected, all.PassK = all.Runs+want.Runs, all.Selected+want.Selected, all.PassK+want.PassK
			allTokens = append(allTokens, tokens...)
			if got := p.SummaryOf(m); got != want {
				t.Fatalf("draw %d, model %q: summary %+v, want %+v", i, m, got, want)
			}
			f := p.FloorOf("x", m)
			if passed := MeetsRate(want.Selected, want.Runs, cfg.MinRate) && (cfg.MaxTokens == nil || want.OverBudget == 0); f.Passed != passed {
				t.Fatalf("draw %d, model %q: floor passed %v, want %v", i, m, f.Passed, passed)
			} else if passed {
				named = nil // a floor that holds names no run
			}
			var got []string
			for _, l := range f.Breaches {
				if strings.HasPrefix(l, "  run ") {
					got = append(got, l[:strings.Index(l, ":")+2])
				}
			}
			if want := named[:min(len(named), maxNamed)]; !slices.Equal(got, want) {
				t.Fatalf("draw %d, model %q: floor names %q, want %q", i, m, got, want)
			}
			if more := len(named) - maxNamed; more > 0 && f.Breaches[len(f.Breaches)-1] != fmt.Sprintf("  and %d more runs that missed, not listed", more) {
				t.Fatalf("draw %d, model %q: %d more missed, last line %q", i, m, more, f.Breaches[len(f.Breaches)-1])
			}
		}
		res := p.Result()
		median, top, recorded := medianMax(allTokens)
		if res.Counts["tool_selection.runs"] != all.Runs || res.Counts["tool_selection.selected"] != all.Selected ||
			res.Counts["tool_selection.pass_k_runs"] != all.PassK || res.Counts["tool_selection.tokens_recorded"] != recorded ||
			recorded > 0 && (res.Targets["tool_selection.tokens_median"] != float64(median) || res.Targets["tool_selection.tokens_max"] != float64(top)) {
			t.Fatalf("draw %d: result %v %v, want %d runs, %d selected, %d pass^k, tokens %d/%d of %d", i, res.Counts, res.Targets, all.Runs, all.Selected, all.PassK, median, top, recorded)
		}
	}
}

// foldDrawnRows folds the rows of up to three times
// report.MaxSelectionRows runs into p, drawn over one to three models,
// numbered per model, and returns them.
func foldDrawnRows(rng *rand.Rand, p *PassK, cfg PassKConfig) []report.PassKRun {
	models := []string{"", "m-1", "m-2"}[:1+rng.IntN(3)]
	var rows []report.PassKRun
	number := map[string]int{}
	for range rng.IntN(3 * report.MaxSelectionRows) {
		m := models[rng.IntN(len(models))]
		r := report.PassKRun{Selected: rng.IntN(3) > 0, WithinBudget: true, Called: []string{}}
		if rng.IntN(4) > 0 {
			r.Tokens = i64(int64(rng.IntN(150)))
		}
		if cfg.MaxTokens != nil {
			r.WithinBudget = r.Tokens != nil && *r.Tokens <= *cfg.MaxTokens
		}
		r.PassK = r.Selected && r.WithinBudget
		number[m]++
		row := p.Fold(m, r)
		if row.Run != number[m] || row.Model != m {
			panic(fmt.Sprintf("run %d of model %q folded as run %d of %q", number[m], m, row.Run, row.Model))
		}
		rows = append(rows, row)
	}
	return rows
}

// passKOf counts the rows of model: its summary, its token totals and the
// start of the line its floor gives each run that missed, in order.
func passKOf(rows []report.PassKRun, model string) (s PassKSummary, tokens []int64, missed []string) {
	for _, r := range rows {
		if r.Model != model {
			continue
		}
		s.Runs++
		s.Selected += b2i(r.Selected)
		s.PassK += b2i(r.PassK)
		s.OverBudget += b2i(!r.WithinBudget)
		if r.Tokens != nil {
			tokens = append(tokens, *r.Tokens)
			if !r.WithinBudget {
				s.Worst = max(s.Worst, *r.Tokens)
			}
		}
		if !r.PassK {
			missed = append(missed, fmt.Sprintf("  run %d: ", r.Run))
		}
	}
	s.TokensMedian, s.TokensMax, s.TokensRecorded = medianMax(tokens)
	return s, tokens, missed
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// medianMax is the median (the mean of the middle two rounded half up)
// and the maximum of xs, and their count.
func medianMax(xs []int64) (median, top, n int64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Sorted(slices.Values(xs))
	m := len(s) / 2
	median = s[m]
	if len(s)%2 == 0 {
		median = (s[m-1] + s[m] + 1) / 2
	}
	return median, s[len(s)-1], int64(len(s))
}
