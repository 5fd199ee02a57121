package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestExitCodeTables: the exit-code table is the same, row for row and word
// for word, in `mcptest --help`, the README and action.yml's description.
func TestExitCodeTables(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	help, _, code := mcptest(t, nil, "--help")
	if code != ExitOK {
		t.Fatalf("mcptest --help exited %d", code)
	}
	row := regexp.MustCompile(`(?m)^ *\| ([0-9]+) \| (.*) \|$`)
	for name, text := range map[string]string{"README.md": string(readme), "action.yml": string(action)} {
		var got []string
		for _, m := range row.FindAllStringSubmatch(text, -1) {
			got = append(got, m[1]+" "+m[2])
		}
		var want []string
		for code, meaning := range exitCodes {
			want = append(want, fmt.Sprintf("%d %s", code, meaning))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s's exit-code table:\n%s\nwant (exitCodes in command.go):\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if !strings.Contains(help, exitCodeTable()) || !strings.Contains(help, "  2  "+exitCodes[ExitInput]+"\n") {
		t.Errorf("mcptest --help lacks the exit-code table:\n%s", help)
	}
}
