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

// storeAhead is a run's workspace store, its runs bounded beside the run (mcpserver.Store.PruneAhead).
func (c *Command) storeAhead() mcpserver.Store { return mcpserver.Store{Getenv: c.Getenv}.PruneAhead() }

// storeRun keeps run id's envelope, as write makes it, in st beside the report's write (SaveRunAhead).
func (c *Command) storeRun(st mcpserver.Store, id string, write func(io.Writer) error) (wait func()) {
	return st.SaveRunAhead(id, c.masked(write), c.Stderr)
}
