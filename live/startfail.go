package live

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// telling matches a line of a server's stderr that says why it stopped.
var telling = regexp.MustCompile(`(?i)error|cannot|can't|not found|no such|denied|refused|missing|failed|ENOENT|EACCES`)

// nodeModule is Node's word for a module file it could not find, with the
// folder holding node_modules.
var nodeModule = regexp.MustCompile(`Cannot find module '([^']*?)/node_modules/([^']*)'`)

// stderrSays is what a server that failed to start wrote to stderr, as one
// readable clause for the end of the error's line: the line of its stderr
// that says why (the last that reads like an error, else its last line),
// and for a Node server missing its own module, what to install and how.
// "" when stderr is empty.
func stderrSays(stderr string) string {
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	why := lines[len(lines)-1]
	for i := len(lines) - 1; i >= 0; i-- {
		if telling.MatchString(lines[i]) && !strings.HasPrefix(lines[i], "at ") {
			why = lines[i]
			break
		}
	}
	if len(why) > 300 {
		why = why[:300] + "…"
	}
	out := "; its stderr says: " + why
	if m := nodeModule.FindStringSubmatch(stderr); m != nil {
		pkg := m[2]
		if parts := strings.Split(pkg, "/"); strings.HasPrefix(pkg, "@") && len(parts) > 1 {
			pkg = parts[0] + "/" + parts[1]
		} else {
			pkg = parts[0]
		}
		dir := m[1]
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, dir); err == nil && !strings.HasPrefix(rel, "../../..") {
				dir = rel
			}
		}
		how := fmt.Sprintf("npm install --prefix %s %s", dir, pkg)
		if _, err := os.Stat(filepath.Join(m[1], "package-lock.json")); err == nil {
			how = "npm ci --prefix " + dir
		} else if _, err := os.Stat(filepath.Join(m[1], "package.json")); err == nil {
			how = "npm install --prefix " + dir
		}
		out += fmt.Sprintf(" (the server's npm package %s is not installed: install it with `%s`)", pkg, how)
	}
	return out
}
