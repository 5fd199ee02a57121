//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// frameworksLatestEnv names the folder where .ci/run installed the
// framework sets of .ci/node-frameworks-latest/sets.json at the versions
// published when it ran (install.mjs): one folder per set, each with its
// node_modules and the versions.json it installed.
const frameworksLatestEnv = "MCPTEST_FRAMEWORKS_LATEST"

// frameworkPackages are the packages of each framework script, as
// versions.json names them: the first is the framework's.
var frameworkPackages = map[string][]string{
	"ai-sdk":             {"ai", "@ai-sdk/mcp", "@ai-sdk/otel"},
	"openai-agents":      {"@openai/agents"},
	"openinference-flow": {"@arizeai/openinference-instrumentation-openai", "openai"},
	"openllmetry-flow":   {"@traceloop/instrumentation-openai", "openai"},
	"mastra-flow":        {"@mastra/core", "@mastra/mcp", "ai"},
	"llamaindex-flow":    {"llamaindex", "@llamaindex/workflow", "@llamaindex/tools"},
	"langchain":          {"@langchain/langgraph", "@langchain/core", "@langchain/mcp-adapters", "@arizeai/openinference-instrumentation-langchain"},
	"mcp-client":         {"@modelcontextprotocol/client"},
}

// latestCases are the frameworks of the newest and previous sets: those of
// the pinned set, and the OpenAI SDK's agent loop traced by OpenInference
// and by OpenLLMetry, Mastra's agent and LlamaIndex.TS's agent workflow
// (their tests named as the draft names them).
var latestCases = append(slices.Clone(frameworkCases),
	frameworkCase{script: "openinference-flow", logs: []frameworkLog{{file: "openinference_openai_spans.json", sum: "get-sum", toggle: "toggle-simulated-logging", tokens: true}}},
	frameworkCase{script: "openllmetry-flow", logs: []frameworkLog{{file: "openllmetry_openai_spans.json", sum: "get-sum", toggle: "toggle-simulated-logging", tokens: true}}},
	frameworkCase{script: "mastra-flow", logs: []frameworkLog{
		{file: "mastra_messages.jsonl", sum: "everything_get-sum", toggle: "everything_toggle-simulated-logging"},
		{file: "mastra_response_messages.jsonl", sum: "everything_get-sum", toggle: "everything_toggle-simulated-logging"},
	}},
	frameworkCase{script: "llamaindex-flow", logs: []frameworkLog{
		{file: "llamaindex_messages.jsonl", sum: "get-sum", toggle: "toggle-simulated-logging"},
		{file: "llamaindex_events.jsonl", sum: "get-sum", toggle: "toggle-simulated-logging"},
	}},
)

// readAs is what `validate` says of a recording it read.
var readAs = regexp.MustCompile(`read as ([a-z0-9-]+): (\d+) runs?, (\d+) calls?`)

// TestProcessFrameworksLatest drives the flows of TestProcessFrameworks
// with each framework at the versions the npm registry publishes now (the
// newest, and the previous major of the AI SDK, the Agents SDK and
// LangChain), installed by .ci/run: the proxy's cassette records every
// run; each log the framework writes is read with a call in every run, or
// refused at a position (file:line:col), never read as valid with fewer
// calls than runs; the suite drafted from what was read passes on the
// baseline runs and fails on each of the five regressions. A failure names the set,
// the framework and the versions installed.
func TestProcessFrameworksLatest(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the process-level tests start the binary, node and real servers")
	}
	root := os.Getenv(frameworksLatestEnv)
	if root == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: .ci/run installs the newest frameworks with `node .ci/node-frameworks-latest/install.mjs` and sets it", frameworksLatestEnv)
		}
		t.Skipf("%s is not set; run `node .ci/node-frameworks-latest/install.mjs` and set it to .ci/node-frameworks-latest", frameworksLatestEnv)
	}
	server := everythingBin(t)
	node, _ := frameworkNode(t)
	installed, err := filepath.Glob(filepath.Join(root, "*", "*", "versions.json"))
	if err != nil || len(installed) == 0 {
		t.Fatalf("no framework installed under %s (%v): run node .ci/node-frameworks-latest/install.mjs", root, err)
	}
	for _, file := range installed {
		set, script := filepath.Base(filepath.Dir(filepath.Dir(file))), filepath.Base(filepath.Dir(file))
		i := slices.IndexFunc(latestCases, func(fc frameworkCase) bool { return fc.script == script })
		if i < 0 {
			t.Errorf("%s: no flow drives %s", file, script)
			continue
		}
		fc := latestCases[i]
		var versions map[string]string
		data, err := os.ReadFile(file)
		if err == nil {
			err = json.Unmarshal(data, &versions)
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var named []string
		for _, pkg := range frameworkPackages[script] {
			if v, ok := versions[pkg]; ok {
				named = append(named, pkg+"@"+v)
			}
		}
		modules := filepath.Join(filepath.Dir(file), "node_modules")
		t.Run(set+"/"+script, func(t *testing.T) {
			versions := strings.Join(named, " ")
			t.Logf("%s set, %s: %s", set, script, versions)
			dir := frameworkDir(t, modules)
			snapshotCatalog(t, server, dir)
			fc.record(t, node, server, dir, "baseline,baseline,baseline")
			read := fc.readOrRefused(t, dir, versions)
			read = read.draft(t, dir)
			if stdout, stderr, code := runProc(t, procSpec{args: []string{"run", "--config", "suite.yml", "--format", "json", "--output", "base.json"}, dir: dir}); code != ExitOK {
				t.Fatalf("%s: run on the baseline recordings: exit %d\n%s%s", versions, code, stdout, stderr)
			}
			read.rerecord(t, node, server, dir, "wrong-tool,restricted,tokens")
			read.regressed(t, dir)
			read.rerecord(t, node, server, dir, "invalid-arguments,reordered,baseline")
			read.regressedSteps(t, dir, versions)
		})
	}
}

// readOrRefused validates each log the framework wrote for three runs: one
// that reads must hold a call in each run, one that is refused must say
// where (file:line:col). It returns the case with the logs that read.
func (fc frameworkCase) readOrRefused(t *testing.T, dir, named string) frameworkCase {
	t.Helper()
	read := frameworkCase{script: fc.script}
	for _, l := range fc.logs {
		file := filepath.Join("rec", l.file)
		stdout, stderr, code := runProc(t, procSpec{args: []string{"validate", file}, dir: dir})
		switch m := readAs.FindStringSubmatch(stdout); {
		case code == ExitInput && regexp.MustCompile(regexp.QuoteMeta(file)+`:\d+:\d+`).MatchString(stdout+stderr):
			t.Logf("%s: %s refused at a position:\n%s%s", named, l.file, stdout, stderr)
		case code == ExitOK && m != nil:
			runs, _ := strconv.Atoi(m[2])
			calls, _ := strconv.Atoi(m[3])
			if runs != 3 || calls < runs {
				t.Errorf("%s: %s read as %s with %d calls in %d runs, want 3 runs with a call each:\n%s%s", named, l.file, m[1], calls, runs, stdout, stderr)
				continue
			}
			// What a newer version records may differ from the pinned
			// one's: the draft names the test, and the tokens and the
			// catalog are checked where it read them.
			l.test = ""
			l.tokens = strings.Contains(stdout, "tokens in 3/3 runs")
			l.catalog = false
			read.logs = append(read.logs, l)
		default:
			t.Errorf("%s: validate %s: exit %d, neither read nor refused at a position:\n%s%s", named, l.file, code, stdout, stderr)
		}
	}
	if !slices.EqualFunc(read.logs, fc.logs, func(a, b frameworkLog) bool { return a.file == b.file }) {
		t.Logf("%s: drafting from %d of the %d logs", named, len(read.logs), len(fc.logs))
	}
	return read
}
