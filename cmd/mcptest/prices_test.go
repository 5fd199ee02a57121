package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
	if got != 0.022 || priced != 2 || !strings.Contains(table["source"].(string), "embedded") {
		t.Errorf("embedded table: cost %v over %d priced runs from %v; want 0.022 over 2 (4500 + 8500 computed + 9000 recorded micros)", got, priced, table)
	}

	dir := t.TempDir()
	own := filepath.Join(dir, "prices.json")
	// The rates of the 2024 table, ten times over: 80000 + 150000 computed,
	// 9000 recorded.
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

// runBin runs the built binary as a user does, with a store of its own,
// and returns its streams and exit code.
func runBin(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(mcptestBin(t), args...)
	cmd.Env = append(os.Environ(), storeEnv+"="+t.TempDir(), "CI=", "GITHUB_ACTIONS=", "NO_COLOR=1")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestPricesCommandBinary runs `mcptest prices` through the built binary:
// the rates of the embedded 2026-07-24 table as it writes them, the entry
// each name matched and by which rule, and a model with no entry named on
// stderr with the nearest priced one and exit 2.
func TestPricesCommandBinary(t *testing.T) {
	stdout, stderr, code := runBin(t, "prices", "--format", "json", "claude-sonnet-4-5", "openai/gpt-4o")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc map[string]any
	d := json.NewDecoder(strings.NewReader(stdout))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	table := doc["table"].(map[string]any)
	if table["sha256"] != "d367a97d5e53cdea0ea68853afba06c8429afa51cfc3fe834a9a1d8eb8e8d68f" || !strings.Contains(table["source"].(string), "2026-07-24") {
		t.Errorf("table %v, want the embedded copy of 2026-07-24", table)
	}
	want := []string{
		"claude-sonnet-4-5 claude-sonnet-4-5 exact 0.000003 0.000015 0.0000003",
		"openai/gpt-4o gpt-4o provider prefix 0.0000025 0.00001 0.00000125",
	}
	models := doc["models"].([]any)
	for i, w := range want {
		m := models[i].(map[string]any)
		line := fmt.Sprint(m["model"], " ", m["entry"], " ", m["match"], " ", m["input_cost_per_token"], " ", m["output_cost_per_token"], " ", m["cache_read_input_token_cost"])
		if line != w {
			t.Errorf("models[%d] = %s, want %s", i, line, w)
		}
	}

	stdout, stderr, code = runBin(t, "prices", "gpt-4o", "claude-sonet-4-5")
	if code != ExitInput || !strings.Contains(stderr, `no entry for model "claude-sonet-4-5" (did you mean "claude-sonnet-4-5"?)`) {
		t.Errorf("unknown model: exit %d, stderr %q; want exit 2 naming claude-sonnet-4-5", code, stderr)
	}
	if !strings.Contains(stdout, "gpt-4o: entry gpt-4o (exact match)\n  input         $2.50 per 1M tokens\n  output        $10.00 per 1M tokens\n  cached input  $1.25 per 1M tokens\n") {
		t.Errorf("the known model's rates are missing:\n%s", stdout)
	}
	if _, stderr, code = runBin(t, "prices"); code != ExitInput || !strings.Contains(stderr, "one or more model names") {
		t.Errorf("no model: exit %d, stderr %q", code, stderr)
	}
}

// TestCachedCostBinary runs examples/cached-cost through the built binary:
// the cached input tokens of an Anthropic and an OpenAI response priced at
// the cached rate, and the model no table has named once on stderr for its
// two cases, and in each case's unpriced_models.
func TestCachedCostBinary(t *testing.T) {
	stdout, stderr, code := runBin(t, "run", "--config", "../../examples/cached-cost/suite.yml", "--reporter", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var env struct {
		Prices map[string]string `json:"prices"`
		Cases  []struct {
			Unpriced   []string `json:"unpriced_models"`
			PricedRuns int      `json:"priced_runs"`
			Assertions []struct {
				Target string `json:"target"`
				Actual any    `json:"actual"`
			} `json:"assertions"`
		} `json:"cases"`
	}
	if err := json.Unmarshal([]byte(stdout), &env); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stderr, "has no entry for model"); n != 1 || !strings.Contains(stderr, `model "acme-router-7"`) || !strings.Contains(stderr, "2 case(s)") {
		t.Errorf("stderr says %d time(s) that a model has no price, want once for acme-router-7 in 2 cases:\n%s", n, stderr)
	}
	if env.Prices["sha256"] != "d367a97d5e53cdea0ea68853afba06c8429afa51cfc3fe834a9a1d8eb8e8d68f" {
		t.Errorf("envelope prices %v, want the embedded table's digest", env.Prices)
	}
	if len(env.Cases) != 4 || len(env.Cases[2].Unpriced) != 1 || len(env.Cases[0].Unpriced) != 0 {
		t.Fatalf("cases %+v, want 4 with acme-router-7 unpriced in the third", env.Cases)
	}
	// 2000×3e-6 + 8000×0.3e-6 + 500×15e-6 and 976×2.5e-6 + 1024×1.25e-6 + 100×10e-6,
	// read from the cost_micros assertion each case makes (a passing
	// case's envelope carries its figures, not its runs).
	for i, want := range []float64{15900, 4720} {
		c := env.Cases[i]
		a := c.Assertions[len(c.Assertions)-1]
		if c.PricedRuns != 1 || a.Target != "cost_micros" || a.Actual != want {
			t.Errorf("case %d: %d priced runs, %s = %v, want one priced run costing %v micros", i, c.PricedRuns, a.Target, a.Actual, want)
		}
	}
	if c := env.Cases[2]; c.PricedRuns != 0 {
		t.Errorf("the unpriced model's case has %d priced runs", c.PricedRuns)
	}
}

// TestSecurityPreferenceBinary runs `mcptest security` through the built
// binary on examples/description-security: the tool that calls itself the
// only search tool to use is SEC-006's (it passed before the rule was
// measured on public attacks), and the two tools that only say which tool
// comes first, as real servers do, are no rule's.
func TestSecurityPreferenceBinary(t *testing.T) {
	stdout, stderr, code := runBin(t, "security", "--catalog", "../../examples/description-security/catalog.yml", "--format", "json")
	if code != ExitFail {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	var rep struct {
		Tools    int `json:"tools"`
		Findings []struct {
			Tool, Rule string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Tools != 3 || len(rep.Findings) != 1 || rep.Findings[0].Tool != "fast_search" || rep.Findings[0].Rule != "SEC-006" {
		t.Errorf("report %+v, want one SEC-006 finding on fast_search of 3 tools", rep)
	}
}

// TestUnnamedModelNoPriceWarning runs the built binary on recordings that
// carry tokens and name no model, beside one whose model no table has:
// the run warns once, for the named model alone; with only the unnamed
// recordings it warns not at all.
func TestUnnamedModelNoPriceWarning(t *testing.T) {
	dir := t.TempDir()
	run := func(model string) string {
		m := ""
		if model != "" {
			m = `"model": "` + model + `", `
		}
		return `{"mcptest_cassette": 1, ` + m + `"runs": [{"turns": [{"calls": [{"tool": "search", "arguments": {}}], "final_response": "ok"}], "tokens": {"input": 100, "output": 10}}]}`
	}
	for name, body := range map[string]string{"a.json": run(""), "b.json": run(""), "c.json": run("acme-router-7")} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	suite := "agents:\n  - name: a\n    cassette: a.json\n  - name: b\n    cassette: b.json\n"
	for _, tc := range []struct {
		suite string
		warns int
	}{{suite, 0}, {suite + "  - name: c\n    cassette: c.json\n", 1}} {
		path := filepath.Join(dir, "suite.yml")
		if err := os.WriteFile(path, []byte(tc.suite), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runBin(t, "run", "--config", path)
		if code != ExitOK || strings.Count(stderr, "warning") != tc.warns || strings.Contains(stderr, "name none") {
			t.Errorf("exit %d, stderr %q: want %d warning(s), none for the unnamed model", code, stderr, tc.warns)
		}
		if tc.warns == 1 && !strings.Contains(stderr, `model "acme-router-7" (1 case(s))`) {
			t.Errorf("the warning does not name the model: %q", stderr)
		}
	}
}
