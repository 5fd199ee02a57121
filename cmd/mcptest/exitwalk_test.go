package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// verdictExit is the code a command that judges a run exits on env.
func verdictExit(env *report.Envelope) int {
	if env.Verdict == report.Fail {
		return ExitFail
	}
	return ExitOK
}

// judging are the subcommands that judge what they read and exit 1 on a
// failure; every other subcommand renders, lists or serves, and the README
// names it so under its exit-code table.
var judging = []string{"run", "validate", "scenario", "report", "action", "doctor", "security", "tool-bench"}

// TestExitCodesEverySubcommand walks every subcommand of the built binary:
// --help exits 0 and an unknown flag 2 for each; each judging subcommand
// exits 0 on an input that passes and 1 (validate: 2) on one that fails,
// `report RUN.json` as `run` exited on the same run; and the README's list
// of the subcommands that render without judging is exactly the others.
// (`action` exits on its mode's policy: TestProcess and TestActWorkflows
// hold it to its documented codes.)
func TestExitCodesEverySubcommand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	bin, dir := processBin(t), t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	exit := func(t *testing.T, wd string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = wd
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "MCPTEST_DIR=" + filepath.Join(dir, "store"), "NO_COLOR=1"}
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	var names []string
	for _, sc := range (&Command{}).subcommands() {
		names = append(names, sc.name)
		if code, out := exit(t, root, sc.name, "--help"); code != ExitOK {
			t.Errorf("%s --help: exit %d\n%s", sc.name, code, out)
		}
		if code, out := exit(t, root, sc.name, "--no-such-flag"); code != ExitInput {
			t.Errorf("%s --no-such-flag: exit %d, want %d\n%s", sc.name, code, ExitInput, out)
		}
	}
	pass, fail := filepath.Join(dir, "pass.json"), filepath.Join(dir, "fail.json")
	broken := filepath.Join(dir, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, ".mcp.json"), []byte(`{"mcpServers": {"gone": {"command": "/nonexistent/mcp-server"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "bad.yml"), []byte("agents: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		wd   string
		args []string
		want int
	}{
		{root, []string{"run", "examples/quickstart/suite.yml", "--format", "json", "--output", pass}, ExitOK},
		{root, []string{"run", "examples/selection-f1/suite.yml", "--format", "json", "--output", fail}, ExitFail},
		{root, []string{"report", pass}, ExitOK},
		{root, []string{"report", fail}, ExitFail},
		{root, []string{"report", fail, "--format", "html", "--output", filepath.Join(dir, "fail.html")}, ExitFail},
		{root, []string{"report", fail, "--compare", fail}, ExitOK}, // no flip: --fail-on regressions passes
		{root, []string{"report", fail, "--compare", pass}, ExitFail},
		{root, []string{"report", "merge", fail}, ExitOK}, // renders the merged run, judges nothing
		{root, []string{"history", pass, fail}, ExitOK},   // renders the window, judges nothing
		{root, []string{"scenario", "run", "examples/scenario-world/suite.yml"}, ExitOK},
		{root, []string{"scenario", "run", "examples/scenario-world-failing/suite.yml"}, ExitFail},
		{root, []string{"validate", "examples/quickstart/suite.yml"}, ExitOK},
		{root, []string{"validate", filepath.Join(broken, "bad.yml")}, ExitInput},
		{root, []string{"validate", "examples/quickstart"}, ExitOK}, // a directory names its suite.yml
		{root, []string{"run", "examples/quickstart"}, ExitOK},
		{root, []string{"validate", dir}, ExitInput}, // a directory without a suite
		{root, []string{"security", "--catalog", "examples/tool-quality/catalog.yml"}, ExitOK},
		{root, []string{"security", "--catalog", "examples/description-security/catalog.yml"}, ExitFail},
		{root, []string{"doctor", "--lint-descriptions", "--catalog", "examples/tool-quality/catalog.yml"}, ExitOK},
		{broken, []string{"doctor"}, ExitFail},
		{root, []string{"tool-bench", "run", "examples/tool-description-bench/spec.yml"}, ExitOK},
		{root, []string{"tool-bench", "run", "examples/tool-description-bench/spec.yml", "--min-drop", "1"}, ExitFail},
	} {
		if code, out := exit(t, tc.wd, tc.args...); code != tc.want {
			t.Errorf("%s: exit %d, want %d\n%.2000s", strings.Join(tc.args, " "), code, tc.want, out)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)render, list or serve without judging[^:]*: (.*?)\\.\n").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md does not list the subcommands that render without judging under its exit-code table")
	}
	var listed []string
	for _, w := range regexp.MustCompile("`([a-z-]+)`").FindAllSubmatch(m[1], -1) {
		listed = append(listed, string(w[1]))
	}
	var want []string
	for _, n := range names {
		if !slices.Contains(judging, n) {
			want = append(want, n)
		}
	}
	want = append(want, "report merge")
	slices.Sort(want)
	listed = slices.Compact(slices.Sorted(slices.Values(append(listed, mergeWord(m[1])...))))
	if !slices.Equal(listed, want) {
		t.Errorf("README.md lists as rendering without judging\n%q\nwant every subcommand but %q:\n%q", listed, judging, want)
	}
}

// mergeWord is "report merge" when the list names it.
func mergeWord(list []byte) []string {
	if strings.Contains(string(list), "`report merge`") {
		return []string{"report merge"}
	}
	return nil
}
