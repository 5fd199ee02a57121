package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// suiteNames are the suite files looked for when no --config is given, in
// order: the front door's default first.
var suiteNames = []string{"mcptest.yml", "suite.yml"}

// findSuite looks for mcptest.yml, then suite.yml, in dir and its parents
// up to the repository root (the first directory holding .git). Outside any
// repository it looks in dir alone: the parents of a directory that is in
// no repository (/tmp, a shared home) may be anyone's, and a suite found
// there names servers that run would start. It returns the path relative
// to dir when it can.
func findSuite(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	top := repoRoot(abs)
	for d := abs; ; d = filepath.Dir(d) {
		for _, name := range suiteNames {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				if rel, err := filepath.Rel(abs, p); err == nil {
					return rel, nil
				}
				return p, nil
			}
		}
		if d == top {
			if top == abs {
				return "", inputErr("no suite: no %s or %s in %s, which is in no repository (outside one, mcptest looks in the working directory only); give --config FILE", suiteNames[0], suiteNames[1], abs)
			}
			return "", inputErr("no suite: no %s or %s in %s or its parents up to %s; give --config FILE", suiteNames[0], suiteNames[1], abs, d)
		}
	}
}

// repoRoot is the repository root dir is in: dir or the nearest parent
// holding .git; dir itself when no parent does.
func repoRoot(dir string) string {
	for d := dir; ; {
		if isRepoRoot(d) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// isRepoRoot reports whether dir is a repository's root: it holds .git (a
// directory, or a file in a worktree).
func isRepoRoot(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil || !errors.Is(err, os.ErrNotExist)
}

// suiteFile is the suite a command runs: the one named, else the one
// findSuite finds from the working directory, which it says on stderr.
func (c *Command) suiteFile(named string) (string, error) {
	if named != "" {
		return named, nil
	}
	p, err := findSuite(".")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(c.Stderr, "mcptest: using %s\n", p)
	return p, nil
}
