package mcpserver

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/report"
)

// fakeMcptest writes, in a directory of its own, a shell script that
// stands in for the mcptest binary the writers spawn, and returns the
// script and its directory. It writes its arguments to args, one a line,
// then: `help` prints help (the record command listed unless norecord
// exists); `run` prints envelope.json, a line on stderr, and exits with
// the number in code (0 when none); `record` prints the line a listening
// proxy prints, or fails to start when nostart exists, and on an interrupt
// writes {} to its --output, prints 3,000 lines and a last one saying so,
// and exits with code (it writes its REC_K to env first).
func fakeMcptest(t *testing.T) (exe, dir string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in mcptest is a shell script")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for the stand-in mcptest")
	}
	dir = t.TempDir()
	script := `#!/bin/sh
d='` + dir + `'
printf '%s\n' "$@" > "$d/args"
code=0
[ -f "$d/code" ] && code=$(cat "$d/code")
case "$1" in
help)
	echo "Commands:"
	echo "  run       run a suite"
	[ -f "$d/norecord" ] || echo "  record    record a cassette"
	;;
run)
	cat "$d/envelope.json"
	echo "the run's own words" >&2
	exit "$code"
	;;
record)
	printf '%s' "$REC_K" > "$d/env"
	out=
	while [ $# -gt 0 ]; do
		[ "$1" = --output ] && out=$2
		shift
	done
	if [ -f "$d/nostart" ]; then
		echo "listen 127.0.0.1:0: refused" >&2
		exit 3
	fi
	trap 'printf "{}" > "$out"; i=0; while [ $i -lt 3000 ]; do echo "line $i of the last words of the proxy" >&2; i=$((i+1)); done; echo "wrote $out" >&2; exit $code' INT
	echo "recording; point the agent at http://127.0.0.1:4242/mcp now" >&2
	while :; do sleep 0.05; done
	;;
esac
`
	exe = filepath.Join(dir, "mcptest")
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe, dir
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// spawnArgs reads the arguments the stand-in was last given.
func spawnArgs(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "args"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestRunToolTestSpawnsTheRun: run_tool_test refuses an empty suite and
// one over maxSuite bytes (exactly maxSuite is run), keeps the inline
// suite at .mcptest/inline/<run id>.yml (removed when it does not
// validate), runs `mcptest run` on it and answers with its verdict, totals,
// one result a case (duration_ms where the envelope has it) and its
// failures, each pointing at the case's output resource by its unique
// slug; the envelope is stored under the run id. A run that exits 1 (a
// failing gate) is answered; one that exits otherwise, or prints no
// envelope, is an error carrying what it said.
func TestRunToolTestSpawnsTheRun(t *testing.T) {
	exe, dir := fakeMcptest(t)
	root := t.TempDir()
	valid := true
	ids := 0
	cs := inMemory(t, Options{Root: root, EnableWrites: true, Exe: exe,
		validate: func(name string, data []byte) (any, error) {
			return map[string]any{"valid": valid, "errors": []any{}}, nil
		},
		newRunID: func() string { ids++; return "01RUN" + strings.Repeat("0", 20) + string(rune('A'+ids)) },
	})
	env := report.Envelope{SchemaVersion: 1, Run: report.RunInfo{ID: "01OTHER", Mode: "replay"}, Verdict: report.Fail,
		Totals: report.Totals{Total: 3, Passed: 1, Failed: 2},
		Cases: []*report.CaseResult{
			{Name: "Echo check", Kind: report.KindTool, Verdict: report.Pass, Targets: map[string]float64{"duration_ms": 12}},
			{Name: "echo-check", Kind: report.KindTool, Verdict: report.Fail,
				Assertions: []report.AssertionResult{{Target: "result.isError", Passed: false, Message: "must not fail"}}},
			{Name: "!!!", Kind: report.KindTool, Verdict: report.Fail, Targets: map[string]float64{"duration_ms": 0},
				Assertions: []report.AssertionResult{{Target: "result.content", Passed: false, Message: "wrong text"}}},
		}}
	data, err := json.Marshal(&env)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "envelope.json"), string(data))
	writeFile(t, filepath.Join(dir, "code"), "1")
	suite := "servers:\n  s: {command: [x]}\ntools:\n  - name: t\n    server: s\n    tool: t\n"

	id := "01RUN" + strings.Repeat("0", 20) + "B"
	checkRunToolTestAnswer(t, cs, dir, root, suite, id)
	checkRunToolTestRefusals(t, cs, dir, root, suite, env, &valid, &ids)
}

// checkRunToolTestAnswer calls run_tool_test on suite, which the stand-in
// in dir runs to the envelope of TestRunToolTestSpawnsTheRun, and holds
// the answer, the spawned command, the inline suite and the stored
// envelope to the run id id.
func checkRunToolTestAnswer(t *testing.T, cs *mcp.ClientSession, dir, root, suite, id string) {
	t.Helper()
	text, isErr := callWithin(t, cs, "run_tool_test", map[string]any{"suite": suite})
	if isErr {
		t.Fatalf("run_tool_test: %s", text)
	}
	var out runToolTestOut
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	rel := ".mcptest/inline/" + id + ".yml"
	if out.Verdict != report.Fail || out.RunID != id || out.Suite != rel || out.Total != 3 || out.Passed != 1 || out.Failed != 2 || out.Inconclusive != 0 {
		t.Errorf("answer %+v", out)
	}
	if got, want := spawnArgs(t, dir), []string{"run", "--config", rel, "--format", "json"}; !slices.Equal(got, want) {
		t.Errorf("spawned %q, want %q", got, want)
	}
	checkRunToolTestCases(t, out, id, rel)
	if got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))); err != nil || string(got) != suite {
		t.Errorf("the inline suite kept: %q, %v", got, err)
	}
	stored, err := os.ReadFile(filepath.Join(root, ".mcptest", "runs", id+".json"))
	var st report.Envelope
	if err != nil || json.Unmarshal(stored, &st) != nil || st.Run.ID != id || len(st.Cases) != 3 {
		t.Errorf("stored envelope: %v %.200s", err, stored)
	}
}

// checkRunToolTestCases holds the answer's results and failures to the
// envelope of TestRunToolTestSpawnsTheRun: one result a case, with its
// duration_ms where it has one (0 included), and each failure pointing at
// its case's output by the case's unique slug.
func checkRunToolTestCases(t *testing.T, out runToolTestOut, id, rel string) {
	t.Helper()
	if len(out.Results) != 3 || out.Results[0].Name != "Echo check" || out.Results[0].DurationMS == nil || *out.Results[0].DurationMS != 12 ||
		out.Results[1].DurationMS != nil || out.Results[1].Verdict != report.Fail || out.Results[2].DurationMS == nil || *out.Results[2].DurationMS != 0 {
		t.Errorf("results %+v", out.Results)
	}
	wantFull := []string{"mcptest://runs/" + id + "/tests/echo-check-2/output", "mcptest://runs/" + id + "/tests/test/output"}
	if len(out.Failures) != 2 || out.Failures[0].Full != wantFull[0] || out.Failures[1].Full != wantFull[1] ||
		out.Failures[0].Test != "echo-check" || !strings.Contains(out.Failures[0].Repro, rel) {
		t.Errorf("failures %+v, want full %q", out.Failures, wantFull)
	}
}

// checkRunToolTestRefusals holds run_tool_test to its answers beside a
// failing run: a passing run, a run that exits 2 or prints no envelope,
// a suite of exactly maxSuite bytes and one over, an empty one, and one
// that does not validate (whose inline file is removed).
func checkRunToolTestRefusals(t *testing.T, cs *mcp.ClientSession, dir, root, suite string, env report.Envelope, valid *bool, ids *int) {
	t.Helper()
	// A passing run answers an empty list of failures, not null.
	env.Verdict, env.Totals, env.Cases = report.Pass, report.Totals{Total: 1, Passed: 1}, env.Cases[:1]
	data, _ := json.Marshal(&env)
	writeFile(t, filepath.Join(dir, "envelope.json"), string(data))
	writeFile(t, filepath.Join(dir, "code"), "0")
	if text, isErr := callWithin(t, cs, "run_tool_test", map[string]any{"suite": suite}); isErr || !strings.Contains(text, `"failures":[]`) {
		t.Errorf("a passing run: %s", text)
	}

	for _, c := range []struct {
		code, envelope, want string
	}{
		{"2", string(data), "exited 2: the run's own words"},
		{"0", "not json", "read its envelope"},
	} {
		writeFile(t, filepath.Join(dir, "code"), c.code)
		writeFile(t, filepath.Join(dir, "envelope.json"), c.envelope)
		if text, isErr := callWithin(t, cs, "run_tool_test", map[string]any{"suite": suite}); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("a run exiting %s printing %.10q: %s, want %q", c.code, c.envelope, text, c.want)
		}
	}

	writeFile(t, filepath.Join(dir, "code"), "0")
	writeFile(t, filepath.Join(dir, "envelope.json"), string(data))
	long := suite + "#" + strings.Repeat("x", maxSuite-len(suite)-2) + "\n"
	if text, isErr := callWithin(t, cs, "run_tool_test", map[string]any{"suite": long}); isErr {
		t.Errorf("a suite of exactly %d bytes: %s", len(long), text)
	}
	for _, c := range []struct{ suite, want string }{
		{"", "suite is required"},
		{" \n\t", "suite is required"},
		{long + "#", "the limit is 1048576"},
	} {
		if text, isErr := callWithin(t, cs, "run_tool_test", map[string]any{"suite": c.suite}); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("suite of %d bytes: %.200s, want %q", len(c.suite), text, c.want)
		}
	}

	*valid = false
	before := *ids
	text, isErr := callWithin(t, cs, "run_tool_test", map[string]any{"suite": suite})
	if !isErr || !strings.Contains(text, "not valid") {
		t.Errorf("an invalid suite: %s", text)
	}
	refused := ".mcptest/inline/01RUN" + strings.Repeat("0", 20) + string(rune('A'+before+1)) + ".yml"
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(refused))); !os.IsNotExist(err) {
		t.Errorf("the invalid suite was kept at %s: %v", refused, err)
	}
}

// TestTriggerRunSuiteAndFilters: trigger_run runs the suite it is given,
// else mcptest.yml, else suite.yml, passes each filter as --filter, and
// answers with the run's verdict, totals and where it stored the
// envelope.
func TestTriggerRunSuiteAndFilters(t *testing.T) {
	exe, dir := fakeMcptest(t)
	root := t.TempDir()
	cs := inMemory(t, Options{Root: root, EnableWrites: true, Exe: exe, newRunID: func() string { return "01TRIGGER" }})
	env := report.Envelope{SchemaVersion: 1, Verdict: report.Pass, Totals: report.Totals{Total: 2, Passed: 2}}
	data, _ := json.Marshal(&env)
	writeFile(t, filepath.Join(dir, "envelope.json"), string(data))
	for _, c := range []struct {
		files  []string
		in     map[string]any
		config string
		extra  []string
	}{
		{nil, map[string]any{}, "suite.yml", nil},
		{[]string{"suite.yml"}, map[string]any{}, "suite.yml", nil},
		{[]string{"mcptest.yml", "suite.yml"}, map[string]any{}, "mcptest.yml", nil},
		{[]string{"mcptest.yml"}, map[string]any{"config": "other.yml"}, "other.yml", nil},
		{[]string{"mcptest.yml"}, map[string]any{"filter": []string{"a", "b c"}}, "mcptest.yml", []string{"--filter", "a", "--filter", "b c"}},
	} {
		for _, f := range []string{"mcptest.yml", "suite.yml"} {
			os.Remove(filepath.Join(root, f))
		}
		for _, f := range c.files {
			writeFile(t, filepath.Join(root, f), "servers: {}\n")
		}
		text, isErr := callWithin(t, cs, "trigger_run", c.in)
		if isErr {
			t.Fatalf("trigger_run %v with %v: %s", c.in, c.files, text)
		}
		want := append([]string{"run", "--config", c.config, "--format", "json"}, c.extra...)
		if got := spawnArgs(t, dir); !slices.Equal(got, want) {
			t.Errorf("trigger_run %v with %v spawned %q, want %q", c.in, c.files, got, want)
		}
		var out struct {
			Verdict report.Verdict
			RunID   string `json:"run_id"`
			Suite   string
			Totals  report.Totals
			Stored  string
		}
		if err := json.Unmarshal([]byte(text), &out); err != nil || out.Verdict != report.Pass || out.RunID != "01TRIGGER" ||
			out.Suite != c.config || out.Totals.Passed != 2 || out.Stored != ".mcptest/runs/01TRIGGER.json" {
			t.Errorf("trigger_run %v: %s (%v)", c.in, text, err)
		}
	}
}

// TestRecordCassetteStartsAndStops: record_cassette needs an output ending
// in .json and an mcptest whose help lists record; it starts `mcptest
// record --listen 127.0.0.1:0` with the output, --append and --agent when
// asked and the target after --, and answers the endpoint the proxy
// prints; stop interrupts it and answers the output and its log, or the
// exit code it failed with; a proxy that exits before listening is an
// error with its words, and an unknown id is refused.
func TestRecordCassetteStartsAndStops(t *testing.T) {
	exe, dir := fakeMcptest(t)
	root := t.TempDir()
	n := 0
	cs := inMemory(t, Options{Root: root, EnableWrites: true, Exe: exe, newRunID: func() string { n++; return "01REC" + string(rune('0'+n)) }})
	target := []string{"node", "server.js"}

	checkRecordRefusals(t, cs, dir, target)

	for _, c := range []struct {
		in   map[string]any
		args []string
		code string
	}{
		{map[string]any{"command": target, "env": map[string]string{"REC_K": "v=1"}, "output": "cassettes/a.json"},
			[]string{"record", "--listen", "127.0.0.1:0", "--output", "cassettes/a.json", "--", "node", "server.js"}, "0"},
		{map[string]any{"command": target, "output": "b.json", "append": true, "agent": "claude"},
			[]string{"record", "--listen", "127.0.0.1:0", "--output", "b.json", "--append", "--agent", "claude", "--", "node", "server.js"}, "0"},
		{map[string]any{"url": "https://mcp.example.com/mcp", "bearer_token_env": "TOK", "output": "u.json"},
			[]string{"record", "--listen", "127.0.0.1:0", "--output", "u.json", "--url", "https://mcp.example.com/mcp", "--bearer-token-env", "TOK"}, "0"},
		{map[string]any{"url": "https://mcp.example.com/mcp", "output": "v.json"},
			[]string{"record", "--listen", "127.0.0.1:0", "--output", "v.json", "--url", "https://mcp.example.com/mcp"}, "4"},
	} {
		writeFile(t, filepath.Join(dir, "code"), c.code)
		text, isErr := callWithin(t, cs, "record_cassette", c.in)
		if isErr {
			t.Fatalf("record_cassette %v: %s", c.in, text)
		}
		var started struct {
			RecordingID string `json:"recording_id"`
			Endpoint    string
			Output      string
		}
		if err := json.Unmarshal([]byte(text), &started); err != nil || started.Endpoint != "http://127.0.0.1:4242/mcp" || started.Output != c.in["output"] || started.RecordingID == "" {
			t.Fatalf("record_cassette %v: %s (%v)", c.in, text, err)
		}
		if got := spawnArgs(t, dir); !slices.Equal(got, c.args) {
			t.Errorf("record_cassette %v spawned %q, want %q", c.in, got, c.args)
		}
		wantEnv := ""
		if env, ok := c.in["env"].(map[string]string); ok {
			wantEnv = env["REC_K"]
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "env")); string(got) != wantEnv {
			t.Errorf("record_cassette %v: the proxy's REC_K is %q, want %q", c.in, got, wantEnv)
		}
		text, isErr = callWithin(t, cs, "record_cassette", map[string]any{"stop": started.RecordingID})
		if c.code != "0" {
			if !isErr || !strings.Contains(text, "exited "+c.code+": ") || !strings.Contains(text, "wrote v.json") {
				t.Errorf("stop of a proxy exiting %s: %s", c.code, text)
			}
			continue
		}
		var stopped struct{ Output, Log string }
		if err := json.Unmarshal([]byte(text), &stopped); isErr || err != nil || stopped.Output != c.in["output"] ||
			!strings.HasPrefix(stopped.Log, "recording; point the agent at") || !strings.HasSuffix(stopped.Log, "wrote "+stopped.Output) {
			t.Errorf("stop %s: %s", started.RecordingID, text)
		}
		if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(stopped.Output))); err != nil || string(b) != "{}" {
			t.Errorf("the cassette %s: %q, %v", stopped.Output, b, err)
		}
		if text, isErr := callWithin(t, cs, "record_cassette", map[string]any{"stop": started.RecordingID}); !isErr || !strings.Contains(text, "no running recording") {
			t.Errorf("a second stop: %s", text)
		}
	}
}

// checkRecordRefusals holds record_cassette to its refusals: no output or
// one not ending in .json, no target, an unknown recording to stop, an
// mcptest whose help lists no record command, and a proxy that exits
// before it listens (its words in the error).
func checkRecordRefusals(t *testing.T, cs *mcp.ClientSession, dir string, target []string) {
	t.Helper()
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"command": target}, "output is required"},
		{map[string]any{"command": target, "output": "c.txt"}, "output is required"},
		{map[string]any{"output": "c.json"}, "no target"},
		{map[string]any{"stop": "nope"}, `no running recording "nope"`},
	} {
		if text, isErr := callWithin(t, cs, "record_cassette", c.in); !isErr || !strings.Contains(text, c.want) {
			t.Errorf("record_cassette %v: %s, want %q", c.in, text, c.want)
		}
	}

	writeFile(t, filepath.Join(dir, "norecord"), "")
	if text, isErr := callWithin(t, cs, "record_cassette", map[string]any{"command": target, "output": "c.json"}); !isErr || !strings.Contains(text, "not available") {
		t.Errorf("an mcptest without record: %s", text)
	}
	os.Remove(filepath.Join(dir, "norecord"))

	writeFile(t, filepath.Join(dir, "nostart"), "")
	if text, isErr := callWithin(t, cs, "record_cassette", map[string]any{"command": target, "output": "c.json"}); !isErr || !strings.Contains(text, "did not start: listen 127.0.0.1:0: refused") {
		t.Errorf("a proxy that does not start: %s", text)
	}
	os.Remove(filepath.Join(dir, "nostart"))
}
