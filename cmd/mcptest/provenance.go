package main

import (
	"runtime"

	"github.com/mcptest/mcptest/engine/report"
)

// environment records where the run happens: the binary's platform and, on
// CI, which CI system and runner.
func (c *Command) environment() *report.Environment {
	e := &report.Environment{Platform: runtime.GOOS + "/" + runtime.GOARCH}
	switch {
	case c.Getenv("GITHUB_ACTIONS") == "true":
		e.CI = "github-actions"
		if os, arch := c.Getenv("RUNNER_OS"), c.Getenv("RUNNER_ARCH"); os != "" || arch != "" {
			e.Runner = os + "/" + arch
		}
	case c.Getenv("CI") != "":
		e.CI = "ci"
	}
	return e
}
