package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/mcpserver"
)

// TestDoctorWalk: `mcptest doctor` with no target lists the servers of the
// workspace's and the user's MCP configs with the file each came from,
// diagnoses the ones it can start, reports (without starting) one that
// references an unset variable, and --server picks one.
func TestDoctorWalk(t *testing.T) {
	bin := mcptestBin(t)
	catalog, _ := filepath.Abs("testdata/live/catalog.yml")
	root, home := t.TempDir(), t.TempDir()
	argv := func(extra ...string) string {
		b, _ := json.Marshal(append([]string{"mock", "--tools-from", catalog}, extra...))
		return string(b)
	}
	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"docs": {"command": "`+bin+`", "args": `+argv()+`}}}`)
	writeFile(t, filepath.Join(root, ".vscode", "mcp.json"), `{"servers": {"gh": {"type": "stdio", "command": "`+bin+`", "args": `+argv()+`, "env": {"TOKEN": "${env:GH_TOKEN}"}}}}`)
	writeFile(t, filepath.Join(home, ".claude.json"), `{"mcpServers": {"broken": {"command": "/nonexistent/mcp-server"}}, "projects": {"`+root+`": {"mcpServers": {"local": {"command": "`+bin+`", "args": `+argv()+`}}}, "/elsewhere": {"mcpServers": {"other": {"command": "x"}}}}}`)
	env := map[string]string{"HOME": home, "PATH": ""}
	t.Chdir(root)
	stdout, stderr, code := mcptest(t, env, "doctor")
	if code != ExitFail {
		t.Errorf("doctor: exit %d, want 1 (the broken server)\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"4 MCP servers in the workspace and user configs:",
		"docs              .mcp.json (claude-code)",
		"gh                .vscode/mcp.json (vscode)",
		"broken            " + filepath.Join("~", ".claude.json") + " (claude-code)",
		"local             " + filepath.Join("~", ".claude.json") + " (claude-code, project " + root + ")",
		"SKIPPED  not started: it references the unset environment variable(s) GH_TOKEN",
		"broken            FAIL",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Count(stdout, "OK       initialize ok") != 2 || strings.Contains(stdout, "other") {
		t.Errorf("want docs and local diagnosed, and no other project's server:\n%s", stdout)
	}

	env["GH_TOKEN"] = "t0ken"
	stdout, _, code = mcptest(t, env, "doctor", "--server", "gh", "--format", "json")
	var doc struct {
		Servers []mcpserver.WalkServer `json:"servers"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != ExitOK || len(doc.Servers) != 1 || doc.Servers[0].Status != "ok" || doc.Servers[0].Tools == 0 {
		t.Errorf("doctor --server gh: exit %d, %v\n%s", code, err, stdout)
	}
	if _, stderr, code := mcptest(t, env, "doctor", "--server", "dcs"); code != ExitInput || !strings.Contains(stderr, `did you mean "docs"`) {
		t.Errorf("doctor --server dcs: exit %d, stderr %q", code, stderr)
	}
	writeFile(t, filepath.Join(root, ".cursor", "mcp.json"), `{"mcpServers": {"bad": {"command": 42}}}`)
	if _, stderr, code := mcptest(t, env, "doctor"); code != ExitInput || !strings.Contains(stderr, filepath.Join(root, ".cursor", "mcp.json")) {
		t.Errorf("a malformed config: exit %d, stderr %q; want exit 2 naming the file", code, stderr)
	}
}

// TestDoctorWalkHidesSecrets: the walk prints a discovered server's target
// as its config writes it, so a token an arg, a url or a header takes from
// the environment is named by its ${VAR} reference and never printed, and a
// password in a url's user-info is masked, in the list, the diagnosis and
// the JSON, also when the connection fails and the error repeats the url.
func TestDoctorWalkHidesSecrets(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {
		"gh": {"command": "/nonexistent/gh-mcp", "args": ["--token", "${GH_SECRET}"]},
		"remote": {"type": "http", "url": "http://user:hunter2pw@127.0.0.1:1/mcp?key=${GH_SECRET}", "headers": {"Authorization": "Bearer ${GH_SECRET}"}}}}`)
	env := map[string]string{"HOME": home, "PATH": "", "GH_SECRET": "s3cr3t-value-42"}
	t.Chdir(root)
	for _, format := range []string{"text", "json"} {
		stdout, stderr, code := mcptest(t, env, "doctor", "--format", format)
		if code != ExitFail {
			t.Errorf("doctor --format %s: exit %d, want 1\n%s%s", format, code, stdout, stderr)
		}
		for _, secret := range []string{"s3cr3t-value-42", "hunter2pw"} {
			if strings.Contains(stdout+stderr, secret) {
				t.Errorf("doctor --format %s prints the secret %q:\n%s%s", format, secret, stdout, stderr)
			}
		}
		if !strings.Contains(stdout, "--token ${GH_SECRET}") || !strings.Contains(stdout, "mcp?key=${GH_SECRET}") {
			t.Errorf("doctor --format %s does not name the variables:\n%s", format, stdout)
		}
	}
}
