package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
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
	return InstallFor(path, ClientForPath(path), command, enableWrites, "")
}

// maxInstall bounds the agent config InstallFor reads.
const maxInstall = 8 << 20

// InstallFor writes the mcptest entry under the client's servers key in
// the config file at path, preserving every other server and key and the
// file's own order and layout: only the mcptest entry's bytes change. It
// reports whether the file changed: a second identical install changes
// nothing. A file it cannot edit without changing what it means (not an
// object, a servers key that is not an object, a key given twice) is
// refused with what was found. The file is read bounded and written by
// rename, with its own mode. A link is written through to the file it
// names (a config kept with the dotfiles), unless within is set (the
// workspace root, for a workspace's own config) and the link leads out of
// it: a committed link must not make --install write outside the
// workspace.
func InstallFor(path string, client Client, command string, enableWrites bool, within string) (changed bool, err error) {
	if path, err = resolveLink(path, within); err != nil {
		return false, &diag.InputError{Err: err}
	}
	perm := os.FileMode(0o644)
	old, err := safefile.ReadFile(path, maxInstall)
	switch {
	case err != nil && safefile.IsLimit(err):
		return false, fmt.Errorf("%w (mcptest will not overwrite it)", err)
	case err != nil && !os.IsNotExist(err):
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm() // the config may hold tokens: keep its mode
	}
	out, err := withEntry(old, client, installEntry(client, command, enableWrites))
	if err != nil {
		return false, &diag.InputError{Err: fmt.Errorf("%s: %w (fix or move it; mcptest will not overwrite it)", placeIn(path, old, err), err)}
	}
	if bytes.Equal(out, old) {
		return false, nil
	}
	if err := writeConfig(path, within, out, perm); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}

// writeConfig writes a config file by rename: with within, inside an
// os.Root of the workspace, so no link in the path, committed or swapped
// in since resolveLink looked, can lead the write out of it.
func writeConfig(path, within string, data []byte, perm os.FileMode) error {
	if within == "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return safefile.WriteFile(path, data, perm)
	}
	rootDir := safefile.Resolve(within)
	rel, err := filepath.Rel(rootDir, path)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(rootDir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return err
	}
	return safefile.WriteFileIn(root, rel, data, perm)
}

// resolveLink is the file path names, through links (of the file, or of
// a directory above it when the file does not exist yet:
// safefile.Resolve), refused when within is set and the file is outside
// it.
func resolveLink(path, within string) (string, error) {
	real := safefile.Resolve(path)
	if within == "" {
		if r, err := filepath.EvalSymlinks(path); err == nil {
			return r, nil
		}
		return path, nil // not there yet, or not readable: the write says
	}
	root := safefile.Resolve(within)
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is a link to %s, outside the workspace %s: mcptest will not write through it (give the file itself with --install-path)", path, real, within)
	}
	return real, nil
}

// withEntry is the config file old with the mcptest entry set to entry
// under the client's servers key; an empty file becomes a new config. An
// existing mcptest entry keeps the keys the user added (env, cwd) and
// counts as the same when its command, args and type are.
func withEntry(old []byte, client Client, entry map[string]any) ([]byte, error) {
	if len(bytes.TrimSpace(old)) == 0 {
		b, _ := json.MarshalIndent(map[string]any{client.Key: map[string]any{"mcptest": entry}}, "", "  ")
		return append(b, '\n'), nil
	}
	root, err := readObject(old, 0, len(old))
	if err != nil {
		return nil, err
	}
	l := layoutOf(old, root)
	m, ok := root.get(client.Key)
	if !ok || string(old[m.start:m.end]) == "null" {
		return setMember(old, root, 0, l, client.Key, l.render(map[string]any{"mcptest": entry}, 1)), nil
	}
	servers, err := readObject(old, m.start, m.end)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", client.Key, err)
	}
	if cur, ok := servers.get("mcptest"); ok {
		var have map[string]any
		if json.Unmarshal(old[cur.start:cur.end], &have) == nil {
			if sameEntry(have, entry) {
				return old, nil
			}
			for k, v := range have {
				if _, ours := entry[k]; !ours {
					entry[k] = v
				}
			}
		}
	}
	return setMember(old, servers, 1, l, "mcptest", l.render(entry, 2)), nil
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

// placeIn is path:line:col of a refusal of the config file's JSON, or path
// alone when the refusal has no place in it.
func placeIn(path string, data []byte, err error) string {
	var ee *editError
	if !errors.As(err, &ee) {
		return path
	}
	line, col := diag.LineCol(data, int64(ee.offset))
	return diag.Pos{File: path, Line: line, Col: col}.String()
}
