package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine"
)

// The workspace store is the directory mcptest run writes to and the
// mcp-server front door reads (list_runs, get_run): .mcptest/ in the
// working directory, or the directory MCPTEST_DIR names. Its layout:
//
//	.mcptest/runs/<run_id>.json   the envelope of every mcptest run (run ids sort by time)
//	.mcptest/cache/<key>.json     cached case results (see engine.DirCache)
//
// The store is bounded: after each run it keeps the newest keepRuns
// envelopes and keepCache cache entries, so a workspace that runs mcptest
// on every save does not grow without end.
const storeEnv = "MCPTEST_DIR"

// The store's bounds; variables so a test can lower them.
var (
	keepRuns  = 200
	keepCache = 4096
)

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
	prune(dir, keepRuns, func(a, b os.DirEntry) bool { return a.Name() > b.Name() })
	prune(c.storePath("cache"), keepCache, func(a, b os.DirEntry) bool {
		ia, erra := a.Info()
		ib, errb := b.Info()
		if erra != nil || errb != nil || ia.ModTime().Equal(ib.ModTime()) {
			return a.Name() < b.Name()
		}
		return ia.ModTime().After(ib.ModTime())
	})
}

// prune keeps the first keep .json files of dir in the order newer gives
// (run ids sort by time; cache entries by when they were written) and
// removes the rest, with any temporary file a killed writer left behind
// more than an hour ago. Pruning is best effort: a file that cannot be
// removed stays.
func prune(dir string, keep int, newer func(a, b os.DirEntry) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var files []os.DirEntry
	for _, e := range entries {
		switch {
		case e.IsDir():
		case strings.HasSuffix(e.Name(), ".json"):
			files = append(files, e)
		case strings.HasSuffix(e.Name(), ".tmp"):
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	if len(files) <= keep {
		return
	}
	sort.SliceStable(files, func(i, j int) bool { return newer(files[i], files[j]) })
	for _, e := range files[keep:] {
		os.Remove(filepath.Join(dir, e.Name()))
	}
}
