package main

import (
	"fmt"
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
// workspace store; a store that cannot be written costs a warning, never
// the run's verdict.
func (c *Command) storeRun(id string, write func(io.Writer) error) {
	if err := (mcpserver.Store{Getenv: c.Getenv}).SaveRun(id, c.masked(write)); err != nil {
		fmt.Fprintf(c.Stderr, "mcptest: warning: the run was not stored in the workspace: %v\n", err)
	}
}
