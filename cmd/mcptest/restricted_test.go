package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// restrictedSuite is a suite whose one case passes although a recorded run
// called a restricted tool: its expect: reads allowed_pct only. The case
// is on line 4, its name at column 5.
const restrictedSuite = `# A passing case whose runs called a restricted tool: its expect: reads
# allowed_pct only, so the call to force_push does not fail it.
agents:
  - name: triage stays within its allowed tools
    cassette: "cassettes/triage-*.json"
    tool_edges:
      allowed: [search, summarize]
      restricted: [delete_repo, force_push]
      expect:
        - target: edges.allowed_pct
          matcher: { ">=": 50 }
`

// TestActionRestrictedCallBinary runs the built binary as a runner starts
// it (`mcptest action` on a pull_request, the runner's environment, the
// GitHub API stand-in) on a suite whose passing case called a restricted
// tool, and checks what a reviewer sees of the call: a warning command on
// the case's own line, a GATE-RESTRICTED result in the SARIF report (valid
// SARIF 2.1.0), and a row in the job summary and in the sticky comment.
func TestActionRestrictedCallBinary(t *testing.T) {
	srv := ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
	bin := mcptestBin(t)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "suite.yml"), []byte(restrictedSuite))
	if err := os.Mkdir(filepath.Join(dir, "cassettes"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("triage-%d.json", i)
		data, err := os.ReadFile(filepath.Join("../../examples/tool-edges/cassettes", name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "cassettes", name), data)
	}
	event, _ := json.Marshal(map[string]any{"number": 3, "pull_request": map[string]any{"number": 3,
		"head": map[string]any{"sha": "head0003", "ref": "feature", "repo": map[string]any{"full_name": "acme/agents"}},
		"base": map[string]any{"sha": "base0003", "ref": "main", "repo": map[string]any{"full_name": "acme/agents"}}}})
	runnerDir := t.TempDir()
	write(t, filepath.Join(runnerDir, "event.json"), event)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "action")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + runnerDir, "CI=true", "GITHUB_ACTIONS=true",
		"GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH=" + filepath.Join(runnerDir, "event.json"),
		"GITHUB_REPOSITORY=acme/agents", "GITHUB_API_URL=" + srv.URL, "GITHUB_SERVER_URL=https://github.example.com",
		"GITHUB_OUTPUT=" + filepath.Join(runnerDir, "output"), "GITHUB_STEP_SUMMARY=" + filepath.Join(runnerDir, "summary.md"),
		"GITHUB_SHA=head0003", "GITHUB_WORKSPACE=" + dir, "RUNNER_TEMP=" + runnerDir,
		"INPUT_MODE=check", "INPUT_CONFIG=suite.yml", "INPUT_REPORTS=sarif", "INPUT_GITHUB-TOKEN=ghs_test_token",
		"INPUT_REPORT-PATH=mcptest-report.json", "INPUT_FAIL-ON=regressions", "INPUT_ON-MISSING-BASELINE=warn",
		"INPUT_COMMENT=true", "INPUT_COMMENT-AUTHOR=github-actions[bot]", "INPUT_API-TIMEOUT=60"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcptest action: %v (the case passes: want exit 0)\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}

	checkWarningCommand(t, stdout.String(), "suite.yml", 4, 5)
	checkSARIFFile(t, filepath.Join(dir, "mcptest-report.sarif"), "suite.yml", 4)
	summary, err := os.ReadFile(filepath.Join(runnerDir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := "| triage stays within its allowed tools | suite\\.yml\\:4\\:5 | run 3\\: turn 2 call 1 called restricted tool \\`repo\\.force\\_push\\` |\n"
	if !strings.Contains(string(summary), "#### Restricted tool calls in passing cases\n") || !strings.Contains(string(summary), row) {
		t.Errorf("the job summary has no row for the restricted call (want %q):\n%s", row, summary)
	}
	srv.Lock()
	defer srv.Unlock()
	if n := len(srv.Comments); n != 1 || !strings.Contains(srv.Comments[0].Body, row) {
		t.Errorf("%d comments; the sticky comment must carry the row %q", n, row)
	}
}

// checkWarningCommand: stdout holds one ::warning workflow command with a
// file (the other is the missing baseline's), at file:line:col, naming the
// restricted call.
func checkWarningCommand(t *testing.T, stdout, file string, line, col int) {
	t.Helper()
	var warnings []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "::warning ") && strings.Contains(l, "file=") {
			warnings = append(warnings, l)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("%d warning commands, want 1 for the restricted call:\n%s", len(warnings), stdout)
	}
	props, msg, _ := strings.Cut(strings.TrimPrefix(warnings[0], "::warning "), "::")
	want := fmt.Sprintf("col=%d,file=%s,line=%d,title=mcptest%%3A restricted tool called in triage stays within its allowed tools", col, file, line)
	if props != want || !strings.Contains(msg, "called restricted tool `repo.force_push`") {
		t.Errorf("warning %q, want properties %q and the call in the message", warnings[0], want)
	}
}

// checkSARIFFile: the SARIF report is valid SARIF 2.1.0 (the schema the
// SARIF multitool ships, and the multitool itself where installed) and
// holds the GATE-RESTRICTED warning at the case's line.
func checkSARIFFile(t *testing.T, path, file string, line int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile("../../annotate/testdata/sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("sarif-2.1.0.json", bytes.NewReader(schema)); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the SARIF report is not JSON: %v", err)
	}
	if err := c.MustCompile("sarif-2.1.0.json").Validate(doc); err != nil {
		t.Errorf("the SARIF report is not SARIF 2.1.0: %v", err)
	}
	multitool := filepath.Join(nodeReports, "@microsoft/sarif-multitool-linux/Sarif.Multitool")
	if _, err := os.Stat(multitool); err == nil || os.Getenv("CI") == "true" {
		tool := checker(t, "the SARIF multitool", multitool, "npm ci --prefix .ci/node-reports (linux only)")
		out, err := exec.Command(tool, "validate", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Analysis completed successfully") || strings.Contains(string(out), ": error ") {
			t.Errorf("SARIF multitool: %v\n%s", err, out)
		}
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID, Level string
				Message       struct{ Text string }
				Locations     []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	_ = json.Unmarshal(data, &log)
	found := 0
	for _, r := range log.Runs[0].Results {
		if r.RuleID == "GATE-RESTRICTED" && r.Level == "warning" && len(r.Locations) == 1 &&
			r.Locations[0].PhysicalLocation.ArtifactLocation.URI == file && r.Locations[0].PhysicalLocation.Region.StartLine == line &&
			strings.Contains(r.Message.Text, "called restricted tool `repo.force_push`") {
			found++
		}
	}
	if found != 1 || len(log.Runs[0].Results) != 1 {
		t.Errorf("want one GATE-RESTRICTED warning at %s:%d, got:\n%s", file, line, data)
	}
}
