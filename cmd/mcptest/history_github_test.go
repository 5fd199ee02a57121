package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline/ghapitest"
	"github.com/mcptest/mcptest/history/historytest"
)

// TestHistoryBinaryGitHub: the built `mcptest history --github` reads the
// newest baselines of the default branch through the GitHub API stand-in
// (which checks every request against GitHub's description) with the
// Action's checks: of six runs, the expired and the forged one are skipped
// on stderr, --last 3 keeps the three newest good ones, oldest first, and
// the folded history names their commits; no token is wrong input.
func TestHistoryBinaryGitHub(t *testing.T) {
	srv := ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
	spec := historytest.Spec{Runs: 6, Suite: "suite.yml", Steady: 2}
	for i := range spec.Runs {
		data, err := json.Marshal(historytest.Envelope(spec, i))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("mcptest-report.json")
		_, _ = w.Write(data)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		id := int64(100 + i)
		art := &ghapitest.Artifact{ID: id * 10, Name: "mcptest-baseline", Zip: buf.Bytes()}
		switch i {
		case 2:
			art.Expired = true
		case 4:
			art.Digest = "sha256:" + strings.Repeat("0", 64)
		}
		srv.Runs = append(srv.Runs, &ghapitest.Run{ID: id, Workflow: "mcptest-baseline.yml", Event: "push", HeadBranch: "main", HeadRepo: "acme/agents",
			HeadSHA: historytest.Commit(i), Status: "completed", Conclusion: "success", Artifacts: []*ghapitest.Artifact{art}})
	}
	env := []string{"GITHUB_API_URL=" + srv.URL, "GITHUB_TOKEN=ghs_test", "GITHUB_REPOSITORY=acme/agents", "GH_TOKEN="}
	js, stderr, code := runHistoryBin(t, t.TempDir(), env, "history", "--github", "--last", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"mcptest: history: skipped run 104: artifact \"mcptest-baseline\": its download does not match its digest",
		"mcptest: history: skipped run 102: artifact \"mcptest-baseline\" expired"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	var doc struct {
		Runs []struct{ Commit string }
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range doc.Runs {
		got = append(got, r.Commit)
	}
	want := []string{historytest.Commit(1), historytest.Commit(3), historytest.Commit(5)}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the window's commits %q, want runs 101, 103, 105 oldest first %q", got, want)
	}
	_, stderr, code = runHistoryBin(t, t.TempDir(), []string{"GITHUB_API_URL=" + srv.URL, "GITHUB_TOKEN=", "GH_TOKEN=", "GITHUB_REPOSITORY=acme/agents"}, "history", "--github")
	if code != 2 || !strings.Contains(stderr, "--github: no token") {
		t.Errorf("no token: exit %d, %q; want exit 2", code, stderr)
	}
}
