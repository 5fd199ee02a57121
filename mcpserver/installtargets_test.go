package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallTargets: --install-path wins, then --client, then the client
// files present, then .mcp.json; a misspelt client names the nearest.
func TestInstallTargets(t *testing.T) {
	root := t.TempDir()
	getenv := func(string) string { return "" }
	one := func(client, path string) InstallTarget {
		t.Helper()
		got, err := InstallTargets(root, client, path, getenv)
		if err != nil || len(got) != 1 {
			t.Fatalf("%q %q: %v %v", client, path, got, err)
		}
		return got[0]
	}
	if got := one("", ""); got.Path != filepath.Join(root, ".mcp.json") || got.Client.Name != "claude-code" {
		t.Errorf("default: %+v", got)
	}
	if got := one("cursor", ""); got.Path != filepath.Join(root, ".cursor", "mcp.json") {
		t.Errorf("--client cursor: %+v", got)
	}
	if got := one("cursor", "x.json"); got.Path != "x.json" || got.Client.Name != "cursor" {
		t.Errorf("--install-path with --client: %+v", got)
	}
	if err := os.MkdirAll(filepath.Join(root, ".vscode"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".vscode", "mcp.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := one("", ""); got.Client.Name != "vscode" {
		t.Errorf("a present client file: %+v", got)
	}
	if _, err := InstallTargets(root, "cursr", "", getenv); err == nil || !strings.Contains(err.Error(), `did you mean "cursor"`) {
		t.Errorf("a misspelt client: %v", err)
	}
}

func TestOnPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "mcptest")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !OnPath(string(os.PathListSeparator)+dir, "mcptest") || OnPath(dir, "other") || OnPath("", "mcptest") {
		t.Error("OnPath")
	}
}
