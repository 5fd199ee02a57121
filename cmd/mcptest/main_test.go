package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cli"
)

var update = flag.Bool("update", false, "rewrite golden files")

// mcptest runs the command in process, as a user runs the binary.
func mcptest(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	// The workspace store (.mcptest/) goes to a temporary directory unless
	// the test names one, so go test never writes into the repository.
	store := ""
	getenv := func(k string) string {
		if k == storeEnv && env[k] == "" {
			if store == "" {
				store = t.TempDir()
			}
			return store
		}
		if v, ok := env[k]; !ok && k == cacheMinEnv {
			// The cache's tests run the examples, whose cassettes are
			// below the default size; TestCacheMinBytes runs the default.
			return "0"
		} else {
			return v
		}
	}
	c := &Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: getenv, noGit: true}
	code = c.Main(args)
	return out.String(), errb.String(), code
}

var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`"id": "[0-9A-Z]{26}"`), `"id": "RUN-ID"`},
	{regexp.MustCompile(`"started_at": "[^"]*"`), `"started_at": "TIME"`},
	{regexp.MustCompile(`"duration_ms":( ?)\d+`), `"duration_ms":${1}0`},
	{regexp.MustCompile(`duration_ms=\d+`), `duration_ms=0`},
	{regexp.MustCompile(`<code>duration_ms</code> \d+`), `<code>duration_ms</code> 0`},
	{regexp.MustCompile(`"platform": "[^"]*"`), `"platform": "PLATFORM"`},
}

// normalize blanks the fields that differ between two runs over the same
// inputs: the run id, the start time and durations.
func normalize(s string) string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

// golden compares got with the file, or rewrites it under -update.
func golden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/mcptest -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test ./cmd/mcptest -update rewrites it)\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

// suiteCorpus is the suite corpus, kept beside the loader: ok/*.yml must
// validate, err/*.yml must be refused with the output of the .out beside
// each (engine's TestCorpusErr checks the loader against it; the tests
// here check the binary prints the same).
const suiteCorpus = "../../engine/testdata/"

var positioned = regexp.MustCompile(`(?m)^\.\./\.\./engine/testdata/err/[^:]+:\d+:\d+: `)

// TestErrCorpus runs every suite of the error corpus through `mcptest
// run`: each must be refused with exit code 2, nothing on stdout, and
// exactly the positioned errors of the .out beside it on stderr.
func TestErrCorpus(t *testing.T) {
	files, _ := filepath.Glob(suiteCorpus + "err/*.yml")
	if len(files) < 10 {
		t.Fatalf("only %d files in the error corpus", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			stdout, stderr, code := mcptest(t, nil, "run", "--config", f, "--reporter", "json")
			if code != ExitInput {
				t.Errorf("exit code %d, want %d\nstderr:\n%s", code, ExitInput, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout should be empty on invalid input, got:\n%s", stdout)
			}
			if !positioned.MatchString(stderr) {
				t.Errorf("errors do not name a file:line:col:\n%s", stderr)
			}
			want, err := os.ReadFile(strings.TrimSuffix(f, ".yml") + ".out")
			if err != nil {
				t.Fatal(err)
			}
			// The .out names the files from the engine directory.
			if w := strings.ReplaceAll(string(want), "testdata/err", suiteCorpus+"err"); stderr != w {
				t.Errorf("stderr differs from the .out (go test ./engine -run TestCorpusErr -update rewrites it)\n--- got\n%s\n--- want\n%s", stderr, w)
			}
		})
	}
}

// TestOKCorpus: every suite of the ok corpus validates.
func TestOKCorpus(t *testing.T) {
	files, _ := filepath.Glob(suiteCorpus + "ok/*.yml")
	examples, _ := filepath.Glob("../../examples/*/suite.yml")
	for _, f := range append(files, examples...) {
		t.Run(f, func(t *testing.T) {
			stdout, stderr, code := mcptest(t, nil, "validate", f)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if !strings.HasPrefix(stdout, f+": valid\n") {
				t.Errorf("stdout = %q", stdout)
			}
			for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")[1:] {
				if !strings.HasPrefix(line, "  ") || !strings.Contains(line, "read as ") {
					t.Errorf("a line that is not a recording read: %q", line)
				}
			}
		})
	}
}

// exampleExit is the exit code each example is written to produce; an
// example not listed must pass.
var exampleExit = map[string]int{
	"agent-reporter":         ExitFail,
	"baseline":               ExitFail,
	"selection-f1":           ExitFail,
	"tool-edges":             ExitFail,
	"scenario-world-failing": ExitFail,
	"distractor-floor-fails": ExitFail,
	"auditor-view":           ExitFail,
	"tool-quality":           ExitFail,
	"reliability":            ExitFail,
	"trajectory":             ExitFail,
	"run-budget":             ExitFail,
	"pass-at-k":              ExitFail,
	"tool-arguments":         ExitFail,
}

// TestExamples runs every examples/*/ suite with both reporters and checks
// the exit code and the output against golden files.
func TestExamples(t *testing.T) {
	dirs, _ := filepath.Glob("../../examples/*/suite.yml")
	if len(dirs) == 0 {
		t.Fatal("no examples found")
	}
	for _, suite := range dirs {
		name := filepath.Base(filepath.Dir(suite))
		t.Run(name, func(t *testing.T) {
			if text, _ := os.ReadFile(suite); strings.Contains(string(text), ".ci/node/node_modules/") {
				freshCloneSays(t, suite)
				everythingBin(t) // a live example: skips (fails under CI) without the npm server
			}
			for _, rep := range []string{"pretty", "json"} {
				stdout, stderr, code := mcptest(t, nil, "run", "--config", suite, "--reporter", rep)
				if code != exampleExit[name] {
					t.Errorf("%s: exit %d, want %d\nstderr:\n%s", rep, code, exampleExit[name], stderr)
				}
				golden(t, filepath.Join("testdata", "golden", "examples", name+"."+rep), normalize(stdout))
			}
		})
	}
}

// freshCloneSays runs a live example with the built binary as a fresh
// clone has it, without the npm server .ci/run installs (a copy of its
// folder where .ci/node is not):
// every case fails with one readable line that names the package to install
// and the npm command, with no escaped newline.
func freshCloneSays(t *testing.T, suite string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone", "examples", filepath.Base(filepath.Dir(suite)))
	if err := os.CopyFS(dir, os.DirFS(filepath.Dir(suite))); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBinIn(t, dir, []string{"NO_COLOR=1"}, "run", "--config", "suite.yml")
	if code != ExitFail {
		t.Fatalf("without the npm server: exit %d, want %d\n%s%s", code, ExitFail, stdout, stderr)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(l, "      error: ") {
			continue
		}
		if strings.Contains(l, `\u000a`) || !strings.Contains(l, "is not installed: install it with `npm ") {
			t.Errorf("without the npm server the example says:\n%s", l)
		}
	}
	if !strings.Contains(stdout, "is not installed: install it with `npm ") {
		t.Errorf("without the npm server the example does not say what to install:\n%s", stdout)
	}
}

// TestRunDeterministic: two runs over the same inputs give byte-identical
// envelopes apart from the run id, start time and duration.
func TestRunDeterministic(t *testing.T) {
	const suite = "../../examples/quickstart/suite.yml"
	first, _, _ := mcptest(t, nil, "run", "--config", suite, "--reporter", "json")
	for i := 0; i < 5; i++ {
		again, _, _ := mcptest(t, nil, "run", "--config", suite, "--reporter", "json")
		if normalize(again) != normalize(first) {
			t.Fatalf("run %d differs from the first", i+2)
		}
	}
	if first == normalize(first) {
		t.Error("the envelope carries no run id, start time or duration")
	}
}

func TestValidateJSON(t *testing.T) {
	stdout, _, code := mcptest(t, nil, "validate", "--format", "json", suiteCorpus+"err/unknown-keys.yml")
	if code != ExitInput {
		t.Errorf("exit %d, want %d", code, ExitInput)
	}
	var doc struct {
		Valid  *bool `json:"valid"`
		Errors []map[string]any
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not the validate_suite document: %v\n%s", err, stdout)
	}
	if doc.Valid == nil || *doc.Valid {
		t.Fatalf("valid = %v, want false", doc.Valid)
	}
	for _, e := range doc.Errors {
		if len(e) != 3 || e["path"] == nil || e["message"] == nil {
			t.Errorf("error is not {path, message, hint}: %v", e)
		}
		if _, ok := e["hint"]; !ok {
			t.Errorf("hint must be present (null when none): %v", e)
		}
	}
	first := doc.Errors[0]
	if first["path"] != "" || first["hint"] != "did you mean `servers`?" {
		t.Errorf("first error = %v, want the root and a did-you-mean for servers", first)
	}

	golden(t, "testdata/golden/validate-unknown-keys.json", stdout)
	stdout, _, code = mcptest(t, nil, "validate", "--format", "json", "../../examples/quickstart/suite.yml")
	if code != ExitOK {
		t.Errorf("valid suite: exit %d, stdout %q", code, stdout)
	}
	golden(t, "testdata/golden/validate-quickstart.json", stdout)
}

func TestReportRerenders(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run.json")
	_, stderr, code := mcptest(t, nil, "run", "--config", "../../examples/quickstart/suite.yml", "--reporter", "json", "--output", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	direct, _, _ := mcptest(t, nil, "run", "--config", "../../examples/quickstart/suite.yml")
	rerendered, _, code := mcptest(t, nil, "report", out, "--format", "pretty")
	if code != ExitOK || rerendered != direct {
		t.Errorf("report --format pretty differs from run --reporter pretty:\n%s\nvs\n%s", rerendered, direct)
	}
	asJSON, _, _ := mcptest(t, nil, "report", out, "--format", "json")
	saved, _ := os.ReadFile(out)
	if asJSON != string(saved) {
		t.Error("report --format json does not round-trip the saved envelope")
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"run", "--config", "../../examples/quickstart/suite.yml"}, ExitOK, ""},
		{[]string{"run", "--config", "../../examples/selection-f1/suite.yml"}, ExitFail, ""},
		{[]string{"run", "--bogus"}, ExitInput, "unknown flag --bogus; 'mcptest help run' lists its flags"},
		{[]string{"run", "--html"}, ExitInput, "unknown flag --html (did you mean --format html?)"},
		{[]string{"run", "--config", "testdata/nope.yml"}, ExitInput, "testdata/nope.yml: no such file"},
		{[]string{"run", "--config", "testdata"}, ExitInput, "testdata: is a directory: expected a suite file"},
		{[]string{"run", "--reporter", "xml", "--config", "../../examples/quickstart/suite.yml"}, ExitInput, `--reporter "xml": expected one of text, json, junit, sarif, html, agent`},
		{[]string{"run", "--config", "../../examples/quickstart/suite.yml", "--filter", "no such case"}, ExitInput, `no case matches "no such case"`},
		{[]string{"run", "--config", "../../examples/quickstart/suite.yml", "--shard", "0/0"}, ExitInput, "shard 0/0: the number of shards must be between 1 and 10000"},
		{[]string{"rnu"}, ExitInput, `unknown command "rnu" (did you mean "run"?)`},
		{[]string{}, ExitInput, "usage: mcptest <command>"},
		{[]string{"report", "testdata/nope.json"}, ExitInput, "no such file"},
		{[]string{"help"}, ExitOK, ""},
		{[]string{"help", "--help"}, ExitOK, ""},
		{[]string{"help", "-h"}, ExitOK, ""},
		{[]string{"help", "help"}, ExitOK, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			stdout, stderr, code := mcptest(t, nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, tt.code, stderr)
			}
			if !strings.Contains(stderr, tt.err) {
				t.Errorf("stderr %q does not say %q", stderr, tt.err)
			}
			if tt.args != nil && len(tt.args) > 0 && tt.args[0] == "help" && !strings.Contains(stdout, "3  the tool could not do its job") {
				t.Errorf("help does not show the exit codes:\n%s", stdout)
			}
		})
	}
}

func TestFilterAndCassetteDir(t *testing.T) {
	stdout, _, code := mcptest(t, nil, "run", "--config", "../../examples/quickstart/suite.yml", "--filter", "weather answer names the city")
	if code != ExitOK || strings.Count(stdout, "PASS") != 1 || !strings.Contains(stdout, "weather answer names the city") {
		t.Errorf("exact filter: exit %d\n%s", code, stdout)
	}
	stdout, _, _ = mcptest(t, nil, "run", "--config", "../../examples/quickstart/suite.yml", "--filter", "AGENT")
	if strings.Count(stdout, "PASS") != 2 {
		t.Errorf("substring filter should keep the two agent tests:\n%s", stdout)
	}
	// A test without cassette: is looked up by its name's slug.
	stdout, stderr, code := mcptest(t, nil, "run", "--config", suiteCorpus+"err/no-implicit-cassette.yml", "--cassette-dir", "testdata/implicit")
	if code != ExitOK || !strings.Contains(stdout, "PASS  Weather Selection (EU)") {
		t.Errorf("--cassette-dir: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestColor(t *testing.T) {
	c := &Command{Getenv: func(string) string { return "" }}
	auto := cli.ColorAuto
	if c.color(&auto, &bytes.Buffer{}) {
		t.Error("colour on a buffer")
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if c.color(&auto, f) {
		t.Error("colour on /dev/null, which is not a terminal")
	}
	stdout, _, _ := mcptest(t, nil, "run", "--config", "../../examples/quickstart/suite.yml")
	if strings.Contains(stdout, "\x1b[") {
		t.Error("escape codes in output that is not a terminal")
	}
}

// TestREADMECommands runs every `$ mcptest ...` command shown in the README
// and in docs/*.md from the repository root and checks what it does against
// the block, so the docs cannot drift from the binary. The convention for a
// block (fenced as ```console, or with no info string):
//
//   - the block's first line is `$ mcptest ARGS`, and the lines after it
//     are exactly what the command prints on stdout;
//   - the command writes nothing to stderr (the block is all a reader sees);
//   - it exits 0, unless the `$ mcptest` line ends in a shell comment
//     stating another code, `# exit N` (for example `# exit 1` on a run
//     whose floor is breached). Any other trailing comment is an error.
func TestREADMECommands(t *testing.T) {
	t.Chdir("../..")
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, doc := range append([]string{"README.md"}, docs...) {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		n += runDocCommands(t, doc, string(data))
	}
	if n < 10 {
		t.Errorf("found %d $ mcptest commands in the README and docs/", n)
	}
}

// runDocCommands runs the `$ mcptest` blocks of one document (see
// TestREADMECommands) and returns how many it ran. A failure names the
// document and the line of the `$ mcptest` command.
func runDocCommands(t *testing.T, doc, data string) int {
	t.Helper()
	n := 0
	for _, b := range fencedBlocks(data) {
		cmdline, ok := strings.CutPrefix(b.lines[0], "$ mcptest ")
		if !ok {
			continue
		}
		n++
		at := fmt.Sprintf("%s:%d", doc, b.line)
		cmdline, wantCode, err := readmeExit(cmdline)
		if err != nil {
			t.Errorf("%s: %s: %v", at, b.lines[0], err)
			continue
		}
		want := ""
		if len(b.lines) > 1 {
			want = strings.Join(b.lines[1:], "\n") + "\n"
		}
		stdout, stderr, code := mcptest(t, nil, splitArgs(cmdline)...)
		if stdout != want {
			t.Errorf("%s: $ mcptest %s\n--- got\n%s%s--- %s\n%s", at, cmdline, stdout, stderr, doc, want)
		}
		if stderr != "" {
			t.Errorf("%s: $ mcptest %s\nwrote to stderr, which %s does not show:\n%s", at, cmdline, doc, stderr)
		}
		if code != wantCode {
			t.Errorf("%s: $ mcptest %s\nexited %d, %s says %d (no `# exit N` comment means 0)", at, cmdline, code, doc, wantCode)
		}
	}
	return n
}

// docBlock is one fenced code block of a Markdown document: the 1-based
// line of its first line, and its lines.
type docBlock struct {
	line  int
	lines []string
}

// fencedBlocks returns the non-empty code blocks of a Markdown document,
// fenced by lines that start (after any indentation) with three backticks.
func fencedBlocks(data string) []docBlock {
	var out []docBlock
	var cur *docBlock
	for i, l := range strings.Split(data, "\n") {
		switch {
		case !strings.HasPrefix(strings.TrimLeft(l, " "), "```"):
			if cur != nil {
				cur.lines = append(cur.lines, l)
			}
		case cur == nil:
			cur = &docBlock{line: i + 2}
		default:
			if len(cur.lines) > 0 {
				out = append(out, *cur)
			}
			cur = nil
		}
	}
	return out
}

// readmeExit splits a README command line from its trailing `# exit N`
// comment and returns the command and the exit code it states (0 without
// one).
func readmeExit(cmdline string) (string, int, error) {
	cmd, comment, ok := strings.Cut(cmdline, " # ")
	if !ok {
		return cmdline, 0, nil
	}
	var code int
	if _, err := fmt.Sscanf(comment, "exit %d", &code); err != nil || comment != fmt.Sprintf("exit %d", code) {
		return "", 0, fmt.Errorf("trailing comment %q: expected `# exit N`", comment)
	}
	return strings.TrimRight(cmd, " "), code, nil
}

// splitArgs splits a shell command line on spaces, keeping "quoted words".
func splitArgs(s string) []string {
	var out []string
	for s != "" {
		s = strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, `"`) {
			end := strings.Index(s[1:], `"`) + 1
			out = append(out, s[1:end])
			s = s[end+1:]
			continue
		}
		word, rest, _ := strings.Cut(s, " ")
		if word != "" {
			out = append(out, word)
		}
		s = rest
	}
	return out
}

func write(t *testing.T, file string, data []byte) {
	t.Helper()
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
