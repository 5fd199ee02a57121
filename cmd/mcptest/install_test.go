package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcptest/mcptest/mcpserver"
)

// clientSchema compiles a client's documented shape from
// testdata/clients/<client>.schema.json (each names its documentation page).
func clientSchema(t *testing.T, client string) *jsonschema.Schema {
	t.Helper()
	name := client + ".schema.json"
	data, err := os.ReadFile(filepath.Join("testdata", "clients", name))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return c.MustCompile(name)
}

// fakePATH is a PATH whose one directory holds an executable mcptest.
func fakePATH(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "mcptest"), []byte("#!/bin/sh\n"))
	if err := os.Chmod(filepath.Join(dir, "mcptest"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestInstallClients: --install --client writes each client's documented
// file in its documented shape (checked against the client's schema), with
// the command mcptest from PATH, keeps the other servers and keys, and a
// second install changes nothing.
func TestInstallClients(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"PATH": fakePATH(t), "HOME": home, "APPDATA": filepath.Join(home, "AppData"), "XDG_CONFIG_HOME": ""}
	desktop := DesktopPathFor(env)
	for _, tc := range []struct {
		client, file, key, other string
	}{
		{"claude-code", ".mcp.json", "mcpServers", `{"mcpServers": {"github": {"command": "gh-mcp", "args": [], "env": {"X": "1"}}}}`},
		{"cursor", ".cursor/mcp.json", "mcpServers", `{"mcpServers": {"remote": {"url": "https://example.com/mcp"}}}`},
		{"vscode", ".vscode/mcp.json", "servers", `{"inputs": [], "servers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}`},
		{"claude-desktop", desktop, "mcpServers", `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}}, "globalShortcut": ""}`},
	} {
		root := t.TempDir()
		path := tc.file
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, tc.file)
		}
		writeFile(t, path, tc.other)
		stdout, stderr, code := mcptest(t, env, "mcp-server", "--install", "--client", tc.client, "--root", root)
		if code != ExitOK || !strings.Contains(stdout, "mcptest installed for "+tc.client) {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", tc.client, code, stdout, stderr)
		}
		first, _ := os.ReadFile(path)
		var doc map[string]any
		if err := json.Unmarshal(first, &doc); err != nil {
			t.Fatalf("%s: %v", tc.client, err)
		}
		if err := clientSchema(t, tc.client).Validate(doc); err != nil {
			t.Errorf("%s: %s does not have the client's documented shape: %v\n%s", tc.client, tc.file, err, first)
		}
		servers, _ := doc[tc.key].(map[string]any)
		entry, _ := servers["mcptest"].(map[string]any)
		wantCmd := "mcptest"
		if tc.client == "claude-desktop" {
			wantCmd, _ = os.Executable() // Desktop starts servers without the shell's PATH
		}
		if entry == nil || entry["command"] != wantCmd {
			t.Errorf("%s: the mcptest entry is %v, want command %q", tc.client, entry, wantCmd)
		}
		if len(servers) != 2 {
			t.Errorf("%s: the other server was not kept:\n%s", tc.client, first)
		}
		stdout, _, _ = mcptest(t, env, "mcp-server", "--install", "--client", tc.client, "--root", root)
		if second, _ := os.ReadFile(path); !bytes.Equal(first, second) || !strings.Contains(stdout, "unchanged") {
			t.Errorf("%s: a second install changed the file: %s", tc.client, stdout)
		}
	}
}

// DesktopPathFor is Claude Desktop's file under env's HOME and APPDATA.
func DesktopPathFor(env map[string]string) string {
	return mcpserver.DesktopConfigPath(func(k string) string { return env[k] })
}

// TestInstallDetects: with no --client, --install writes every client file
// present in the workspace, or Claude Code's .mcp.json when there is none;
// without mcptest on PATH it refuses (exit 2) unless --absolute.
func TestInstallDetects(t *testing.T) {
	env := map[string]string{"PATH": fakePATH(t)}
	root := t.TempDir()
	stdout, stderr, code := mcptest(t, env, "mcp-server", "--install", "--root", root)
	if code != ExitOK || !strings.Contains(stdout, filepath.Join(root, ".mcp.json")+": mcptest installed for claude-code") {
		t.Fatalf("empty workspace: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, ".claude", "mcp.json")); err == nil {
		t.Error("--install wrote .claude/mcp.json, which Claude Code does not read")
	}
	writeFile(t, filepath.Join(root, ".vscode", "mcp.json"), `{"servers": {}}`)
	stdout, _, code = mcptest(t, env, "mcp-server", "--install", "--root", root)
	if code != ExitOK || !strings.Contains(stdout, "unchanged for claude-code") || !strings.Contains(stdout, "installed for vscode") {
		t.Errorf("two clients present: exit %d, stdout %q", code, stdout)
	}
	vs, _ := os.ReadFile(filepath.Join(root, ".vscode", "mcp.json"))
	if !strings.Contains(string(vs), `"servers"`) || strings.Contains(string(vs), "mcpServers") || !strings.Contains(string(vs), `"type": "stdio"`) {
		t.Errorf(".vscode/mcp.json:\n%s", vs)
	}

	bare := t.TempDir()
	_, stderr, code = mcptest(t, map[string]string{"PATH": t.TempDir()}, "mcp-server", "--install", "--root", bare)
	if code != ExitInput || !strings.Contains(stderr, "mcptest is not on PATH") {
		t.Errorf("no mcptest on PATH: exit %d, stderr %q", code, stderr)
	}
	stdout, _, code = mcptest(t, map[string]string{"PATH": ""}, "mcp-server", "--install", "--absolute", "--root", bare)
	exe, _ := os.Executable()
	if code != ExitOK || !strings.Contains(stdout, "("+exe+" mcp-server)") {
		t.Errorf("--absolute: exit %d, stdout %q", code, stdout)
	}
	if _, stderr, code := mcptest(t, env, "mcp-server", "--install", "--client", "vscod", "--root", root); code != ExitInput || !strings.Contains(stderr, `did you mean "vscode"`) {
		t.Errorf("--client vscod: exit %d, stderr %q", code, stderr)
	}
}

// TestInstallBinaryRefuses: the built binary's `mcp-server --install` on a
// workspace whose .mcp.json holds null, or is a committed link to a file
// outside the workspace, exits 2 with what it found and writes nothing;
// on {"mcpServers": null} it adds its entry and keeps the other keys in
// their order.
func TestInstallBinaryRefuses(t *testing.T) {
	bin := mcptestBin(t)
	install := func(root string) (string, int) {
		cmd := exec.Command(bin, "mcp-server", "--install", "--absolute", "--root", root)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	root := t.TempDir()
	write(t, filepath.Join(root, ".mcp.json"), []byte("null"))
	if out, code := install(root); code != ExitInput || !strings.Contains(out, "expected a JSON object {...}, found null") {
		t.Errorf("null config: exit %d\n%s", code, out)
	}

	root = t.TempDir()
	write(t, filepath.Join(root, ".mcp.json"), []byte("{\n  \"z\": 1,\n  \"mcpServers\": null,\n  \"a\": 2\n}\n"))
	if out, code := install(root); code != ExitOK {
		t.Fatalf("null servers: exit %d\n%s", code, out)
	}
	data, _ := os.ReadFile(filepath.Join(root, ".mcp.json"))
	if z, m, a := strings.Index(string(data), `"z"`), strings.Index(string(data), `"mcptest"`), strings.Index(string(data), `"a"`); z < 0 || m < z || a < m {
		t.Errorf("the keys were reordered or the entry is missing:\n%s", data)
	}

	root, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "victim.json"), []byte("{}"))
	if err := os.Symlink(filepath.Join(outside, "victim.json"), filepath.Join(root, ".mcp.json")); err != nil {
		t.Skip("symlink:", err)
	}
	if out, code := install(root); code != ExitInput || !strings.Contains(out, "outside the workspace") {
		t.Errorf("a link out of the workspace: exit %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "victim.json")); string(data) != "{}" {
		t.Errorf("the file outside the workspace was written: %s", data)
	}
}
