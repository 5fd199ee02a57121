package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/internal/prices"
)

// TestWarnUnpricedOncePerRun is a generator test: for random sets of
// models a run could not price, with the runs that name no model among
// them or not, the run warns in one line, naming every named model once
// with its count of cases, and not at all when no named model is missing.
func TestWarnUnpricedOncePerRun(t *testing.T) {
	table, err := prices.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(41, 6))
	for i := range 300 {
		unpriced := map[string]int{}
		for range rng.IntN(4) {
			unpriced[fmt.Sprintf("acme-router-%d", rng.IntN(9))] = 1 + rng.IntN(5)
		}
		if rng.IntN(2) == 0 {
			unpriced[""] = 1 + rng.IntN(5) // runs that name no model
		}
		var lines []string
		warnUnpriced(func(s string) { lines = append(lines, s) }, unpriced, func() *prices.Table { return table })
		named := len(unpriced)
		if _, ok := unpriced[""]; ok {
			named--
		}
		if named == 0 {
			if len(lines) != 0 {
				t.Fatalf("#%d %v: warned %q with no named model missing", i, unpriced, lines)
			}
			continue
		}
		if len(lines) != 1 {
			t.Fatalf("#%d %v: %d warnings, want one", i, unpriced, len(lines))
		}
		for m, n := range unpriced {
			want := fmt.Sprintf("model %q (%d case(s)", m, n)
			if m != "" && strings.Count(lines[0], want) != 1 {
				t.Errorf("#%d: %q does not name %s once", i, lines[0], want)
			}
		}
		if strings.Contains(lines[0], `""`) || strings.Contains(lines[0], "name none") || strings.Contains(lines[0], "\n") {
			t.Errorf("#%d: %q", i, lines[0])
		}
	}
}

// TestPriceTableOnlyWhenNeeded is a generator test: over drawn directories
// of generated cassettes, each run's recorded cost kept or taken out (its
// tokens kept) at a drawn rate, a run asks for the embedded price table
// exactly when some run recorded tokens and no cost, never at its end for
// nothing (decoding it is 30 to 40 ms of one core, after every case), and
// its envelope names the table then and only then.
func TestPriceTableOnlyWhenNeeded(t *testing.T) {
	src := t.TempDir()
	paths, err := gen.Write(src, 12, gen.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, string(b))
	}
	cost := regexp.MustCompile(`,\s*"cost_micros": *\d+`)
	calls := 0
	prev := embeddedPrices
	defer func() { embeddedPrices = prev }()
	embeddedPrices = func() (*prices.Table, error) { calls++; return prev() }
	rng := rand.New(rand.NewPCG(40, 11))
	for d := range 12 {
		files := map[string]string{}
		needs := false
		rate := []int{0, 0, 1, 4}[d%4] // none, none, all, a quarter of the files
		for i := range 1 + rng.IntN(6) {
			body := bodies[rng.IntN(len(bodies))]
			if rate > 0 && rng.IntN(rate) == 0 {
				body = cost.ReplaceAllString(body, "")
				needs = true
			}
			files[fmt.Sprintf("cassettes/%02d.json", i)] = body
		}
		s := writeSuite(t, "agents:\n  - name: every recording\n    cassette: \"cassettes/\"\n", files)
		calls = 0
		env, err := Run(s, Options{Version: "test", Warn: func(string) {}})
		if err != nil {
			t.Fatal(err)
		}
		if (calls > 0) != needs || (env.Prices != nil) != needs {
			t.Errorf("directory %d (%d files, a run to price: %v): the price table was asked for %d times, the envelope names it: %v",
				d, len(files), needs, calls, env.Prices != nil)
		}
	}
}
