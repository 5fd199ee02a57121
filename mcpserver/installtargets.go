package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
)

// InstallTarget is one file `mcptest mcp-server --install` writes, with
// the client whose shape it takes.
type InstallTarget struct {
	Path   string
	Client Client
	// Within is the workspace root for a workspace's own config file,
	// which a link must not lead out of; "" for a file named by the user
	// or the user's own config.
	Within string
}

// InstallTargets resolves the files --install writes: path (--install-path,
// in client's shape, else the shape its name says), else client's file
// (Claude Desktop's user config, or the file under root), else every
// client file present under root, else root's .mcp.json. An unknown client
// is an error naming the valid set and the nearest name.
func InstallTargets(root, client, path string, getenv func(string) string) ([]InstallTarget, error) {
	var named *Client
	if client != "" {
		cl, ok := ClientByName(client)
		if !ok {
			msg := fmt.Sprintf("--client %q: expected one of %s", client, strings.Join(ClientNames(), ", "))
			if s := diag.Suggest(client, ClientNames()); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, fmt.Errorf("%s", msg)
		}
		named = &cl
	}
	switch {
	case path != "" && named != nil:
		return []InstallTarget{{path, *named, ""}}, nil
	case path != "":
		return []InstallTarget{{path, ClientForPath(path), ""}}, nil
	case named != nil && named.Path == "":
		return []InstallTarget{{DesktopConfigPath(getenv), *named, ""}}, nil
	case named != nil:
		return []InstallTarget{{filepath.Join(root, named.Path), *named, root}}, nil
	}
	var out []InstallTarget
	for _, cl := range DetectClients(root) {
		out = append(out, InstallTarget{filepath.Join(root, cl.Path), cl, root})
	}
	if len(out) == 0 {
		cl, _ := ClientByName("claude-code")
		out = []InstallTarget{{filepath.Join(root, cl.Path), cl, root}}
	}
	return out, nil
}

// OnPath reports whether an executable named name is in one of the
// directories of path (a PATH value).
func OnPath(path, name string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, n := range []string{name, name + ".exe"} {
			if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() && (fi.Mode()&0o111 != 0 || strings.HasSuffix(n, ".exe")) {
				return true
			}
		}
	}
	return false
}
