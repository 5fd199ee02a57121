package action

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestActionMasksURLCredentials: a suite whose servers carry credentials
// in their URLs (a password, key and token parameters) runs in the Action
// with every report it writes; no file it writes, nor its job summary,
// log or sticky comment, holds one of them.
func TestActionMasksURLCredentials(t *testing.T) {
	secrets := []string{"Pa55word-AUDIT", "KeyAUDIT77", "TokAUDIT88", "SigAUDIT99"}
	dir := t.TempDir()
	src, err := os.ReadFile("../examples/auditor-view/suite.yml")
	if err != nil {
		t.Fatal(err)
	}
	url := "https://alice:" + secrets[0] + "@mcp.example.com/mcp?api_key=" + secrets[1] + "&access_token=" + secrets[2] + "#sig=" + secrets[3]
	suite := strings.Replace(string(src), `url: "https://mcp.example.com/mcp"`, `url: "`+url+`"`, 1)
	if suite == string(src) {
		t.Fatal("the example's server URL moved: update the test")
	}
	if err := os.CopyFS(dir, os.DirFS("../examples/auditor-view")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "suite.yml"), []byte(suite))

	srv := newServer(t)
	r := newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))
	r.env["INPUT_CONFIG"] = filepath.Join(dir, "suite.yml")
	r.env["INPUT_REPORTS"] = "html,junit,sarif"
	r.env["INPUT_ON-MISSING-BASELINE"] = "warn"
	res := r.run()
	if res.code != ExitFail {
		t.Fatalf("exit %d, want 1 (the example fails)\n%s%s", res.code, res.stdout, res.stderr)
	}
	seen := map[string]string{"stdout": res.stdout, "stderr": res.stderr, "summary": res.summary}
	for _, c := range srv.Comments {
		seen["comment"] += c.Body
	}
	if seen["comment"] == "" {
		t.Error("no comment was posted")
	}
	files := 0
	_ = filepath.WalkDir(filepath.Dir(r.env["INPUT_REPORT-PATH"]), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			seen[p] = string(data)
			files++
		}
		return nil
	})
	if files < 4 {
		t.Errorf("%d report files written, want the envelope and three reports", files)
	}
	for where, text := range seen {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds the secret %q", where, s)
			}
		}
	}
	if !strings.Contains(seen[r.env["INPUT_REPORT-PATH"]], "mcp.example.com") {
		t.Error("the envelope does not name the server's host: the mask took more than the credentials")
	}
}
