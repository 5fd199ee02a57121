package mcpserver

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// TestInstallKeepsTheFile: --install changes only the mcptest entry's
// bytes: the file's key order, layout and other servers stay as written,
// a null servers key becomes the servers object, and an existing entry
// keeps the keys the user added.
func TestInstallKeepsTheFile(t *testing.T) {
	claude, _ := ClientByName("claude-code")
	vscode, _ := ClientByName("vscode")
	for _, c := range []struct {
		name      string
		client    Client
		old, want string
	}{
		{"null servers", claude, "{\n  \"z\": 1,\n  \"mcpServers\": null\n}\n",
			"{\n  \"z\": 1,\n  \"mcpServers\": {\n    \"mcptest\": {\n      \"args\": [\n        \"mcp-server\"\n      ],\n      \"command\": \"mcptest\"\n    }\n  }\n}\n"},
		{"order and layout kept", claude, "{\n    \"zeta\": true,\n    \"mcpServers\": {\n        \"b\": {\"command\": \"b\"},\n        \"a\": {\"command\": \"a\"}\n    },\n    \"alpha\": 2\n}\n",
			"{\n    \"zeta\": true,\n    \"mcpServers\": {\n        \"b\": {\"command\": \"b\"},\n        \"a\": {\"command\": \"a\"},\n        \"mcptest\": {\n            \"args\": [\n                \"mcp-server\"\n            ],\n            \"command\": \"mcptest\"\n        }\n    },\n    \"alpha\": 2\n}\n"},
		{"one line", claude, `{"mcpServers": {"gh": {"command": "gh"}}}`,
			`{"mcpServers": {"gh": {"command": "gh"}, "mcptest": {"args": ["mcp-server"], "command": "mcptest"}}}`},
		{"no servers key", vscode, "{\n  \"inputs\": []\n}",
			"{\n  \"inputs\": [],\n  \"servers\": {\n    \"mcptest\": {\n      \"args\": [\n        \"mcp-server\"\n      ],\n      \"command\": \"mcptest\",\n      \"type\": \"stdio\"\n    }\n  }\n}"},
		{"empty servers", claude, `{"mcpServers": {}}`, `{"mcpServers": {"mcptest": {"args": ["mcp-server"], "command": "mcptest"}}}`},
		{"entry updated, env kept", claude, "{\"mcpServers\": {\"mcptest\": {\"command\": \"/old/mcptest\", \"args\": [\"mcp-server\"], \"env\": {\"A\": \"1\"}}, \"x\": {}}}",
			"{\"mcpServers\": {\"mcptest\": {\"args\": [\"mcp-server\"], \"command\": \"mcptest\", \"env\": {\"A\": \"1\"}}, \"x\": {}}}"},
		{"same entry unchanged", claude, "{\"mcpServers\":{\"mcptest\":{\"command\":\"mcptest\",\"args\":[\"mcp-server\"]}}}",
			"{\"mcpServers\":{\"mcptest\":{\"command\":\"mcptest\",\"args\":[\"mcp-server\"]}}}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := withEntry([]byte(c.old), c.client, installEntry(c.client, "mcptest", false))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestInstallRefuses: a config --install cannot edit without changing what
// it means is refused with what was found, as wrong input, and left as it
// was; a workspace's config that is a link out of the workspace is not
// written through.
func TestInstallRefuses(t *testing.T) {
	for _, c := range []struct{ old, at, want string }{
		{"null", "1:1", "expected a JSON object {...}, found null"},
		{`[{"mcpServers": {}}]`, "1:1", `expected a JSON object {...}, found "["`},
		{`{"mcpServers": {"a": {}},` + "\n" + ` "mcpServers": {}}`, "2:2", `the key "mcpServers" is given twice`},
		{`{"mcpServers": {"a": {}, "a": {"command": "x"}}}`, "1:26", `mcpServers: the key "a" is given twice`},
		{"{\n  \"mcpServers\": []}", "2:17", `mcpServers: expected a JSON object {...}, found "["`},
		{`{"mcpServers": {}} {}`, "1:20", "expected the end of the document"},
		{`{"mcpServers": {"a" 1}}`, "1:21", "not a JSON object: invalid character '1' after object key"},
		{`{"mcpServers":: {}}`, "1:15", "not a JSON object: invalid character ':'"},
		{`{"mcpServers": {"a": tru}}`, "1:25", "not a JSON object: invalid character '}' in literal true"},
		{`{"mcpServers": {`, "1:17", "unexpected EOF"},
	} {
		path := filepath.Join(t.TempDir(), ".mcp.json")
		if err := os.WriteFile(path, []byte(c.old), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Install(path, "mcptest", false)
		var ie *diag.InputError
		want := path + ":" + c.at + ": "
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ie) {
			t.Errorf("%s: error %v, want an input error at %s saying %q", c.old, err, c.at, c.want)
		}
		if data, _ := os.ReadFile(path); string(data) != c.old {
			t.Errorf("%s: the file was changed to %s", c.old, data)
		}
	}

	root, outside := t.TempDir(), t.TempDir()
	target := filepath.Join(outside, "elsewhere.json")
	if err := os.WriteFile(target, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, ".mcp.json")); err != nil {
		t.Skip("symlink:", err)
	}
	err := InstallFrontDoor(new(strings.Builder), InstallRequest{Root: root, Absolute: true, Exe: "/bin/mcptest", Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("a link out of the workspace: %v", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "{}" {
		t.Errorf("the file outside the workspace was written: %s", data)
	}
}

// FuzzWithEntry: whatever a config file holds, the edit never panics; when
// it is made, the result is JSON whose every other top-level key is as it
// was and whose servers hold the mcptest entry.
func FuzzWithEntry(f *testing.F) {
	for _, s := range []string{"", "null", "{}", `{"mcpServers": null}`, `{"a": 1, "mcpServers": {"x": {}}}`,
		"{\n  \"mcpServers\": {\n    \"mcptest\": {\"command\": \"old\", \"env\": {}}\n  }\n}", `{"mcpServers": {"a": 1, "a": 2}}`, `[1]`, `{"mcpServers": {`} {
		f.Add([]byte(s))
	}
	claude, _ := ClientByName("claude-code")
	f.Fuzz(func(t *testing.T, old []byte) {
		out, err := withEntry(old, claude, installEntry(claude, "mcptest", false))
		if err != nil {
			return
		}
		var got, was map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("the edit of %q is not JSON: %v\n%s", old, err, out)
		}
		servers, _ := got["mcpServers"].(map[string]any)
		entry, _ := servers["mcptest"].(map[string]any)
		if entry["command"] != "mcptest" {
			t.Fatalf("the edit of %q has no mcptest entry:\n%s", old, out)
		}
		if json.Unmarshal(old, &was) == nil {
			for k, v := range was {
				if k != "mcpServers" && !reflect.DeepEqual(got[k], v) {
					t.Fatalf("the edit of %q changed %q:\n%s", old, k, out)
				}
			}
		}
	})
}
