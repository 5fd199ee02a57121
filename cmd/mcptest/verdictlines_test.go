package main

import (
	"encoding/json"
	"fmt"
	"html"
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
				checkOnce(t, fmt.Sprintf("%s (variant %d)", file, i), block)
				// The same failure reads the same in the HTML report: what
				// each line under the case says is on the page.
				text := readerText(page)
				for _, l := range strings.Split(block, "\n")[1:] {
					if w := lineWords(l); !strings.HasPrefix(w, "reliability:") && !selectionRow.MatchString(l) && !strings.Contains(text, w) {
						t.Errorf("%s (variant %d): the HTML report lacks the text report's %q", file, i, w)
					}
				}
			}
		}
	}
	if blocks < 8 {
		t.Errorf("only %d failing cases rendered: the examples lost their failures", blocks)
	}
}

var (
	tags   = regexp.MustCompile(`<[^>]*>`)
	spaces = regexp.MustCompile(`\s+`)
	// selectionRow is a tool_selection: run row, a row of the page's runs
	// table.
	selectionRow = regexp.MustCompile(` #\d+  (pass|miss)  `)
	location     = regexp.MustCompile(`^(error: |warning: |info: )?(\S+:\d+:\d+: )?`)
)

// readerText is an HTML page's text as a reader sees it: tags dropped,
// entities decoded, white space collapsed, backticks (code spans on the
// page) dropped.
func readerText(page string) string {
	return strings.ReplaceAll(spaces.ReplaceAllString(html.UnescapeString(tags.ReplaceAllString(page, "")), " "), "`", "")
}

// lineWords is what a line of the text report says past its level and
// location, which the HTML report shows in elements of their own, in the
// form of readerText.
func lineWords(l string) string {
	l = location.ReplaceAllString(strings.TrimSpace(l), "")
	return strings.ReplaceAll(spaces.ReplaceAllString(l, " "), "`", "")
}

// runRow is a run listed with the checks it failed ("weather #3  fail
// assertion #0 ..."), which the checks' own evidence says once.
var runRow = regexp.MustCompile(` #\d+  fail  `)

// checkOnce holds a FAIL block of the text report to one verdict per
// line: no [PASS], no run listed with the checks it failed, no check
// (a line at the block's first indent) printed twice, and no evidence
// line printed twice under one check.
func checkOnce(t *testing.T, what, block string) {
	t.Helper()
	heads, under := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(block, "\n")[1:] {
		switch {
		case strings.Contains(l, "[PASS]"):
			t.Errorf("%s: a PASS under a FAIL:\n%s", what, block)
		case runRow.MatchString(l):
			t.Errorf("%s: a failing run's checks listed again:\n%s", what, block)
		case strings.HasPrefix(l, "       "): // evidence, under the check above it
			if under[l] {
				t.Errorf("%s: %q printed twice under one check:\n%s", what, l, block)
			}
			under[l] = true
		default:
			if heads[l] {
				t.Errorf("%s: %q printed twice:\n%s", what, l, block)
			}
			heads[l], under = true, map[string]bool{}
		}
	}
}

// TestCheckOnce: the checks of TestOneVerdictPerCase catch what they
// name.
func TestCheckOnce(t *testing.T) {
	for block, bad := range map[string]bool{
		"FAIL  a\n      x.yml:1:1: assertion #0 failed\n        actual: 1\n        failed in runs 1 and 2 of 2": false,
		"FAIL  a\n      x.yml:1:1: assertion #0 failed\n      x.yml:1:1: assertion #0 failed":                   true,
		"FAIL  a\n      reliability floor [PASS] 3/3 runs passed":                                               true,
		"FAIL  a\n      a #2  fail  assertion #0 (`tool_names`)":                                                true,
		"FAIL  a\n      c1\n        run 2: x\n        run 2: x":                                                 true,
		"FAIL  a\n      c1\n        run 2: x\n      c2\n        run 2: x":                                       false,
	} {
		ft := &testing.T{}
		done := make(chan bool)
		go func() { defer close(done); checkOnce(ft, "block", block) }()
		<-done
		if ft.Failed() != bad {
			t.Errorf("checkOnce(%q) failed %v, want %v", block, ft.Failed(), bad)
		}
	}
}

// caseBlocks splits a text report into its cases: each from its verdict
// line to the next, the summary left out.
func caseBlocks(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "PASS  ") || strings.HasPrefix(l, "FAIL  ") || strings.HasPrefix(l, "INCONCLUSIVE  ") {
			out = append(out, l)
		} else if len(out) > 0 && strings.HasPrefix(l, "      ") {
			out[len(out)-1] += "\n" + l
		}
	}
	return out
}
