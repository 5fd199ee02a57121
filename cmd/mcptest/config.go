package main

import (
	"fmt"

	"github.com/mcptest/mcptest/engine"
)

// suiteFile is the suite a command runs: the one named, else the one
// engine.FindSuite finds from the working directory, which it says on
// stderr.
func (c *Command) suiteFile(named string) (string, error) {
	if named != "" {
		return engine.SuiteIn(named), nil
	}
	p, err := engine.FindSuite(".")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(c.Stderr, "mcptest: using %s\n", p)
	return p, nil
}
