package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine"
)

// The workspace store is the directory mcptest run writes to and the
// mcp-server front door reads (list_runs, get_run): .mcptest/ in the
// working directory, or the directory MCPTEST_DIR names. Its layout:
//
//	.mcptest/runs/<run_id>.json   the envelope of every mcptest run (run ids sort by time)
//	.mcptest/cache/<key>.json     cached case results (see engine.DirCache)
const storeEnv = "MCPTEST_DIR"

// storePath returns a path inside the workspace store.
func (c *Command) storePath(elem ...string) string {
	dir := c.Getenv(storeEnv)
	if dir == "" {
		dir = ".mcptest"
	}
	return filepath.Join(append([]string{dir}, elem...)...)
}

// storeRun writes the run's envelope to .mcptest/runs/<run_id>.json. A
// store that cannot be written costs a warning, never the run's verdict.
func (c *Command) storeRun(env *engine.Envelope) {
	var buf bytes.Buffer
	if err := (annotate.JSON{}).Report(&buf, env); err != nil {
		return
	}
	dir := c.storePath("runs")
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, env.Run.ID+".json"), buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(c.Stderr, "mcptest: warning: the run was not stored in the workspace: %v\n", err)
	}
}
