package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/mcptest/mcptest/engine/safefile"
)

// DefaultInstallPath is where --install writes, under the workspace.
const DefaultInstallPath = ".claude/mcp.json"

// maxInstall bounds the agent config Install reads.
const maxInstall = 8 << 20

// Install writes the mcptest entry under mcpServers in the agent config
// file at path, preserving every other server and key. It reports whether
// the file changed: a second identical install changes nothing. The file
// is read bounded and written by rename, with its own mode.
func Install(path, exe string, enableWrites bool) (changed bool, err error) {
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
	if raw, ok := doc["mcpServers"]; ok {
		if err := json.Unmarshal(raw, &servers); err != nil {
			return false, fmt.Errorf("%s: mcpServers is not an object: %w", path, err)
		}
	}
	args := []string{"mcp-server"}
	if enableWrites {
		args = append(args, "--enable-writes")
	}
	entry := map[string]any{"command": exe, "args": args}
	if raw, ok := servers["mcptest"]; ok {
		var cur map[string]any
		if json.Unmarshal(raw, &cur) == nil && sameEntry(cur, entry) {
			return false, nil
		}
	}
	servers["mcptest"], _ = json.Marshal(entry)
	doc["mcpServers"], _ = json.Marshal(servers)
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

// sameEntry compares an existing entry's command and args with ours; other
// keys the user added (env, cwd) are kept and do not count as a change.
func sameEntry(cur, want map[string]any) bool {
	var args []any
	for _, a := range want["args"].([]string) {
		args = append(args, a)
	}
	return cur["command"] == want["command"] && reflect.DeepEqual(cur["args"], args)
}
