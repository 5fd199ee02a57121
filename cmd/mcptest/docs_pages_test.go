package main

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestAgentsPageVerbs: the verb table of docs/agents.md names every verb the
// front door serves, and only those.
func TestAgentsPageVerbs(t *testing.T) {
	data, err := os.ReadFile("../../docs/agents.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "| verb | group | answers |\n")
	if !ok {
		t.Fatal("docs/agents.md has no `| verb | group | answers |` table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	name := regexp.MustCompile("`([a-z_]+)`")
	var documented []string
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(row, " | ")
		for _, m := range name.FindAllStringSubmatch(cells[0], -1) {
			documented = append(documented, m[1])
		}
	}
	var served []string
	for _, v := range frontDoorVerbList(t) {
		served = append(served, v.Name)
	}
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Errorf("docs/agents.md's verb table names\n  %s\nthe front door serves\n  %s", strings.Join(documented, " "), strings.Join(served, " "))
	}
}

// TestCommandsPage: the command table of docs/commands.md has a row for
// every command mcptest has, and no row for one it lacks.
func TestCommandsPage(t *testing.T) {
	data, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `mcptest ([a-z|\\\\-]+)")
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(data), -1) {
		for _, name := range strings.Split(m[1], `\|`) {
			documented[name] = true
		}
	}
	c := &Command{Getenv: func(string) string { return "" }}
	for _, sc := range c.subcommands() {
		if !documented[sc.name] {
			t.Errorf("docs/commands.md has no row for `mcptest %s`", sc.name)
		}
		delete(documented, sc.name)
	}
	for _, name := range slices.Sorted(maps.Keys(documented)) {
		t.Errorf("docs/commands.md documents `mcptest %s`, which is no command", name)
	}
}

// TestCommandsPageFlags: every flag a command (or a kind of it, such as
// generate suite) shows in its help is named in docs/commands.md.
func TestCommandsPageFlags(t *testing.T) {
	data, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	c := &Command{Getenv: func(string) string { return "" }}
	for _, sc := range c.subcommands() {
		if sc.name == "help" || sc.name == "completion" {
			continue
		}
		kinds := completionWords[sc.name]
		if kinds == nil {
			kinds = []string{""}
		}
		for _, kind := range kinds {
			args := []string{"help", sc.name}
			if kind != "" {
				args = append(args, kind)
			}
			help, _, _ := mcptest(t, nil, args...)
			for _, m := range flagHelp.FindAllStringSubmatch(help, -1) {
				if !regexp.MustCompile(`--` + m[1] + `\b`).MatchString(page) {
					t.Errorf("docs/commands.md does not name `mcptest %s`'s flag --%s", strings.Join(args[1:], " "), m[1])
				}
			}
		}
	}
}
