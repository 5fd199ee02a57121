package main

import (
	"context"

	"github.com/mcptest/mcptest/annotate/viewer"
	"github.com/mcptest/mcptest/engine"
)

// viewContext is the lifetime of `mcptest view`'s server; tests replace it
// with a context they cancel.
var viewContext = viewer.UntilInterrupt

// viewListening, when set, is told the server's address once it listens.
var viewListening func(base string)

// openBrowser opens the served report; tests replace it.
var openBrowser = viewer.OpenBrowser

// view is `mcptest view RUN.json`: it serves the run's HTML report on a
// loopback port (annotate/viewer) and prints the run's snapshot address.
// With --snapshot FILE it writes the snapshot viewer page to FILE and
// prints a file:// address that carries the run's report page.
func (c *Command) view(_ context.Context, args []string) error {
	fs := c.newFlags("view", "mcptest view [RUN.json | --latest | --run ID] [--open] [--addr 127.0.0.1:0] [--snapshot FILE [--no-serve]]\n  With no RUN.json, view serves the newest run stored in the workspace (.mcptest/runs/).")
	latest := fs.Bool("latest", false, "serve the newest run stored in the workspace (the default without RUN.json)")
	runID := fs.String("run", "", "serve the stored run `ID` (its run_id, as list_runs and the report show it)")
	open := fs.Bool("open", false, "open the report in the default browser once it is served")
	addr := fs.String("addr", "127.0.0.1:0", "serve on `HOST:PORT`, a loopback address (port 0 picks a free port)")
	snapshot := fs.String("snapshot", "", "write the snapshot viewer page to `FILE` and print the run's file:// snapshot address, which opens without any server")
	noServe := fs.Bool("no-serve", false, "with --snapshot: write the viewer, print the address and exit instead of serving")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	o := viewer.Options{Args: pos, Latest: *latest, RunID: *runID, Addr: *addr, Snapshot: *snapshot, NoServe: *noServe,
		Context: viewContext, Listening: viewListening, Stdout: c.Stdout, Stderr: c.Stderr}
	if *open {
		o.Open = openBrowser
	}
	return viewer.Run(viewer.Store{Runs: func() (string, error) { return c.storeDir("runs") }, Recorded: engine.RecordedEvidence}, o)
}
