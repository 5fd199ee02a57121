package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"github.com/mcptest/mcptest/engine/safefile"
)

// DefaultInstallPath is where --install writes when no client's file is
// present: Claude Code's project file, at the workspace root.
const DefaultInstallPath = ".mcp.json"

// Client is an MCP client whose config file --install writes and doctor
// reads, with the file's documented shape.
type Client struct {
	// Name is the --client value: claude-code, cursor, vscode,
	// claude-desktop.
	Name string
	// Path is the project file, relative to the workspace root; "" for a
	// client that has only a user file (claude-desktop).
	Path string
	// Key is the object that holds the servers: mcpServers, or servers for
	// VS Code.
	Key string
	// Typed clients want "type": "stdio" on a command entry (VS Code).
	Typed bool
	// Doc is the client's documentation page for the file.
	Doc string
}

// Clients are the clients --install knows, in detection order.
var Clients = []Client{
	{Name: "claude-code", Path: ".mcp.json", Key: "mcpServers", Doc: "https://docs.anthropic.com/en/docs/claude-code/mcp (project scope: .mcp.json)"},
	{Name: "cursor", Path: ".cursor/mcp.json", Key: "mcpServers", Doc: "https://docs.cursor.com/context/model-context-protocol (project: .cursor/mcp.json)"},
	{Name: "vscode", Path: ".vscode/mcp.json", Key: "servers", Typed: true, Doc: "https://code.visualstudio.com/docs/copilot/chat/mcp-servers (workspace: .vscode/mcp.json)"},
	{Name: "claude-desktop", Key: "mcpServers", Doc: "https://modelcontextprotocol.io/quickstart/user (claude_desktop_config.json)"},
}

// ClientNames lists the clients' names for messages.
func ClientNames() []string {
	var names []string
	for _, c := range Clients {
		names = append(names, c.Name)
	}
	return names
}

// ClientByName finds a client by its --client name.
func ClientByName(name string) (Client, bool) {
	for _, c := range Clients {
		if c.Name == name {
			return c, true
		}
	}
	return Client{}, false
}

// ClientForPath is the client whose file path is: VS Code's shape for a
// .vscode/mcp.json, Claude Desktop's for claude_desktop_config.json, else
// the mcpServers shape Claude Code and Cursor share.
func ClientForPath(path string) Client {
	slash := filepath.ToSlash(path)
	for _, c := range Clients[1:3] {
		if strings.HasSuffix(slash, c.Path) {
			return c
		}
	}
	if filepath.Base(path) == desktopFile {
		return Clients[3]
	}
	return Clients[0]
}

const desktopFile = "claude_desktop_config.json"

// DesktopConfigPath is Claude Desktop's config file for the platform:
// ~/Library/Application Support/Claude on macOS, %APPDATA%\Claude on
// Windows, ~/.config/Claude elsewhere.
func DesktopConfigPath(getenv func(string) string) string {
	home := getenv("HOME")
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "Claude", desktopFile)
	case "windows":
		return filepath.Join(getenv("APPDATA"), "Claude", desktopFile)
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "Claude", desktopFile)
	}
	return filepath.Join(home, ".config", "Claude", desktopFile)
}

// DetectClients lists the clients whose project file is present under
// root, in Clients order.
func DetectClients(root string) []Client {
	var found []Client
	for _, c := range Clients {
		if c.Path == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, c.Path)); err == nil && fi.Mode().IsRegular() {
			found = append(found, c)
		}
	}
	return found
}

// Install writes the mcptest entry into the agent config at path, in the
// shape its file name says (see ClientForPath).
func Install(path, command string, enableWrites bool) (changed bool, err error) {
	return InstallFor(path, ClientForPath(path), command, enableWrites)
}

// maxInstall bounds the agent config InstallFor reads.
const maxInstall = 8 << 20

// InstallFor writes the mcptest entry under the client's servers key in
// the config file at path, preserving every other server and key. It
// reports whether the file changed: a second identical install changes
// nothing. The file is read bounded and written by rename, with its own
// mode.
func InstallFor(path string, client Client, command string, enableWrites bool) (changed bool, err error) {
	// A link (a config kept with the dotfiles) is written through: the
	// file it names is replaced, the link stays.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	perm := os.FileMode(0o644)
	doc := map[string]json.RawMessage{}
	old, err := safefile.ReadFile(path, maxInstall)
	switch {
	case err == nil && len(bytes.TrimSpace(old)) > 0:
		if err := json.Unmarshal(old, &doc); err != nil {
			return false, fmt.Errorf("%s is not a JSON object: %w (fix or move it; mcptest will not overwrite it)", path, err)
		}
	case err != nil && safefile.IsLimit(err):
		return false, fmt.Errorf("%w (mcptest will not overwrite it)", err)
	case err != nil && !os.IsNotExist(err):
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm() // the config may hold tokens: keep its mode
	}
	servers := map[string]json.RawMessage{}
	if raw, ok := doc[client.Key]; ok {
		if err := json.Unmarshal(raw, &servers); err != nil {
			return false, fmt.Errorf("%s: %s is not an object: %w", path, client.Key, err)
		}
	}
	entry := installEntry(client, command, enableWrites)
	if raw, ok := servers["mcptest"]; ok {
		var cur map[string]any
		if json.Unmarshal(raw, &cur) == nil && sameEntry(cur, entry) {
			return false, nil
		}
	}
	servers["mcptest"], _ = json.Marshal(entry)
	doc[client.Key], _ = json.Marshal(servers)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return false, err
	}
	out = append(out, '\n')
	if bytes.Equal(out, old) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	if err := safefile.WriteFile(path, out, perm); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}

// installEntry is the mcptest server entry in the client's shape.
func installEntry(client Client, command string, enableWrites bool) map[string]any {
	args := []string{"mcp-server"}
	if enableWrites {
		args = append(args, "--enable-writes")
	}
	entry := map[string]any{"command": command, "args": args}
	if client.Typed {
		entry["type"] = "stdio"
	}
	return entry
}

// sameEntry compares an existing entry's command, args and type with ours;
// other keys the user added (env, cwd) are kept and do not count as a
// change.
func sameEntry(cur, want map[string]any) bool {
	var args []any
	for _, a := range want["args"].([]string) {
		args = append(args, a)
	}
	return cur["command"] == want["command"] && reflect.DeepEqual(cur["args"], args) && cur["type"] == want["type"]
}
