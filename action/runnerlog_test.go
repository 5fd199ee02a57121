package action

import (
	"archive/zip"
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate/runnertest"
	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// symlinkZip builds an artifact zip holding one symbolic link called name.
func symlinkZip(t *testing.T, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: name}
	h.SetMode(os.ModeSymlink | 0o777)
	w, err := zw.CreateHeader(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("/etc/passwd"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRunnerLogZipEntryName: the name of an entry of a downloaded
// artifact, printed where the baseline search says why it passed a run
// over, does not reach the runner as a legacy `##[error ...]` command.
func TestRunnerLogZipEntryName(t *testing.T) {
	srv := newServer(t)
	evil := goodRun(t, 18, "evil")
	evil.Artifacts[0].Zip = symlinkZip(t, "##[error title=forged]x")
	srv.Runs = []*ghapitest.Run{goodRun(t, 10, "old"), evil}
	r := newRunner(t, srv, "pull_request", prEvent(8, "acme/agents", "h"))
	r.env["INPUT_COMMENT"] = "false"
	res := r.run()
	if res.outputs["baseline-run-id"] != "10" || !strings.Contains(res.stdout, `run 18: artifact: entry "##\u005berror title=forged]x" is not a regular file`) {
		t.Fatalf("baseline-run-id %q\nstdout:\n%s\nstderr:\n%s", res.outputs["baseline-run-id"], res.stdout, res.stderr)
	}
	runnertest.CheckOwnCommands(t, res.stdout+res.stderr)
	if !strings.Contains(res.stdout, "::error ") {
		t.Errorf("the run's own annotations are gone:\n%s", res.stdout)
	}
}

// TestRunnerLogAPIURLUserInfo: a GITHUB_API_URL with user-info is never
// printed, not even in an add-mask command: the runner hides a masked value
// from its log, but mcptest's output may be read elsewhere too.
func TestRunnerLogAPIURLUserInfo(t *testing.T) {
	const secret = "s3cr3t-token-value"
	r := newRunner(t, nil, "pull_request", prEvent(9, "acme/agents", "h"))
	r.env["GITHUB_API_URL"] = "http://mcp-bot:" + secret + "@127.0.0.1:1/api/v3"
	r.env["INPUT_COMMENT"] = "true"
	res := r.run()
	for _, l := range strings.Split(res.stdout+res.stderr, "\n") {
		if strings.Contains(l, secret) || strings.Contains(l, "mcp-bot") {
			t.Errorf("the API URL's user-info is printed: %q", l)
		}
	}
	runnertest.CheckOwnCommands(t, res.stdout+res.stderr)
	if !strings.Contains(res.stdout+res.stderr, "no baseline: the GitHub API could not be read") {
		t.Errorf("the unreachable API is not reported:\n%s%s", res.stdout, res.stderr)
	}
}
