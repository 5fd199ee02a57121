//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// frameworkCorpus is where the outputs the agent frameworks wrote are
// (engine/cassette/testdata/frameworks records them).
const frameworkCorpus = "../../engine/cassette/testdata/"

// TestProcessFrameworkRecordings runs the built binary on what the agent
// frameworks wrote: a recording that reads as runs without calls while it
// names tools is refused by every command that reads recordings (exit 2,
// file:line:col, its shape and that no reader takes it), never passed as
// valid; one that reads says which reader read it and what it read.
func TestProcessFrameworkRecordings(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	spans, err := filepath.Abs(frameworkCorpus + "err/ai_sdk_spans.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"validate", spans},
		{"validate", "--format", "json", spans},
		{"generate", "agent-suite", "--from", spans},
	} {
		stdout, stderr, code := runProc(t, procSpec{args: args, dir: dir})
		out := stdout + stderr
		if code != ExitInput {
			t.Errorf("mcptest %s: exit %d, want %d\n%s", strings.Join(args, " "), code, ExitInput, out)
		}
		for _, want := range []string{spans + ":300:9", `holds an \"ai.toolCall\" span naming the tool \"get-sum\"`, "no reader of mcptest takes yet"} {
			if args[1] != "--format" {
				want = strings.ReplaceAll(want, `\"`, `"`)
			}
			if !strings.Contains(out, want) {
				t.Errorf("mcptest %s says nothing of %q:\n%s", strings.Join(args, " "), want, out)
			}
		}
		if strings.Contains(stdout, ": valid") {
			t.Errorf("mcptest %s called it valid:\n%s", strings.Join(args, " "), stdout)
		}
	}

	history, err := filepath.Abs(frameworkCorpus + "ok/openai_agents_history.json")
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", history}, dir: dir})
	want := history + ": valid\n  read as openai-responses: 1 run, 2 calls, 0 results, no tokens, no models, an answer in 1/1 runs, no agents\n"
	if code != ExitOK || stdout != want {
		t.Errorf("validate %s: exit %d\n%s%s\nwant\n%s", history, code, stdout, stderr, want)
	}
}
