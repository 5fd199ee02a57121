package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcptest/mcptest/internal/diag"
)

// SuiteNames are the suite files FindSuite looks for, in order: the front
// door's default first.
var SuiteNames = []string{"mcptest.yml", "suite.yml"}

// NoSuiteError is FindSuite finding no suite: where it looked, and up to
// which directory.
type NoSuiteError struct {
	// Dir is where the search started (absolute); Top the last directory
	// looked in, Dir itself outside any repository.
	Dir, Top string
}

func (e *NoSuiteError) Error() string {
	if e.Top == e.Dir {
		return fmt.Sprintf("no suite: no %s or %s in %s, which is in no repository (outside one, mcptest looks in the working directory only); give --config FILE", SuiteNames[0], SuiteNames[1], e.Dir)
	}
	return fmt.Sprintf("no suite: no %s or %s in %s or its parents up to %s; give --config FILE", SuiteNames[0], SuiteNames[1], e.Dir, e.Top)
}

// FindSuite looks for mcptest.yml, then suite.yml, in dir and its parents
// up to the repository root (the first directory holding .git). Outside any
// repository it looks in dir alone: the parents of a directory that is in
// no repository (/tmp, a shared home) may be anyone's, and a suite found
// there names servers that run would start. It returns the path relative
// to dir when it can, or a *NoSuiteError inside a *diag.InputError (wrong
// input: the user names a suite or goes where one is).
func FindSuite(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	top := RepoRoot(abs)
	for d := abs; ; d = filepath.Dir(d) {
		for _, name := range SuiteNames {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				if rel, err := filepath.Rel(abs, p); err == nil {
					return rel, nil
				}
				return p, nil
			}
		}
		if d == top {
			return "", &diag.InputError{Err: &NoSuiteError{Dir: abs, Top: top}}
		}
	}
}

// RepoRoot is the repository root dir is in: dir or the nearest parent
// holding .git; dir itself when no parent does.
func RepoRoot(dir string) string {
	for d := dir; ; {
		if IsRepoRoot(d) {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// IsRepoRoot reports whether dir is a repository's root: it holds .git (a
// directory, or a file in a worktree).
func IsRepoRoot(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil || !errors.Is(err, os.ErrNotExist)
}

// SuiteIn is the suite a path names: a directory holding one of
// SuiteNames names that file (as FindSuite finds it, without going up to
// the parents); any other path is itself, a directory without a suite
// refused where it is read.
func SuiteIn(path string) string {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return path
	}
	for _, name := range SuiteNames {
		f := filepath.Join(path, name)
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return f
		}
	}
	return path
}
