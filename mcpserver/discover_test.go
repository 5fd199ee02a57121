package mcpserver

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// configSeeds are client configs as the clients document them, plus the
// broken ones doctor must refuse with a message.
var configSeeds = []string{
	`{"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}}`,
	`{"servers": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${input:token}"}}}, "inputs": [{"id": "token", "type": "promptString"}]}`,
	`{"mcpServers": {"a": {"command": "x", "url": "http://y"}}}`,
	`{"mcpServers": {"a": {}}}`,
	`{"mcpServers": {"a": {"command": 42}}}`,
	`{"mcpServers": [1, 2]}`,
	`{"mcpServers": {"u": {"command": "x"}}, "projects": {"/p": {"mcpServers": {"l": {"url": "http://${HOST:-localhost}/mcp"}}}}}`,
	`{"projects": {"/p": 1}}`,
	`[]`, `null`, `{`, ``,
}

// FuzzParseConfig: whatever a client config file holds, ParseConfig
// returns servers with a name, the file and a command or a URL, or an error
// naming the file; never a panic.
func FuzzParseConfig(f *testing.F) {
	for _, s := range configSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, vscode bool) {
		client := Clients[0]
		if vscode {
			client = Clients[2]
		}
		servers, err := ParseConfig(data, "cfg.json", client, "/p")
		if err != nil && !strings.HasPrefix(err.Error(), "cfg.json: ") {
			t.Fatalf("the error does not name the file: %v", err)
		}
		for _, s := range servers {
			if s.File != "cfg.json" || (len(s.Command) == 0) == (s.URL == "") || (len(s.Command) > 0 && s.Command[0] == "") {
				t.Fatalf("a malformed server: %+v", s)
			}
			unset, _ := references(s, func(string) string { return "" })
			for _, v := range unset {
				if v == "" {
					t.Fatalf("an empty variable name from %+v", s)
				}
			}
		}
	})
}

// TestParseConfigShapes pins the documented shapes: Claude Code's
// mcpServers with its project entries, VS Code's servers, and the
// variables each entry references.
func TestParseConfigShapes(t *testing.T) {
	got, err := ParseConfig([]byte(configSeeds[6]), "c.json", Clients[0], "/p")
	if err != nil || len(got) != 2 || got[0].Name != "u" || got[1].Name != "l" || got[1].Scope != "project /p" {
		t.Fatalf("claude.json: %+v %v", got, err)
	}
	if unset, _ := references(got[1], func(string) string { return "" }); len(unset) != 0 {
		t.Errorf("${HOST:-localhost} has a default, but is reported unset: %v", unset)
	}
	if s := Expand(got[1].URL, func(string) string { return "" }); s != "http://localhost/mcp" {
		t.Errorf("Expand: %q", s)
	}
	vs, err := ParseConfig([]byte(configSeeds[1]), "mcp.json", Clients[2], "")
	if err != nil || len(vs) != 1 {
		t.Fatalf("vscode: %+v %v", vs, err)
	}
	if _, prompts := references(vs[0], os.Getenv); !reflect.DeepEqual(prompts, []string{"token"}) {
		t.Errorf("vscode input prompts: %v", prompts)
	}
	gh, _ := ParseConfig([]byte(configSeeds[0]), "mcp.json", Clients[0], "")
	if unset, _ := references(gh[0], func(string) string { return "" }); !reflect.DeepEqual(unset, []string{"GITHUB_TOKEN"}) {
		t.Errorf("unset: %v", unset)
	}
	for i := 2; i < 6; i++ {
		if _, err := ParseConfig([]byte(configSeeds[i]), "bad.json", Clients[0], ""); err == nil {
			t.Errorf("%s: no error", configSeeds[i])
		}
	}
}

// TestDiscoverReadsClientFiles: Discover finds each workspace client file
// and reads it in that client's shape.
func TestDiscoverReadsClientFiles(t *testing.T) {
	root := t.TempDir()
	for _, c := range Clients[:3] {
		p := filepath.Join(root, c.Path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(`{"`+c.Key+`": {"`+c.Name+`": {"command": "x"}}}`), 0o644)
	}
	got, checked, err := Discover(root, func(string) string { return "" })
	if err != nil || len(got) != 3 || len(checked) < 3 {
		t.Fatalf("%+v %v %v", got, checked, err)
	}
	for i, c := range Clients[:3] {
		if got[i].Name != c.Name || got[i].Client != c.Name {
			t.Errorf("server %d: %+v", i, got[i])
		}
	}
}
