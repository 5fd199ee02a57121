package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcptest/mcptest/engine"
)

// suiteFile is the suite a command runs: the one named, else the one
// engine.FindSuite finds from the working directory, which it says on
// stderr.
func (c *Command) suiteFile(named string) (string, error) {
	if named != "" {
		return suiteIn(named), nil
	}
	p, err := engine.FindSuite(".")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(c.Stderr, "mcptest: using %s\n", p)
	return p, nil
}

// suiteIn is the suite a path names: a directory holding mcptest.yml, else
// suite.yml, names that file (as the lookup without --config finds it,
// without going up to the parents); any other path is itself, a directory
// without a suite refused where it is read.
func suiteIn(path string) string {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return path
	}
	for _, name := range []string{"mcptest.yml", "suite.yml"} {
		f := filepath.Join(path, name)
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return f
		}
	}
	return path
}
