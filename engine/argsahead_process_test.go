package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessArgumentsAheadEveryCore runs the built binary over drawn
// directories whose calls meet arguments: on the workers that decode them
// (gate.Arguments.Score): tools whose schemas hold or refuse, one whose
// check spends its steps on a long array (after which, in run order, its
// calls are left unchecked), one that does not compile, in drawn files of
// drawn runs. The report must be the same at GOMAXPROCS=1 (every call
// checked in the fold), 2 and 4 (checked ahead, folded in order), and
// count every call of the spending tool unchecked with one warning for it.
func TestProcessArgumentsAheadEveryCore(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary over generated directories")
	}
	tl := buildTools(t)
	subs := strings.TrimSuffix(strings.Repeat(`{"items":{"type":"number"}},`, 50), ",")
	catalog := `{"s":{"tools":[` +
		`{"name":"q","inputSchema":{"type":"object","required":["q"],"properties":{"q":{"type":"string"}}}},` +
		`{"name":"n","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"additionalProperties":false}},` +
		`{"name":"spend","inputSchema":{"type":"object","properties":{"xs":{"allOf":[` + subs + `]}}}},` +
		`{"name":"broken","inputSchema":{"type":12}}]}}`
	long := make([]string, 1000)
	for i := range long {
		long[i] = fmt.Sprint(i)
	}
	args := map[string][]string{
		"q":      {`{"q":"x"}`, `{"q":1}`, `{}`},
		"n":      {`{"n":3}`, `{"n":-1}`, `{"n":1,"extra":true}`},
		"spend":  {`{"xs":[` + strings.Join(long, ",") + `]}`},
		"broken": {`{}`},
	}
	tools := []string{"q", "n", "spend", "broken"}
	rng := rand.New(rand.NewPCG(40, 41))
	for d := range 3 {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "cassettes"), 0o755); err != nil {
			t.Fatal(err)
		}
		spent := 0
		for f := range 8 + rng.IntN(24) {
			var runs []string
			for range 1 + rng.IntN(3) {
				var calls []string
				for range rng.IntN(12) {
					tool := tools[rng.IntN(len(tools))]
					if tool == "spend" {
						spent++
					}
					a := args[tool][rng.IntN(len(args[tool]))]
					calls = append(calls, `{"server":"s","tool":"`+tool+`","arguments":`+a+`}`)
				}
				runs = append(runs, `{"turns":[{"calls":[`+strings.Join(calls, ",")+`],"final_response":"ok"}]}`)
			}
			body := `{"mcptest_cassette":1,"catalog":` + catalog + `,"runs":[` + strings.Join(runs, ",") + `]}`
			if err := os.WriteFile(filepath.Join(dir, "cassettes", fmt.Sprintf("%03d.json", f)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		suite := "agents:\n  - name: arguments ahead\n    cassette: \"cassettes/\"\n    arguments: {}\n"
		if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite), 0o644); err != nil {
			t.Fatal(err)
		}
		var first []byte
		for _, procs := range []string{"1", "2", "4"} {
			out := filepath.Join(t.TempDir(), "r.json")
			l := tl.launchEnv(t, dir, []string{"GOMAXPROCS=" + procs, "MCPTEST_DIR=" + t.TempDir()}, tl.mcptest, "run", "--config", "suite.yml", "--format", "json", "--output", out, "--no-cache")
			if l.code > 1 {
				t.Fatalf("directory %d, GOMAXPROCS=%s: exit %d\n%s", d, procs, l.code, l.stderr)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			report := withoutRunClock(t, data)
			if first == nil {
				first = report
				checkSpent(t, d, data, spent)
				continue
			}
			if string(report) != string(first) {
				t.Errorf("directory %d: the report at GOMAXPROCS=%s differs from one core's:\n%s\n%s", d, procs, clip(report), clip(first))
			}
		}
	}
}

// checkSpent requires a report's one case to hold the spending tool's
// calls unchecked, with one warning naming the limit.
func checkSpent(t *testing.T, d int, data []byte, spent int) {
	t.Helper()
	var env struct {
		Cases []struct {
			Counts   map[string]int64 `json:"counts"`
			Findings []struct {
				Message string `json:"message"`
			} `json:"findings"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &env); err != nil || len(env.Cases) != 1 {
		t.Fatalf("directory %d: %v, %d cases", d, err, len(env.Cases))
	}
	c := env.Cases[0]
	limits := 0
	for _, f := range c.Findings {
		if strings.Contains(f.Message, "`s.spend` was not checked against its inputSchema: checking it took more than") {
			limits++
		}
	}
	if spent > 0 && limits != 1 {
		t.Errorf("directory %d: %d warnings of the spent schema, want 1", d, limits)
	}
	// The broken tool's calls are unchecked too.
	if got := c.Counts["arguments.unchecked"]; got < int64(spent) {
		t.Errorf("directory %d: %d calls unchecked, fewer than the %d calls of the spending tool", d, got, spent)
	}
}
