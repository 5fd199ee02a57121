package gate

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
)

// argCassette is one drawn cassette: its recorded catalog and its runs.
type argCassette struct {
	cat  []cassette.ServerCatalog
	runs []cassette.Run
}

// argDraw draws what TestArgumentsScoreThenFoldIsAdd folds: schemas that
// hold, that refuse, that do not compile, that spend a check's steps,
// tools without one; names a call reaches only by resolving them, some
// ambiguous; arguments valid, invalid, absent, not an object, past the
// step budget, nested past the depth limit.
type argDraw struct {
	rng     *rand.Rand
	schemas []string
	tools   []string
	args    []string
	calls   []string
}

func newArgDraw(rng *rand.Rand) *argDraw {
	var subs []string
	for range 50 {
		subs = append(subs, `{"items":{"type":"number"}}`)
	}
	var big strings.Builder
	big.WriteString(`{"xs":[`)
	for i := range 1000 {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprint(&big, i)
	}
	big.WriteString(`]}`)
	deep := `{"q":` + strings.Repeat("[", 130) + strings.Repeat("]", 130) + "}"
	return &argDraw{rng: rng,
		schemas: []string{
			`{"type":"object","required":["q"],"properties":{"q":{"type":"string"}}}`,
			`{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"additionalProperties":false}`,
			`{"type":12}`,
			`{"type":"object","properties":{"xs":{"allOf":[` + strings.Join(subs, ",") + `]}}}`,
			`{"type":"object","properties":{"q":{"enum":["a","b"]}}}`,
			``,
		},
		tools: []string{"search", "get_sum", "get-sum", "fs_read", "lookup", "steps"},
		args:  []string{"", `{}`, `{"q":"x"}`, `{"q":1}`, `{"n":-1}`, `{"n":3,"extra":true}`, `"bad"`, `{"xs":[1,2,3]}`, big.String(), deep, `{"q":"c"}`},
		calls: []string{"search", "get_sum", "GET_SUM", "everything_get_sum", "fs_read", "a_lookup", "steps", "missing"},
	}
}

func (g *argDraw) schema() any {
	s := g.schemas[g.rng.IntN(len(g.schemas))]
	if s == "" {
		return nil
	}
	return cassette.JSON(s).Value()
}

// config draws a block: strict or not, evidence kept or not, a catalog.
func (g *argDraw) config() ArgumentsConfig {
	cfg := ArgumentsConfig{Strict: g.rng.IntN(2) == 0, Keep: []int{0, 1, 3}[g.rng.IntN(3)]}
	for range g.rng.IntN(3) {
		cfg.Catalog = append(cfg.Catalog, cassette.SchemaTool(g.tools[g.rng.IntN(len(g.tools))], g.schema()))
	}
	return cfg
}

// cassettes draws one to five cassettes of one to six runs.
func (g *argDraw) cassettes() []argCassette {
	var out []argCassette
	for range 1 + g.rng.IntN(5) {
		var c argCassette
		for _, server := range []string{"a", "b"}[:1+g.rng.IntN(2)] {
			sc := cassette.ServerCatalog{Server: server}
			for _, name := range g.tools {
				if g.rng.IntN(3) != 0 {
					sc.Tools = append(sc.Tools, cassette.SchemaTool(name, g.schema()))
				}
			}
			c.cat = append(c.cat, sc)
		}
		for range 1 + g.rng.IntN(6) {
			var r cassette.Run
			for range 1 + g.rng.IntN(3) {
				var turn cassette.Turn
				for range g.rng.IntN(12) {
					turn.Calls = append(turn.Calls, cassette.Call{Server: []string{"", "a", "b"}[g.rng.IntN(3)],
						Tool: g.calls[g.rng.IntN(len(g.calls))], Arguments: cassette.JSON(g.args[g.rng.IntN(len(g.args))])})
				}
				r.Turns = append(r.Turns, turn)
			}
			c.runs = append(c.runs, r)
		}
		out = append(out, c)
	}
	return out
}

// logWhere is a Locator that logs every position asked, with its run.
func logWhere(log *[]string, run int) Locator {
	return func(turn, call int, ptr string) *diag.Pos {
		*log = append(*log, fmt.Sprintf("run %d turn %d call %d %s", run, turn, call, ptr))
		return &diag.Pos{File: fmt.Sprint(run), Line: turn, Col: call}
	}
}

// scoreAhead scores every run of cs on three goroutines, out of order,
// into one score a run in run order.
func scoreAhead(a *Arguments, cs []argCassette) []*ArgumentsScore {
	type ref struct{ c, r int }
	var refs []ref
	for ci, c := range cs {
		for ri := range c.runs {
			refs = append(refs, ref{ci, ri})
		}
	}
	scores := make([]*ArgumentsScore, len(refs))
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			for i := len(refs) - 1 - w; i >= 0; i -= 3 {
				c := cs[refs[i].c]
				scores[i] = a.Score(c.cat, &c.runs[refs[i].r])
			}
		})
	}
	wg.Wait()
	return scores
}

// TestArgumentsScoreThenFoldIsAdd is the generator test of Arguments'
// split (engine's argumentsGate, a runScorer): for drawn cassettes, runs
// and blocks (argDraw), every run's calls are scored first, on three
// goroutines out of order and sharing the compile cache, then folded in
// run order, each cassette's catalog taken before its runs; the result
// must be what adding the runs one at a time gives: each run's checks and
// count, every position asked of the locator (which violation, in which
// order), the counts, keywords, warnings and findings. Each kind of
// outcome the fold must keep in order is drawn at least once.
func TestArgumentsScoreThenFoldIsAdd(t *testing.T) {
	g := newArgDraw(rand.New(rand.NewPCG(40, 21)))
	kinds := []string{"does not compile, so its calls", "could be any of", "was not checked against its inputSchema", "run ", "took too long"}
	met := map[string]bool{}
	for d := range 80 {
		cfg := g.config()
		cs := g.cassettes()
		one := NewArguments(cfg)
		var addLog []string
		var added []ArgumentsRun
		for _, c := range cs {
			one.AddCatalog(c.cat)
			for i := range c.runs {
				added = append(added, one.Add(len(added)+1, &c.runs[i], logWhere(&addLog, len(added)+1)))
			}
		}
		split := NewArguments(cfg)
		scores := scoreAhead(split, cs)
		var foldLog []string
		n := 0
		for _, c := range cs {
			split.AddCatalog(c.cat)
			for ri := range c.runs {
				if got := split.Fold(n+1, &c.runs[ri], scores[n], logWhere(&foldLog, n+1)); !reflect.DeepEqual(got, added[n]) {
					t.Fatalf("draw %d, run %d: scored then folded\n%+v\nadded\n%+v", d, n+1, got, added[n])
				}
				n++
			}
		}
		if !reflect.DeepEqual(foldLog, addLog) {
			t.Fatalf("draw %d: the positions asked differ:\n%q\n%q", d, foldLog, addLog)
		}
		if a, b := one.Result(), split.Result(); !reflect.DeepEqual(a, b) {
			t.Fatalf("draw %d: the result of scoring then folding differs from adding:\n%+v\n%+v", d, b, a)
		}
		if a, b := one.Summary(), split.Summary(); !reflect.DeepEqual(a, b) {
			t.Fatalf("draw %d: the summary differs:\n%+v\n%+v", d, b, a)
		}
		for _, f := range one.Result().Findings {
			for _, kind := range kinds {
				met[kind] = met[kind] || strings.Contains(f.Message, kind)
			}
		}
		for _, r := range added {
			for _, cc := range r.Calls {
				met["took too long"] = met["took too long"] || strings.HasPrefix(cc.Reason, "its check of a call took too long")
			}
		}
	}
	for _, kind := range kinds {
		if !met[kind] {
			t.Errorf("no draw gave %q: the draws miss a case the split must keep", kind)
		}
	}
}
