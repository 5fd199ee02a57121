// Package runnertest models how the GitHub Actions runner reads a step's
// log, for the tests of what mcptest prints under GITHUB_ACTIONS: which
// lines it would run as workflow commands. It is kept apart from the
// filter it checks (annotate.RunnerLog), so the two cannot share a mistake.
package runnertest

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var lineBreak = regexp.MustCompile(`\r\n|\n|\r`)

// Lines splits a log as the runner does: at LF, at CR and at CRLF.
func Lines(s string) []string { return lineBreak.Split(s, -1) }

// Commands lists the commands the runner would run in out: the name of
// each `::name ...::` line (after leading white space) and "legacy:name"
// for each `##[name ...]` anywhere in a line.
func Commands(out string) []string {
	var names []string
	for _, l := range Lines(out) {
		t := strings.TrimLeftFunc(l, unicode.IsSpace)
		if rest, ok := strings.CutPrefix(t, "::"); ok {
			if info, _, ok := strings.Cut(rest, "::"); ok {
				name, _, _ := strings.Cut(info, " ")
				names = append(names, name)
				continue
			}
		}
		if _, rest, ok := strings.Cut(l, "##["); ok {
			if info, _, ok := strings.Cut(rest, "]"); ok {
				name, _, _ := strings.Cut(info, " ")
				names = append(names, "legacy:"+name)
			}
		}
	}
	return names
}

// CheckOwnCommands fails t when out holds a command mcptest does not emit
// (only error, warning, notice and add-mask are its own), or a command
// line that carries the text "forged", which the tests plant in recorded
// strings.
func CheckOwnCommands(t testing.TB, out string) {
	t.Helper()
	for _, n := range Commands(out) {
		if n != "error" && n != "warning" && n != "notice" && n != "add-mask" {
			t.Errorf("the runner would run %q:\n%s", n, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "::") && strings.Contains(l, "forged") {
			t.Errorf("a command carries the forged text: %q", l)
		}
	}
}
