package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runBinIn runs the built binary in dir with the environment a user's shell
// gives (PATH, HOME, a store of its own) and env over it, and returns its
// stdout, stderr and exit code.
func runBinIn(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(mcptestBin(t), args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MCPTEST_DIR=" + t.TempDir()}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// TestFormatOneVocabulary: every command renders by --format with the same
// words; pretty is text, run's --reporter and scenario's and tool-bench's
// --json are the old spellings of --format, and a flag that is a format
// suggests --format.
func TestFormatOneVocabulary(t *testing.T) {
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	quick, catalog := abs("../../examples/quickstart/suite.yml"), abs("testdata/live/catalog.yml")
	dir := t.TempDir()
	same := [][2][]string{
		{{"run", quick}, {"run", quick, "--format", "text"}},
		{{"run", quick, "--format", "pretty"}, {"run", quick, "--reporter", "text"}},
		{{"validate", quick, "--format", "pretty"}, {"validate", quick, "--format", "text"}},
		{{"tools", "--catalog", catalog, "--format", "pretty"}, {"tools", "--catalog", catalog}},
		{{"security", "--catalog", catalog, "--format", "pretty"}, {"security", "--catalog", catalog, "--format", "text"}},
		{{"doctor", "--lint-descriptions", "--catalog", catalog, "--format", "json"}, {"doctor", "--lint-descriptions", "--catalog", catalog, "--format", "json"}},
	}
	for _, p := range same {
		a, errA, codeA := runBinIn(t, dir, nil, p[0]...)
		b, _, codeB := runBinIn(t, dir, nil, p[1]...)
		if a != b || codeA != codeB || codeA > 1 || a == "" {
			t.Errorf("%v (exit %d) and %v (exit %d) differ:\n%s\n---\n%s%s", p[0], codeA, p[1], codeB, a, b, errA)
		}
	}
	scenario := abs("../../examples/scenario-world/suite.yml")
	for _, args := range [][]string{{"scenario", "run", scenario, "--json"}, {"scenario", "run", scenario, "--format", "json"}} {
		out, stderr, code := runBinIn(t, dir, nil, args...)
		var env struct {
			SchemaVersion int `json:"schema_version"`
		}
		if err := json.Unmarshal([]byte(out), &env); err != nil || env.SchemaVersion != 1 || code != 0 {
			t.Errorf("%v: exit %d, not an envelope (%v): %s%s", args, code, err, out, stderr)
		}
	}
	for args, want := range map[string]string{
		"run --html":                "unknown flag --html (did you mean --format html?); 'mcptest help run' lists its flags",
		"validate --json":           "unknown flag --json (did you mean --format json?)",
		"run --format htm":          `--format "htm": expected one of text, json, junit, sarif, html, agent (did you mean html?)`,
		"tools --format junit":      `--format "junit": expected one of text, json;`,
		"run --output xml=x.xml":    "xml=: expected FORMAT=FILE with FORMAT one of text, json, junit, sarif, html, agent",
		"run --output a --output b": "a second FILE (after a): give FORMAT=FILE for each report beyond the --format one",
	} {
		_, stderr, code := runBinIn(t, dir, nil, strings.Fields(args)...)
		if code != ExitInput || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
			t.Errorf("mcptest %s: exit %d, stderr %q, want one line with %q", args, code, stderr, want)
		}
	}
}

// TestOutputFormatFile: every --output FORMAT=FILE of a run is, byte for
// byte, what --format FORMAT --output FILE writes in the same run, written
// by rename (an existing file is replaced, not rewritten in place); a json
// report beside an html one is the envelope `mcptest report` renders the
// same page from.
func TestOutputFormatFile(t *testing.T) {
	suite, _ := filepath.Abs("../../examples/quickstart/suite.yml")
	dir := t.TempDir()
	for _, format := range []string{"text", "json", "junit", "sarif", "html", "agent"} {
		main, extra := filepath.Join(dir, "main."+format), filepath.Join(dir, "out", "extra."+format)
		if err := os.MkdirAll(filepath.Dir(extra), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(extra, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		before, _ := os.Stat(extra)
		_, stderr, code := runBinIn(t, dir, []string{"GITHUB_ACTIONS=true", "CI=true"}, "run", suite, "--format", format, "--output", main, "--output", format+"="+extra)
		if code != ExitOK || !strings.Contains(stderr, format+" report written to "+extra) {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		a, _ := os.ReadFile(main)
		b, _ := os.ReadFile(extra)
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: --output %[1]s=FILE wrote %d bytes, --format %[1]s --output FILE %d, not the same", format, len(b), len(a))
		}
		if after, _ := os.Stat(extra); os.SameFile(before, after) {
			t.Errorf("%s: the existing file was written in place, not replaced by rename", format)
		}
	}
	page, envelope, rerendered := filepath.Join(dir, "run.html"), filepath.Join(dir, "run.json"), filepath.Join(dir, "again.html")
	if _, stderr, code := runBinIn(t, dir, nil, "run", suite, "--format", "html", "--output", page, "--output", "json="+envelope); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, stderr, code := runBinIn(t, dir, nil, "report", envelope, "--format", "html", "--output", rerendered); code != ExitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(page)
	b, _ := os.ReadFile(rerendered)
	if !bytes.Equal(a, b) {
		t.Errorf("the run's page (%d bytes) is not the page its json report renders (%d bytes)", len(a), len(b))
	}
}
