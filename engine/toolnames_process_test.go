package engine_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestProcessToolNamesAlone runs the built binary over a generated
// directory of cassettes whose test checks tool_names on every run (the
// suite `.ci/bench` runs, with a matcher that fails on some runs), and
// again with a check on turns added (which needs every call in the run's
// document): the tool_names assertion reads the same in both reports, and
// in the first run no call was copied into a document (the allocation
// profile shows nothing allocated by engine.callDoc).
func TestProcessToolNamesAlone(t *testing.T) {
	tl, goCmd, dir, suite := generatedRun(t, 60, 41)
	const check = "      - target: tool_names\n        matcher: { not: { contains: git_reset } }\n"
	if !strings.Contains(suite, check) {
		t.Fatalf("the generated suite has no tool_names check:\n%s", suite)
	}
	names := strings.Replace(suite, check, "      - target: tool_names\n        matcher: { contains: fetch }\n", 1)
	turns := names + "      - target: turns\n        matcher: { not: { contains: nothing } }\n"
	report := func(text string, env ...string) map[string]any {
		if err := os.WriteFile(filepath.Join(dir, "s.yml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "r.json")
		env = append(env, "GOMAXPROCS=2", "MCPTEST_DIR="+t.TempDir())
		l := tl.launchEnv(t, dir, env, tl.mcptest, "run", "--config", "s.yml", "--format", "json", "--output", out, "--no-cache")
		if l.code > 1 {
			t.Fatalf("exit %d\n%s", l.code, l.stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var env2 struct {
			Cases []struct {
				Assertions []map[string]any `json:"assertions"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(data, &env2); err != nil || len(env2.Cases) != 1 {
			t.Fatalf("the report: %v, %d cases", err, len(env2.Cases))
		}
		for _, a := range env2.Cases[0].Assertions {
			if a["target"] == "tool_names" {
				return a
			}
		}
		t.Fatalf("no tool_names assertion in\n%s", data)
		return nil
	}
	prof := filepath.Join(t.TempDir(), "mem.out")
	alone := report(names, profiled(prof)...)
	withTurns := report(turns)
	if !reflect.DeepEqual(alone, withTurns) {
		t.Errorf("the tool_names assertion alone:\n%v\nbeside a turns check:\n%v", alone, withTurns)
	}
	if alone["passed"] != false {
		t.Errorf("contains: fetch passed on every generated run: %v", alone)
	}
	if figure, top := focusedAllocs(t, goCmd, tl.mcptest, prof, "alloc_space", "engine.callDoc$", ""); figure != "0" {
		t.Errorf("calls were copied into documents for a tool_names check (%s):\n%s", figure, top)
	}
}
