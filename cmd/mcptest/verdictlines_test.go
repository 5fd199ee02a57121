package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOneVerdictPerCase is a generator test through the built binary: every
// example's saved run, and the same run with a passing floor added to each
// failing case (a reliability floor met by runs that passed while a gate
// failed the case), is rendered by `mcptest report`: under a FAIL no line
// says [PASS], each failed assertion is printed once with its evidence,
// and a failing run's checks are listed once; the HTML report of the same
// run shows no passed floor in a failing case either.
func TestOneVerdictPerCase(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	files, err := filepath.Glob("testdata/golden/examples/*.json")
	if err != nil || len(files) < 10 {
		t.Fatalf("%d example envelopes (%v)", len(files), err)
	}
	dir := t.TempDir()
	runLine := regexp.MustCompile(`^\s+run \d+: `)
	blocks := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var env map[string]any
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		cases, _ := env["cases"].([]any)
		added := false
		for _, c := range cases {
			cm := c.(map[string]any)
			if cm["verdict"] != "fail" {
				continue
			}
			floors, _ := cm["floors"].([]any)
			cm["floors"] = append([]any{map[string]any{"name": "reliability floor", "passed": true, "message": "3/3 runs passed (100%)"}}, floors...)
			added = true
		}
		for i, variant := range [][]byte{data, mustJSON(t, env)} {
			if i == 1 && !added {
				continue
			}
			path := filepath.Join(dir, filepath.Base(file))
			if err := os.WriteFile(path, variant, 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runBinIn(t, ".", []string{"NO_COLOR=1"}, "report", path)
			if code > ExitFail {
				t.Fatalf("%s: exit %d\n%s", file, code, stderr)
			}
			page, _, _ := runBinIn(t, ".", nil, "report", path, "--format", "html")
			for _, sec := range strings.Split(page, `<li class="case `)[1:] {
				if strings.HasPrefix(sec, "fail") && strings.Contains(sec, `pass</span> reliability floor`) {
					t.Errorf("%s (variant %d): the HTML report shows a passed floor in a failing case", file, i)
				}
			}
			for _, block := range caseBlocks(stdout) {
				if !strings.HasPrefix(block, "FAIL") {
					continue
				}
				blocks++
				seen := map[string]bool{}
				for _, l := range strings.Split(block, "\n") {
					switch {
					case strings.Contains(l, "[PASS]"):
						t.Errorf("%s (variant %d): a PASS under a FAIL:\n%s", file, i, block)
					case runLine.MatchString(l):
						t.Errorf("%s (variant %d): a failing run's checks listed twice:\n%s", file, i, block)
					case strings.Contains(l, ": assertion #") && seen[l]:
						t.Errorf("%s (variant %d): %q printed twice", file, i, l)
					}
					seen[l] = true
				}
			}
		}
	}
	if blocks < 8 {
		t.Errorf("only %d failing cases rendered: the examples lost their failures", blocks)
	}
}

// caseBlocks splits a text report into its cases: each from its verdict
// line to the next, the summary left out.
func caseBlocks(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "PASS  ") || strings.HasPrefix(l, "FAIL  ") || strings.HasPrefix(l, "INCONCLUSIVE  ") {
			out = append(out, l)
		} else if len(out) > 0 && strings.HasPrefix(l, " ") {
			out[len(out)-1] += "\n" + l
		}
	}
	return out
}
