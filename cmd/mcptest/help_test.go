package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// helpFlag is one flag line of a help text: "  --name VALUE".
var helpFlag = regexp.MustCompile(`(?m)^  --([a-z][a-z0-9-]*)(?: (\S+))?$`)

// TestHelp: every command's --help goes to stdout with exit 0, shows its
// flags as --flag with a placeholder word, and `mcptest help CMD` prints the
// same text.
func TestHelp(t *testing.T) {
	stdout, stderr, code := mcptest(t, nil, "--help")
	if code != ExitOK || stderr != "" || !strings.Contains(stdout, "commands:") {
		t.Fatalf("mcptest --help: exit %d, stderr %q", code, stderr)
	}
	for _, name := range (&Command{}).commandNames() {
		if name == "help" {
			continue
		}
		stdout, stderr, code := mcptest(t, nil, name, "--help")
		if code != ExitOK || stderr != "" || !strings.HasPrefix(stdout, "usage: mcptest "+name) {
			t.Errorf("mcptest %s --help: exit %d, stderr %q, stdout %q", name, code, stderr, stdout)
			continue
		}
		for _, m := range helpFlag.FindAllStringSubmatch(stdout, -1) {
			if m[2] != "" && !regexp.MustCompile(`^[A-Za-z][A-Za-z0-9./|:_-]*$`).MatchString(m[2]) {
				t.Errorf("mcptest %s --help: --%s has the placeholder %q", name, m[1], m[2])
			}
		}
		viaHelp, _, code := mcptest(t, nil, "help", name)
		if code != ExitOK || viaHelp != stdout {
			t.Errorf("mcptest help %s (exit %d) differs from mcptest %s --help:\n%s", name, code, name, viaHelp)
		}
	}
}

// TestHelpListsFlags pins the flags the help of the commands with
// sub-kinds lists, and that record and generate, which need a live server,
// do not advertise --catalog.
func TestHelpListsFlags(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		want, lack []string
	}{
		{[]string{"generate", "--help"}, []string{"probe", "tool", "cursor", "no-edge", "no-violation", "output", "url", "server"}, []string{"catalog"}},
		{[]string{"generate", "suite", "--help"}, []string{"probe", "tool"}, []string{"catalog"}},
		{[]string{"help", "generate", "eval"}, []string{"tool", "cursor"}, []string{"probe", "catalog"}},
		{[]string{"record", "--help"}, []string{"output", "append", "url", "server"}, []string{"catalog"}},
		{[]string{"scenario", "--help"}, []string{"name", "cassette-dir", "json"}, nil},
		{[]string{"tool-bench", "--help"}, []string{"min-drop", "json"}, nil},
		{[]string{"run", "--help"}, []string{"cassette-dir", "filter", "shard", "reporter"}, nil},
	} {
		stdout, stderr, code := mcptest(t, nil, tc.args...)
		if code != ExitOK || stderr != "" {
			t.Errorf("mcptest %s: exit %d, stderr %q", strings.Join(tc.args, " "), code, stderr)
			continue
		}
		listed := map[string]bool{}
		for _, m := range helpFlag.FindAllStringSubmatch(stdout, -1) {
			listed[m[1]] = true
		}
		for _, f := range tc.want {
			if !listed[f] {
				t.Errorf("mcptest %s does not list --%s:\n%s", strings.Join(tc.args, " "), f, stdout)
			}
		}
		for _, f := range tc.lack {
			if listed[f] {
				t.Errorf("mcptest %s lists --%s, which it rejects", strings.Join(tc.args, " "), f)
			}
		}
	}
}

// TestFlagErrorHelp: a wrong flag is exit 2 with the error and the help on
// stderr (one line naming where the flags are listed), nothing on stdout.
func TestFlagErrorHelp(t *testing.T) {
	stdout, stderr, code := mcptest(t, nil, "run", "--bogus")
	if code != ExitInput || stdout != "" || !strings.Contains(stderr, "-bogus") || !strings.Contains(stderr, "mcptest help run") {
		t.Errorf("run --bogus: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestCompletion: each shell's script offers every command and the flags
// each command's help lists; the bash script is run in bash and completes
// a command, a kind and a flag.
func TestCompletion(t *testing.T) {
	table := (&Command{Getenv: func(string) string { return "" }}).completionTable()
	for _, shell := range completionShells {
		script, stderr, code := mcptest(t, nil, "completion", shell)
		if code != ExitOK || stderr != "" {
			t.Fatalf("completion %s: exit %d, stderr %q", shell, code, stderr)
		}
		for _, cc := range table {
			if !strings.Contains(script, cc.Name) {
				t.Errorf("completion %s lacks the command %s", shell, cc.Name)
			}
		}
		for _, flag := range []string{"--shard", "--cassette-dir", "--probe", "--min-drop", "--install"} {
			if !strings.Contains(script, strings.TrimPrefix(flag, "--")) {
				t.Errorf("completion %s lacks %s", shell, flag)
			}
		}
	}
	if _, _, code := mcptest(t, nil, "completion", "tcsh"); code != ExitInput {
		t.Errorf("completion tcsh: exit %d, want 2", code)
	}
	bash := checker(t, "bash", "bash", "apt-get install bash")
	script, _, _ := mcptest(t, nil, "completion", "bash")
	for _, tc := range []struct{ words, want string }{
		{"mcptest gen", "generate"},
		{"mcptest generate ''", "suite conformance redteam eval agent-suite"},
		{"mcptest run --sh", "--shard"},
		{"mcptest scenario run --na", "--name"},
	} {
		prog := script + "\nCOMP_WORDS=(" + tc.words + "); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _mcptest; echo \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command(bash, "-c", prog).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != tc.want {
			t.Errorf("bash completion of %q: %q (%v), want %q", tc.words, out, err, tc.want)
		}
	}
}

// TestCompletionGolden pins each shell's completion script byte for byte.
func TestCompletionGolden(t *testing.T) {
	for _, shell := range completionShells {
		script, stderr, code := mcptest(t, nil, "completion", shell)
		if code != ExitOK || stderr != "" {
			t.Fatalf("completion %s: exit %d, stderr %q", shell, code, stderr)
		}
		golden(t, "testdata/golden/completion/"+shell, script)
	}
}
