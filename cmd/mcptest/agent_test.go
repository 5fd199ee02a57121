package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/gate/tokens"
)

var verdictDuration = regexp.MustCompile(`(?m)^(VERDICT .*, )\d+ms\)$`)

func normalizeAgent(s string) string {
	return verdictDuration.ReplaceAllString(s, "${1}0ms)")
}

// TestAgentReporter renders failing examples at several budgets, one of
// them smaller than the VERDICT line, and checks the goldens, the budget and
// that `report --format agent` re-renders the same text from the envelope.
func TestAgentReporter(t *testing.T) {
	cases := []struct {
		example string
		budgets []string
	}{
		{"scenario-world-failing", []string{"1024", "200", "80", "5"}},
		{"distractor-floor-fails", []string{"1024", "60"}},
		{"quickstart", []string{"1024"}},
		{"agent-reporter", []string{"1024", "40", "10"}},
	}
	for _, tc := range cases {
		suite := "../../examples/" + tc.example + "/suite.yml"
		for _, budget := range tc.budgets {
			t.Run(tc.example+"-"+budget, func(t *testing.T) {
				stdout, stderr, code := mcptest(t, nil, "run", "--config", suite, "--reporter", "agent", "--agent-budget", budget, "--no-cache")
				if code != exampleExit[tc.example] {
					t.Errorf("exit %d, want %d\nstderr:\n%s", code, exampleExit[tc.example], stderr)
				}
				if !strings.HasPrefix(stdout, "VERDICT ") {
					t.Errorf("the first line is not VERDICT:\n%s", stdout)
				}
				golden(t, filepath.Join("testdata", "golden", "agent", tc.example+"-"+budget+".txt"), normalizeAgent(stdout))

				// The budget holds whenever it cut anything.
				if strings.Contains(stdout, "\nOMITTED ") && strings.Count(stdout, "\nFAIL ") > 1 {
					var n int
					for _, c := range budget {
						n = n*10 + int(c-'0')
					}
					if got := tokens.Count(stdout); got > n {
						t.Errorf("%d tokens over a budget of %d", got, n)
					}
				}

				// report --format agent round-trips from the envelope.
				env := filepath.Join(t.TempDir(), "run.json")
				mcptest(t, nil, "run", "--config", suite, "--reporter", "json", "--output", env)
				again, _, _ := mcptest(t, nil, "report", env, "--format", "agent", "--agent-budget", budget)
				if normalizeAgent(again) != normalizeAgent(stdout) {
					t.Errorf("report --format agent differs from run --reporter agent\n--- report\n%s\n--- run\n%s", again, stdout)
				}
			})
		}
	}
}

// TestAgentRepro executes every repro: line of a failing run verbatim in a
// shell, with the mcptest binary on PATH, and checks that it re-runs exactly
// that case.
func TestAgentRepro(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	bin := filepath.Dir(mcptestBin(t)) // holds the binary as `mcptest`
	stdout, _, _ := mcptest(t, nil, "run", "--config", "../../examples/scenario-world-failing/suite.yml", "--reporter", "agent", "--no-cache")
	var fails, repros []string
	for _, line := range strings.Split(stdout, "\n") {
		if name, ok := strings.CutPrefix(line, "FAIL "); ok {
			fails = append(fails, name)
		}
		if cmd, ok := strings.CutPrefix(line, "repro: "); ok {
			repros = append(repros, cmd)
		}
	}
	if len(repros) < 2 || len(repros) != len(fails) {
		t.Fatalf("%d FAIL blocks, %d repro lines:\n%s", len(fails), len(repros), stdout)
	}
	for i, repro := range repros {
		cmd := exec.Command("sh", "-c", repro+" --reporter agent --no-cache")
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "MCPTEST_DIR="+t.TempDir())
		out, err := cmd.Output()
		if code := cmd.ProcessState.ExitCode(); code != ExitFail {
			t.Errorf("%s: exit %d (%v), want %d\n%s", repro, code, err, ExitFail, out)
		}
		if !strings.HasPrefix(string(out), "VERDICT fail 0/1 passed") || !strings.Contains(string(out), "\nFAIL "+fails[i]+"\n") {
			t.Errorf("%s did not re-run just %q:\n%s", repro, fails[i], out)
		}
	}
}

// hostileNames are case names a suite may hold that a shell, a terminal or
// an agent reading line by line would take for something else.
var hostileNames = []string{
	"plain", "it's", `say "hi"`, "$HOME", "`id`", "line\nFAIL forged", "esc\x1b[2Jclear", "bell\x07",
	"line\u2028separator", "para\u2029separator", "bidi\u202eevil",
}

// TestAgentReproHostileNames runs every repro: line of the agent reporter
// through bash against the real binary, for cases named with quotes, shell
// syntax, line breaks, escapes and bidi controls: each selects exactly its
// case, byte for byte, and the agent output holds no raw control character
// and no line that is not one of its records.
func TestAgentReproHostileNames(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := filepath.Dir(mcptestBin(t))
	cassette, _ := filepath.Abs("../../examples/quickstart/cassettes/weather.json")
	var suite strings.Builder
	suite.WriteString("agents:\n")
	for _, n := range append(hostileNames, "plain and a decoy") {
		q, _ := json.Marshal(n)
		city := "Paris" // the recording asks for Sacramento: the case fails
		if strings.Contains(n, "decoy") {
			city = "Sacramento"
		}
		fmt.Fprintf(&suite, "  - name: %s\n    prompt: hi\n    cassette: %s\n    expect:\n      - target: calls[0].arguments.city\n        matcher: { exact: %s }\n", q, cassette, city)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "suite.yml"), []byte(suite.String()))
	stdout, stderr, code := mcptest(t, nil, "run", "--config", filepath.Join(dir, "suite.yml"), "--reporter", "agent", "--agent-budget", "100000")
	if code != ExitFail {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var repros []string
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if strings.ContainsFunc(line, func(r rune) bool { return r < 0x20 || r >= 0x7f && r < 0xa0 || r >= 0x2028 && r <= 0x202e }) {
			t.Errorf("raw control character in %q", line)
		}
		if !regexp.MustCompile(`^(VERDICT|FAIL|assert:|actual:|repro:|OMITTED) `).MatchString(line) {
			t.Errorf("line %q is no record of the agent reporter", line)
		}
		if cmd, ok := strings.CutPrefix(line, "repro: "); ok {
			repros = append(repros, cmd)
		}
	}
	if len(repros) != len(hostileNames) {
		t.Fatalf("%d repro lines for %d failing cases:\n%s", len(repros), len(hostileNames), stdout)
	}
	for i, repro := range repros {
		cmd := exec.Command("bash", "-c", repro+" --reporter json --no-cache")
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "MCPTEST_DIR="+t.TempDir())
		out, _ := cmd.Output()
		var env struct {
			Cases []struct{ Name string } `json:"cases"`
		}
		if err := json.Unmarshal(out, &env); err != nil || len(env.Cases) != 1 || env.Cases[0].Name != hostileNames[i] {
			t.Errorf("%s\nselected %+v (%v), want only %q", repro, env.Cases, err, hostileNames[i])
		}
	}
}
