package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestProcessReportLeavesNoSpool: `mcptest report --compare` and `report
// merge`, run as a user runs them, leave nothing of theirs in the temporary
// directory: over the quickstart's run as the baseline and, as the current
// run, the same run, the run with a new case given twice (the streamed
// comparison hands it to the comparison in memory) and the run cut short
// (refused, exit 2).
func TestProcessReportLeavesNoSpool(t *testing.T) {
	bin := processBin(t)
	dir, tmp := t.TempDir(), t.TempDir()
	run := func(args ...string) int {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, storeEnv+"="+t.TempDir())
		out, err := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return code
	}
	suite, err := filepath.Abs("../../examples/quickstart/suite.yml")
	if err != nil {
		t.Fatal(err)
	}
	if code := run("run", suite, "--format", "json", "--output", "base.json", "--no-cache"); code != ExitOK {
		t.Fatalf("run: exit %d", code)
	}
	data, err := os.ReadFile(filepath.Join(dir, "base.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]any
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	cases := env["cases"].([]any)
	added := map[string]any{}
	for k, v := range cases[0].(map[string]any) {
		added[k] = v
	}
	added["name"] = "a case the baseline lacks"
	env["cases"] = append(cases, added, added)
	twice, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cur  []byte
		code int
	}{
		{"the same run", data, ExitOK},
		{"a new case given twice", twice, -1},
		{"cut short", data[:len(data)/2], ExitInput},
	} {
		if err := os.WriteFile(filepath.Join(dir, "cur.json"), tc.cur, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"report", "cur.json", "--compare", "base.json", "--format", "json", "--output", "cmp.json"},
			{"report", "merge", "cur.json", "--output", "merged.json"},
		} {
			code := run(args...)
			if tc.code >= 0 && code != tc.code {
				t.Errorf("%s: %v: exit %d, want %d", tc.name, args[:2], code, tc.code)
			}
			left, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range left {
				t.Errorf("%s: %v left %s in the temporary directory", tc.name, args[:2], f.Name())
				os.Remove(filepath.Join(tmp, f.Name()))
			}
		}
	}
}
