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

// TestArgumentsScoreThenFoldIsAdd is the generator test of Arguments'
// split (engine's argumentsGate, a runScorer): drawn cassettes (each its
// recorded catalog: tools of two servers, schemas that hold, that refuse,
// that do not compile, that spend a check's steps, tools without one,
// names a call reaches only by resolving them, some ambiguous), drawn
// runs of drawn calls (arguments valid, invalid, absent, not an object,
// past the step budget, nested past the depth limit), a block catalog,
// strict or not, evidence kept or not. Every run's calls are scored first,
// on three goroutines out of order and sharing the compile cache, then
// folded in run order, each cassette's catalog taken before its runs; the
// result must be what adding the runs one at a time gives: each run's
// checks and count, every position asked of the locator (which violation,
// in which order), the counts, keywords, warnings and findings.
func TestArgumentsScoreThenFoldIsAdd(t *testing.T) {
	var subs []string
	for range 50 {
		subs = append(subs, `{"items":{"type":"number"}}`)
	}
	schemas := []string{
		`{"type":"object","required":["q"],"properties":{"q":{"type":"string"}}}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"additionalProperties":false}`,
		`{"type":12}`,
		`{"type":"object","properties":{"xs":{"allOf":[` + strings.Join(subs, ",") + `]}}}`,
		`{"type":"object","properties":{"q":{"enum":["a","b"]}}}`,
		``,
	}
	tools := []string{"search", "get_sum", "get-sum", "fs_read", "lookup", "steps"}
	var big, deep strings.Builder
	big.WriteString(`{"xs":[`)
	for i := range 1000 {
		if i > 0 {
			big.WriteByte(',')
		}
		fmt.Fprint(&big, i)
	}
	big.WriteString(`]}`)
	deep.WriteString(`{"q":`)
	deep.WriteString(strings.Repeat("[", 130) + strings.Repeat("]", 130) + "}")
	args := []string{"", `{}`, `{"q":"x"}`, `{"q":1}`, `{"n":-1}`, `{"n":3,"extra":true}`, `"bad"`, `{"xs":[1,2,3]}`, big.String(), deep.String(), `{"q":"c"}`}
	calls := []string{"search", "get_sum", "GET_SUM", "everything_get_sum", "fs_read", "a_lookup", "steps", "missing"}
	rng := rand.New(rand.NewPCG(40, 21))
	// Each kind of outcome the split must keep in order is drawn at least
	// once: a schema that does not compile, a name the catalog's tools
	// could each be, a check over a limit, a call of a schema whose check
	// spent its steps, a violation.
	met := map[string]bool{}
	schemaOf := func() any {
		s := schemas[rng.IntN(len(schemas))]
		if s == "" {
			return nil
		}
		return cassette.JSON(s).Value()
	}
	for d := range 80 {
		var cfg ArgumentsConfig
		cfg.Strict = rng.IntN(2) == 0
		cfg.Keep = []int{0, 1, 3}[rng.IntN(3)]
		for range rng.IntN(3) {
			cfg.Catalog = append(cfg.Catalog, cassette.Tool{Name: tools[rng.IntN(len(tools))], InputSchema: schemaOf()})
		}
		type cas struct {
			cat  []cassette.ServerCatalog
			runs []cassette.Run
		}
		var cassettes []cas
		for range 1 + rng.IntN(5) {
			var c cas
			for _, server := range []string{"a", "b"}[:1+rng.IntN(2)] {
				sc := cassette.ServerCatalog{Server: server}
				for _, name := range tools {
					if rng.IntN(3) != 0 {
						sc.Tools = append(sc.Tools, cassette.Tool{Name: name, InputSchema: schemaOf()})
					}
				}
				c.cat = append(c.cat, sc)
			}
			for range 1 + rng.IntN(6) {
				var r cassette.Run
				for range 1 + rng.IntN(3) {
					var turn cassette.Turn
					for range rng.IntN(12) {
						turn.Calls = append(turn.Calls, cassette.Call{Server: []string{"", "a", "b"}[rng.IntN(3)],
							Tool: calls[rng.IntN(len(calls))], Arguments: cassette.JSON(args[rng.IntN(len(args))])})
					}
					r.Turns = append(r.Turns, turn)
				}
				c.runs = append(c.runs, r)
			}
			cassettes = append(cassettes, c)
		}
		// where logs every position asked, with the run it was asked for.
		where := func(log *[]string, run int) Locator {
			return func(turn, call int, ptr string) *diag.Pos {
				*log = append(*log, fmt.Sprintf("run %d turn %d call %d %s", run, turn, call, ptr))
				return &diag.Pos{File: fmt.Sprint(run), Line: turn, Col: call}
			}
		}
		one := NewArguments(cfg)
		var addLog []string
		var added []ArgumentsRun
		n := 0
		for _, c := range cassettes {
			one.AddCatalog(c.cat)
			for i := range c.runs {
				n++
				added = append(added, one.Add(n, &c.runs[i], where(&addLog, n)))
			}
		}

		split := NewArguments(cfg)
		type ref struct{ c, r int }
		var refs []ref
		for ci, c := range cassettes {
			for ri := range c.runs {
				refs = append(refs, ref{ci, ri})
			}
		}
		scores := make([]*ArgumentsScore, len(refs))
		var wg sync.WaitGroup
		for w := range 3 {
			wg.Go(func() {
				for i := len(refs) - 1 - w; i >= 0; i -= 3 {
					c := cassettes[refs[i].c]
					scores[i] = split.Score(c.cat, &c.runs[refs[i].r])
				}
			})
		}
		wg.Wait()
		var foldLog []string
		n = 0
		for ci, c := range cassettes {
			split.AddCatalog(c.cat)
			for ri := range c.runs {
				got := split.Fold(n+1, &c.runs[ri], scores[n], where(&foldLog, n+1))
				if !reflect.DeepEqual(got, added[n]) {
					t.Fatalf("draw %d, cassette %d run %d: scored then folded\n%+v\nadded\n%+v", d, ci, ri, got, added[n])
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
			for _, kind := range []string{"does not compile, so its calls", "could be any of", "was not checked against its inputSchema", "run "} {
				if strings.Contains(f.Message, kind) {
					met[kind] = true
				}
			}
		}
		for _, r := range added {
			for _, cc := range r.Calls {
				if strings.HasPrefix(cc.Reason, "its check of a call took too long") {
					met["took too long"] = true
				}
			}
		}
	}
	for _, kind := range []string{"does not compile, so its calls", "could be any of", "was not checked against its inputSchema", "run ", "took too long"} {
		if !met[kind] {
			t.Errorf("no draw gave %q: the draws miss a case the split must keep", kind)
		}
	}
}
