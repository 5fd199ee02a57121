package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcptest/mcptest/internal/safefile"
)

// MaxConfigBytes caps an MCP config file doctor reads.
const MaxConfigBytes = 4 << 20

// Discovered is one server declared in a client's MCP config: the inverse
// of what --install writes.
type Discovered struct {
	Name   string
	File   string // the config file it came from
	Client string // the client that reads the file
	// Scope says which part of the file: "" for the file's servers,
	// "project DIR" for a Claude Code local-scope entry in ~/.claude.json.
	Scope   string
	Command []string
	Env     map[string]string
	URL     string
	// Headers of a remote server.
	Headers map[string]string
	// Unset are the environment variables the entry references that are
	// not set; Prompts are VS Code ${input:...} prompts. A server with
	// either is reported, not started.
	Unset, Prompts []string
}

// configFile is one file the discovery walk reads.
type configFile struct {
	path   string
	client Client
	user   bool // a user file, read with its project entries for root
}

// configFiles are the workspace's and the user's MCP configs, in the order
// the walk reads them.
func configFiles(root string, getenv func(string) string) []configFile {
	var out []configFile
	for _, c := range Clients {
		if c.Path != "" {
			out = append(out, configFile{filepath.Join(root, c.Path), c, false})
		}
	}
	if home := getenv("HOME"); home != "" {
		cc, _ := ClientByName("claude-code")
		cur, _ := ClientByName("cursor")
		out = append(out, configFile{filepath.Join(home, ".claude.json"), cc, true}, configFile{filepath.Join(home, ".cursor", "mcp.json"), cur, true})
	}
	desk, _ := ClientByName("claude-desktop")
	return append(out, configFile{DesktopConfigPath(getenv), desk, true})
}

// Discover reads every MCP config of the workspace root and of the user
// and returns their servers in file order, then name order; checked lists
// every file looked at. A file that is missing is skipped; one that cannot
// be read or parsed is an error naming it.
func Discover(root string, getenv func(string) string) (servers []Discovered, checked []string, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, err
	}
	var errs []error
	for _, f := range configFiles(abs, getenv) {
		checked = append(checked, f.path)
		data, err := safefile.ReadFile(f.path, MaxConfigBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", f.path, err))
			continue
		}
		project := ""
		if f.user {
			project = abs
		}
		found, err := ParseConfig(data, f.path, f.client, project)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for i := range found {
			found[i].Unset, found[i].Prompts = references(found[i], getenv)
		}
		servers = append(servers, found...)
	}
	return servers, checked, errors.Join(errs...)
}

// rawServer is a server entry as the clients write it.
type rawServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// ParseConfig reads the servers of one client config file. project, when
// set, also reads Claude Code's local-scope servers of that project
// directory from ~/.claude.json's projects map. An entry that is not an
// object of the documented shape is an error naming the file and server.
func ParseConfig(data []byte, file string, client Client, project string) ([]Discovered, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object: %v", file, err)
	}
	out, err := parseServers(doc[client.Key], file, client.Name, "")
	if err != nil || project == "" || doc["projects"] == nil {
		return out, err
	}
	var projects map[string]map[string]json.RawMessage
	if err := json.Unmarshal(doc["projects"], &projects); err != nil {
		return out, fmt.Errorf("%s: projects is not an object of objects: %v", file, err)
	}
	local, err := parseServers(projects[project]["mcpServers"], file, client.Name, "project "+project)
	return append(out, local...), err
}

// parseServers reads one name -> entry object, sorted by name.
func parseServers(raw json.RawMessage, file, client, scope string) ([]Discovered, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var entries map[string]rawServer
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("%s: the servers are not an object of server entries (command, args, env or url, headers): %v", file, err)
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Discovered
	for _, n := range names {
		e := entries[n]
		d := Discovered{Name: n, File: file, Client: client, Scope: scope, Env: e.Env, URL: e.URL, Headers: e.Headers}
		switch {
		case e.Command != "" && e.URL != "":
			return out, fmt.Errorf("%s: server %q has both command and url; expected one", file, n)
		case e.Command != "":
			d.Command = append([]string{e.Command}, e.Args...)
		case e.URL == "":
			return out, fmt.Errorf("%s: server %q has neither command nor url", file, n)
		}
		out = append(out, d)
	}
	return out, nil
}

// varRef matches ${VAR}, ${VAR:-default} (Claude Code, Cursor),
// ${env:VAR} (VS Code, Cursor) and ${input:ID} (VS Code).
var varRef = lazyRegexp(`\$\{(?:(env|input):)?([A-Za-z_][A-Za-z0-9_.-]*)(:-[^}]*)?\}`)

// references lists the unset variables and the input prompts d refers to.
func references(d Discovered, getenv func(string) string) (unset, prompts []string) {
	seen := map[string]bool{}
	for _, s := range d.Strings() {
		for _, m := range varRef().FindAllStringSubmatch(s, -1) {
			key := m[1] + ":" + m[2]
			if seen[key] {
				continue
			}
			seen[key] = true
			switch {
			case m[1] == "input":
				prompts = append(prompts, m[2])
			case m[3] == "" && getenv(m[2]) == "":
				unset = append(unset, m[2])
			}
		}
	}
	return unset, prompts
}

// Strings are every value of d a client expands variables in: the url,
// the argv, then the env and header values in key order.
func (d Discovered) Strings() []string {
	out := append([]string{d.URL}, d.Command...)
	for _, m := range []map[string]string{d.Env, d.Headers} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, m[k])
		}
	}
	return out
}

// References are the ${...} variable references of s that Expand replaces,
// in order (VS Code ${input:...} prompts are left out: they expand to
// nothing here).
func References(s string) []string {
	var out []string
	for _, m := range varRef().FindAllStringSubmatch(s, -1) {
		if m[1] != "input" {
			out = append(out, m[0])
		}
	}
	return out
}

// Expand replaces the variable references of s with their values (or
// their :- defaults), as the clients do when they start a server.
func Expand(s string, getenv func(string) string) string {
	return varRef().ReplaceAllStringFunc(s, func(ref string) string {
		m := varRef().FindStringSubmatch(ref)
		if m[1] == "input" {
			return ref
		}
		if v := getenv(m[2]); v != "" {
			return v
		}
		return strings.TrimPrefix(m[3], ":-")
	})
}

// Relative shows path relative to root when it is inside it, else with
// the home directory as ~.
func Relative(path, root, home string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	if home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return path
}
