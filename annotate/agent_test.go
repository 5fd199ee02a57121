package annotate

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/gate/tokens"
)

func failingEnvelope(n int, actual any) *engine.Envelope {
	env := &engine.Envelope{SchemaVersion: engine.SchemaVersion, Suite: engine.SuiteInfo{Path: "suite.yml"}}
	for i := 0; i < n; i++ {
		env.Cases = append(env.Cases, &engine.CaseResult{
			Name: "case " + string(rune('a'+i)), Verdict: engine.Fail,
			Assertions: []engine.AssertionResult{{Target: "final_response", Message: "assertion #0 (`final_response`) failed: substring `ok` not found", Actual: actual}},
		})
	}
	env.Cases = append(env.Cases, &engine.CaseResult{Name: "passing", Verdict: engine.Pass})
	env.Tally()
	return env
}

func TestAgentFailureClipsActual(t *testing.T) {
	big := strings.Repeat("status: degraded; ", 2000)
	fs := AgentFailures(failingEnvelope(1, big), AgentOptions{FieldBudget: 20})
	if len(fs) != 1 {
		t.Fatalf("%d failures", len(fs))
	}
	f := fs[0]
	if n := tokens.Count(f.Actual); n > 20 || !f.Clipped || !strings.HasSuffix(f.Actual, "…") {
		t.Errorf("actual not clipped to 20 tokens (%d, clipped=%v): %q", n, f.Clipped, f.Actual)
	}
	if f.Repro != `mcptest run --config "suite.yml" --filter "case a"` {
		t.Errorf("repro = %s", f.Repro)
	}
}

func TestAgentBudget(t *testing.T) {
	env := failingEnvelope(12, "x")
	for _, budget := range []int{1, 60, 120, 400} {
		var b strings.Builder
		if err := (Agent{Budget: budget}).Report(&b, env); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.HasPrefix(out, "VERDICT fail 1/13 passed (12 failed, 0 inconclusive, 0 cached, 0ms)\nFAIL case a\n") {
			t.Errorf("budget %d: no VERDICT and first failure:\n%s", budget, out)
		}
		shown := strings.Count(out, "\nFAIL ")
		if shown > 1 && tokens.Count(out) > budget {
			t.Errorf("budget %d: %d tokens", budget, tokens.Count(out))
		}
		if shown < 12 && !strings.Contains(out, "OMITTED "+itoa(12-shown)+" more failures") {
			t.Errorf("budget %d: %d shown, no OMITTED line:\n%s", budget, shown, out)
		}
		if strings.Contains(out, "passing") {
			t.Errorf("a passing case is listed")
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain name": `"plain name"`,
		`it's $HOME`: `'it'\''s $HOME'`,
		"":           `''`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzAgent feeds arbitrary envelopes and budgets through the agent
// reporter: VERDICT always comes first, every line starts with a stable
// field name, and nothing recorded can break a line or smuggle a control
// character.
func FuzzAgent(f *testing.F) {
	if data, err := os.ReadFile("testdata/sample.json"); err == nil {
		f.Add(data, 80)
		f.Add(data, 1)
	}
	f.Add([]byte(`{"schema_version":1,"verdict":"fail","cases":[{"name":"a\nFAIL b","verdict":"fail","assertions":[{"message":"x\u001b[2J","actual":"line\nbreak"}]}]}`), 5)
	f.Fuzz(func(t *testing.T, data []byte, budget int) {
		env, err := ReadEnvelope(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		if budget < 0 || budget > 1<<16 {
			budget = 1024
		}
		var b strings.Builder
		if err := (Agent{Budget: budget}).Report(&b, env); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.HasPrefix(out, "VERDICT ") || !strings.HasSuffix(out, "\n") {
			t.Fatalf("output:\n%q", out)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			ok := false
			for _, p := range []string{"VERDICT ", "FAIL ", "assert: ", "actual: ", "repro: ", "OMITTED "} {
				ok = ok || strings.HasPrefix(line, p)
			}
			if !ok || strings.ContainsFunc(line, isControl) {
				t.Fatalf("bad line %q in\n%s", line, out)
			}
		}
	})
}
