package main

import (
	"io"

	"github.com/mcptest/mcptest/mcpserver"
)

// storeEnv moves the workspace store (mcpserver.Store).
const storeEnv = mcpserver.StoreEnv

// storeDir returns a directory of the workspace store (runs, cache,
// reports).
func (c *Command) storeDir(name string) (string, error) {
	return mcpserver.Store{Getenv: c.Getenv}.Dir(name)
}

// storeRun keeps the envelope of run id, as write produces it, in the
// workspace store, beside the report's write (mcpserver.Store.SaveRunAhead).
func (c *Command) storeRun(id string, write func(io.Writer) error) (wait func()) {
	return mcpserver.Store{Getenv: c.Getenv}.SaveRunAhead(id, c.masked(write), c.Stderr)
}
