package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// runBuilt runs the built binary as a process from the repository root and
// returns its stdout, stderr and exit code.
func runBuilt(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(mcptestBin(t), args...)
	cmd.Dir = "../.."
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// TestPassAtExampleBinary runs examples/pass-at-k through the built binary:
// 2 of 5 runs give pass@2 = 1 - C(3,2)/C(5,2) = 70 and pass^2 = 10, 1 of 5
// gives pass@3 = 1 - C(4,3)/C(5,3) = 60, under its 80% floor, so the run
// exits 1; the summary's pass@2 is (7/10 + 2/5)/2 = 55.
func TestPassAtExampleBinary(t *testing.T) {
	stdout, stderr, code := runBuilt(t, "run", "--config", "examples/pass-at-k/suite.yml")
	if code != ExitFail {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitFail, stdout, stderr)
	}
	for _, want := range []string{
		"reliability floor [PASS] forecast with one retry: 2/5 runs passed (40%), pass@2 70%",
		"FLOOR rain with three tries: pass@3 60% is below the 80% floor (1 - C(4,3)/C(5,3))",
		"  pass@k  30.0%  55.0%  75.0%  90.0%  100.0%",
		"floor [PASS] `summary.pass_at_2` >= 50: 55",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("missing %q in:\n%s", want, stdout)
		}
	}
	stdout, _, code = runBuilt(t, "run", "--config", "examples/pass-at-k/suite.yml", "--reporter", "json")
	if code != ExitFail {
		t.Fatalf("json: exit %d", code)
	}
	var env struct {
		Cases []struct {
			Targets map[string]float64 `json:"targets"`
		} `json:"cases"`
		Summary struct {
			PassAt []struct {
				K     int64  `json:"k"`
				Exact string `json:"exact"`
			} `json:"pass_at"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &env); err != nil {
		t.Fatal(err)
	}
	got := []float64{env.Cases[0].Targets["reliability.pass_at_2"], env.Cases[0].Targets["reliability.pass_hat_2"], env.Cases[1].Targets["reliability.pass_at_3"]}
	if want := []float64{70, 10, 60}; !equalFloats(got, want) {
		t.Errorf("pass@2, pass^2, pass@3 = %v, want %v", got, want)
	}
	if len(env.Summary.PassAt) != 5 || env.Summary.PassAt[1].Exact != "11/20" {
		t.Errorf("summary pass_at = %+v, want pass@2 exactly 11/20", env.Summary.PassAt)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
