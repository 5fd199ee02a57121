package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPricesFlag runs the computed-cost example with the embedded table and
// with a table given by --prices: the runs that recorded tokens and no cost
// are priced from the table in use, the recorded cost stays, and the
// envelope names the table.
func TestPricesFlag(t *testing.T) {
	const suite = "../../examples/computed-cost/suite.yml"
	// One store for every run, with the cache on: a result computed with
	// one table must not be served for a run with another.
	store := map[string]string{storeEnv: t.TempDir()}
	cost := func(args ...string) (float64, int, map[string]any) {
		t.Helper()
		stdout, stderr, code := mcptest(t, store, append([]string{"run", "--config", suite, "--reporter", "json", "--cache"}, args...)...)
		if code != 0 && code != 1 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		var env struct {
			Prices map[string]any `json:"prices"`
			Cases  []struct {
				PricedRuns int                `json:"priced_runs"`
				Targets    map[string]float64 `json:"targets"`
			} `json:"cases"`
		}
		if err := json.Unmarshal([]byte(stdout), &env); err != nil {
			t.Fatal(err)
		}
		return env.Cases[0].Targets["token_efficiency.cost"], env.Cases[0].PricedRuns, env.Prices
	}
	got, priced, table := cost()
	if got != 0.032 || priced != 2 || !strings.Contains(table["source"].(string), "embedded") {
		t.Errorf("embedded table: cost %v over %d priced runs from %v; want 0.032 over 2 (8000 + 15000 computed + 9000 recorded micros)", got, priced, table)
	}

	dir := t.TempDir()
	own := filepath.Join(dir, "prices.json")
	// Ten times the embedded rates: 80000 + 150000 computed, 9000 recorded.
	if err := os.WriteFile(own, []byte(`{"gpt-4o": {"input_cost_per_token": 5e-05, "output_cost_per_token": 0.00015}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, priced, table = cost("--prices", own)
	if got != 0.239 || priced != 2 || table["source"] != own {
		t.Errorf("--prices: cost %v over %d priced runs from %v; want 0.239 over 2 from %s", got, priced, table, own)
	}

	// A table without the model prices nothing: only the recorded cost counts.
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"claude-3-haiku-20240307": {"input_cost_per_token": 2.5e-07, "output_cost_per_token": 1.25e-06}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, priced, table = cost("--prices", other)
	if got != 0.009 || priced != 0 || table != nil {
		t.Errorf("table without the model: cost %v over %d priced runs from %v; want 0.009 (the recorded run) and no prices", got, priced, table)
	}
}

// TestPricesFlagErrors checks that a bad --prices file is an input error
// (exit 2) that says where and what.
func TestPricesFlagErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"gpt-4o\": {\"input_cost_per_token\": \"0.000005\", \"output_cost_per_token\": 1}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{
		{bad, bad + `:2:13: model "gpt-4o": input_cost_per_token is a string, expected a number of US dollars per token`},
		{filepath.Join(dir, "missing.json"), "--prices: "},
		{dir, "--prices: "},
	} {
		_, stderr, code := mcptest(t, nil, "run", "--config", "../../examples/computed-cost/suite.yml", "--prices", tc.file)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("--prices %s: exit %d, stderr %q; want exit 2 and %q", tc.file, code, stderr, tc.want)
		}
	}
}
