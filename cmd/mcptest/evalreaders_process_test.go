//go:build linux

package main

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessMastraLlamaInspect runs the built binary on what Mastra,
// LlamaIndex.TS and Inspect AI write (cassette/testdata records them):
// validate says which reader read each and what it read; a suite over
// each passes on the recorded call and fails when the agent called
// another tool; Inspect's .eval archive, named as a cassette or found in
// a cassette directory, gates its epochs as runs; a broken archive
// member and a zip bomb are refused with exit 2 at the file. Before
// these readers, Mastra's and LlamaIndex.TS's messages were read as a
// transcript of 0 calls and passed every gate, and an .eval was read as
// a YAML suite.
func TestProcessMastraLlamaInspect(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary")
	}
	dir := t.TempDir()
	validateNewReaders(t, dir)
	gateNewReaders(t, dir)
	gateInspectArchive(t, dir)
	refuseInspectArchives(t, dir)
}

// validateNewReaders: validate says which reader read each recording and
// what it read.
func validateNewReaders(t *testing.T, dir string) {
	for _, tt := range []struct{ file, want string }{
		{"mastra_result_messages.json", `read as mastra-messages: 1 run, 1 call, 1 result, no tokens, model "scripted-sum-1", an answer in 1/1 runs, no agents`},
		{"mastra_memory_messages.json", `read as mastra-messages: 1 run, 1 call, 1 result, no tokens, model "scripted-sum-1", an answer in 1/1 runs, no agents`},
		{"llamaindex_chat_messages.json", `read as llamaindex-messages: 1 run, 1 call, 1 result, no tokens, no models, an answer in 1/1 runs, no agents`},
		{"llamaindex_workflow_events.json", `read as llamaindex-events: 1 run, 1 call, 1 result, no tokens, model "scripted-sum-1", an answer in 1/1 runs, agent "sum_agent"`},
		{"llamaindex_handoff_chat_messages.json", `read as llamaindex-messages: 1 run, 1 call, 1 result, no tokens, no models, an answer in 1/1 runs, agent "sum_agent"`},
		{"llamaindex_handoff_workflow_events.json", `read as llamaindex-events: 1 run, 1 call, 1 result, no tokens, model "scripted-sum-1", an answer in 1/1 runs, agents "sum_agent", "triage"`},
		{"inspect_sum_log.json", `read as inspect-eval-log: 2 runs, 2 calls, 2 results, tokens in 2/2 runs (590 in all), model "gpt-4o-mini-2024-07-18", an answer in 2/2 runs, no agents`},
		{"inspect_sum.eval", `read as inspect-eval-log: 2 runs, 2 calls, 2 results, tokens in 2/2 runs (590 in all), model "gpt-4o-mini-2024-07-18", an answer in 2/2 runs, no agents`},
	} {
		file, err := filepath.Abs(frameworkCorpus + "ok/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", file}, dir: dir})
		if want := file + ": valid\n  " + tt.want + "\n"; code != ExitOK || stdout != want {
			t.Errorf("validate %s: exit %d\n%s%s\nwant\n%s", file, code, stdout, stderr, want)
		}
	}

}

// gateNewReaders: each recording gates on its call: the recorded tool
// passes, a regression that called echo instead fails.
func gateNewReaders(t *testing.T, dir string) {
	for _, tt := range []struct{ file, tool string }{
		{"mastra_result_messages.json", "everything_get-sum"},
		{"mastra_memory_messages.json", "everything_get-sum"},
		{"llamaindex_chat_messages.json", "get-sum"},
		{"llamaindex_workflow_events.json", "get-sum"},
		{"inspect_sum_log.json", "get-sum"},
	} {
		data, err := os.ReadFile(frameworkCorpus + "ok/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, variant := range []struct {
			tool string
			code int
		}{{tt.tool, ExitOK}, {"echo", ExitFail}} {
			rec := strings.ReplaceAll(string(data), `"`+tt.tool+`"`, `"`+variant.tool+`"`)
			if err := os.WriteFile(filepath.Join(dir, "rec.json"), []byte(rec), 0o644); err != nil {
				t.Fatal(err)
			}
			suite := "agents:\n  - name: fw\n    cassette: rec.json\n    expect:\n      - tool_names: { contains: " + tt.tool + " }\n      - calls[0].arguments.a: 2\n"
			if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite), 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml", "--no-cache"}, dir: dir})
			if code != variant.code {
				t.Errorf("%s calling %s: exit %d, want %d\n%s%s", tt.file, variant.tool, code, variant.code, stdout, stderr)
			}
		}
	}

}

// gateInspectArchive: the .eval archive in a cassette directory: its two
// epochs are the two runs the test asks for, with their tokens, and a
// suite drafted from the directory passes on it; the same log with the
// second epoch calling echo fails both.
func gateInspectArchive(t *testing.T, dir string) {
	evalData, err := os.ReadFile(frameworkCorpus + "ok/inspect_sum.eval")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "logs", "sum.eval"), evalData, 0o644); err != nil {
		t.Fatal(err)
	}
	suite := `agents:
  - name: inspect
    cassette: logs
    runs: 2
    expect:
      - calls[0].id: get-sum
      - tokens.total: { "<=": 295 }
`
	if err := os.WriteFile(filepath.Join(dir, "inspect.yml"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runProc(t, procSpec{args: []string{"generate", "agent-suite", "--from", "logs", "--output", "drafted.yml"}, dir: dir}); code != ExitOK {
		t.Errorf("generate agent-suite --from logs: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{{"validate", "inspect.yml"}, {"run", "--config", "inspect.yml", "--no-cache"}, {"run", "--config", "drafted.yml", "--no-cache"}} {
		stdout, stderr, code := runProc(t, procSpec{args: args, dir: dir})
		if code != ExitOK {
			t.Errorf("mcptest %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// The same log with the agent's second epoch calling echo fails it.
	wrong := rewriteMember(t, evalData, "samples/1_epoch_2.json", func(s string) string {
		return strings.ReplaceAll(s, `"function": "get-sum"`, `"function": "echo"`)
	})
	if err := os.WriteFile(filepath.Join(dir, "logs", "sum.eval"), wrong, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, suite := range []string{"inspect.yml", "drafted.yml"} {
		if stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", suite, "--no-cache"}, dir: dir}); code != ExitFail {
			t.Errorf("run %s on the regressed log: exit %d, want %d\n%s%s", suite, code, ExitFail, stdout, stderr)
		}
	}

}

// refuseInspectArchives: a member that is no JSON is refused at its line,
// a zip bomb at the file.
func refuseInspectArchives(t *testing.T, dir string) {
	broken, err := filepath.Abs(frameworkCorpus + "err/inspect_sample_syntax.eval")
	if err != nil {
		t.Fatal(err)
	}
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	for name, body := range map[string]string{
		"header.json":            `{"version": 2, "eval": {"task": "t", "model": "m"}}`,
		"samples/1_epoch_1.json": `{"id": 1, "epoch": 1, "messages": [], "pad": "` + strings.Repeat("0", 8<<20) + `"}`,
	} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	bombFile := filepath.Join(dir, "bomb.eval")
	if err := os.WriteFile(bombFile, bomb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		broken:   broken + ":6:3: in samples/1_epoch_1.json: invalid JSON",
		bombFile: bombFile + `:1:1: Inspect eval log archive: member "samples/1_epoch_1.json": it inflates`,
	} {
		stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", file}, dir: dir})
		if code != ExitInput || !strings.Contains(stdout+stderr, want) || strings.Contains(stdout, ": valid") {
			t.Errorf("validate %s: exit %d, want %d and %q\n%s%s", file, code, ExitInput, want, stdout, stderr)
		}
	}
}

// rewriteMember returns the zip archive data with the member name's
// content changed by f, the other members as they were.
func rewriteMember(t *testing.T, data []byte, name string, f func(string) string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	found := false
	for _, m := range zr.File {
		rc, err := m.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if m.Name == name {
			found = true
			changed := f(string(body))
			if changed == string(body) {
				t.Fatalf("the rewrite changed nothing in %s", name)
			}
			body = []byte(changed)
		}
		w, err := zw.Create(m.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil || !found {
		t.Fatalf("rewrite %s: %v (found %v)", name, err, found)
	}
	return out.Bytes()
}
