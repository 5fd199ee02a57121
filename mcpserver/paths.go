package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcptest/mcptest/engine"
)

// The front door reads and writes the workspace through an os.Root, and
// refuses a name outside it before touching anything: lexically first (an
// absolute path elsewhere, a ".." leading out), then through the root,
// which follows symbolic links inside the workspace and refuses one leading
// out from the link alone. So no answer depends on what lies outside: an
// existing and a missing outside file are refused with the same words.

// openRoot opens the workspace as an os.Root.
func (s *server) openRoot() (*os.Root, error) {
	return os.OpenRoot(s.opt.Root)
}

// outside is the one refusal of a name outside the workspace.
func outside(name string) error {
	return fmt.Errorf("%q is outside the workspace: give a path inside the workspace, relative to its root (no absolute path elsewhere, no \"..\" or symbolic link leading out)", name)
}

// local turns name into a clean workspace-relative path, lexically: an
// absolute name must lie under the root, a relative one must not climb out
// of it with "..". It touches nothing.
func (s *server) local(name string) (string, error) {
	n := filepath.FromSlash(name)
	if filepath.IsAbs(n) {
		rel, err := filepath.Rel(s.opt.Root, n)
		if err != nil {
			return "", outside(name)
		}
		n = rel
	}
	if name == "" || !filepath.IsLocal(n) {
		return "", outside(name)
	}
	return filepath.Clean(n), nil
}

// isNotExist reports a name that names nothing (or runs through a file
// where a directory was expected).
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// isEscape reports os.Root's refusal of a name that leads out of it.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// stays checks that rel, a local name, stays inside root through the
// symbolic links on its way. A name that names nothing stays.
func stays(root *os.Root, name, rel string) error {
	_, err := root.Stat(rel)
	switch {
	case err == nil, isNotExist(err):
		return nil
	case isEscape(err):
		return outside(name)
	}
	return fmt.Errorf("%q cannot be resolved inside the workspace: %w", name, err)
}

// inside resolves a workspace-relative name for reading or writing: it is
// lexically inside the workspace and no symbolic link on its way leads out.
// It returns the clean relative name, to be opened through root.
func (s *server) inside(root *os.Root, name string) (string, error) {
	rel, err := s.local(name)
	if err != nil {
		return "", err
	}
	return rel, stays(root, name, rel)
}

// checkSuiteFiles refuses a suite text that names a file outside the
// workspace (a cassette: or catalog: value, a file, a directory or a
// glob), before anything resolves those paths: validate_suite and
// run_tool_test resolve an inline suite's paths against the workspace root.
func (s *server) checkSuiteFiles(name string, data []byte) error {
	refs := engine.SuiteFiles(name, data)
	if len(refs) == 0 {
		return nil
	}
	root, err := s.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	var msgs []string
	for _, ref := range refs {
		if err := s.checkSuiteFile(root, ref.Path); err != nil {
			msgs = append(msgs, fmt.Sprintf("%s:%d:%d: %s %v", ref.Pos.File, ref.Pos.Line, ref.Pos.Col, ref.Key, err))
		}
	}
	if len(msgs) > 0 {
		return fmt.Errorf("the suite names files outside the workspace; nothing was read:\n%s", strings.Join(msgs, "\n"))
	}
	return nil
}

// checkSuiteFile checks one cassette: or catalog: value as the engine
// resolves it: a file, a directory of *.json files, or a glob. Every
// directory a glob reads and every file it matches is reached through
// root, so a link leading out is refused, never followed.
func (s *server) checkSuiteFile(root *os.Root, name string) error {
	local := name
	if local == "" {
		local = "." // the loader resolves "" to the suite's directory
	}
	rel, err := s.local(local)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	if err := stays(root, name, rel); err != nil {
		return err
	}
	pattern := rel
	if st, err := root.Stat(rel); err == nil && st.IsDir() {
		pattern = rel + "/*.json"
	} else if !strings.ContainsAny(rel, `*?[\`) {
		return nil
	}
	matches, err := globIn(root, pattern)
	if err != nil {
		if isEscape(err) {
			return outside(name)
		}
		return fmt.Errorf("%q cannot be resolved inside the workspace: %w", name, err)
	}
	for _, m := range matches {
		if err := stays(root, name, m); err != nil {
			return err
		}
	}
	return nil
}

// globIn expands a slash-separated, local pattern through root, directory
// by directory: a directory that cannot be read because a link leads out
// is an error, one that does not exist matches nothing.
func globIn(root *os.Root, pattern string) ([]string, error) {
	fsys := root.FS()
	cands := []string{"."}
	for _, comp := range strings.Split(pattern, "/") {
		var next []string
		for _, dir := range cands {
			if !strings.ContainsAny(comp, `*?[\`) {
				next = append(next, path.Join(dir, comp))
				continue
			}
			entries, err := fs.ReadDir(fsys, dir)
			if err != nil && !isNotExist(err) {
				return nil, err
			}
			for _, e := range entries {
				if ok, _ := path.Match(comp, e.Name()); ok {
					next = append(next, path.Join(dir, e.Name()))
				}
			}
		}
		cands = next
	}
	return cands, nil
}
