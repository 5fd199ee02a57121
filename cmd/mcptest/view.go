package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcptest/mcptest/annotate/viewer"
)

// viewContext is the lifetime of `mcptest view`'s server: until an
// interrupt. Tests replace it with a context they cancel.
var viewContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// viewListening, when set, is told the server's address once it listens.
var viewListening func(base string)

// openBrowser opens the served report; tests replace it.
var openBrowser = viewer.OpenBrowser

// view is `mcptest view RUN.json`: it serves the run's HTML report on a
// loopback port (annotate/viewer) and prints the run's snapshot address.
// With --snapshot FILE it writes the snapshot viewer page to FILE and
// prints a file:// address that carries the envelope.
func (c *Command) view(args []string) error {
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
	if *noServe && *snapshot == "" {
		return inputErr("--no-serve goes with --snapshot FILE")
	}
	store := viewer.Store{Runs: func() (string, error) { return c.storeDir("runs") }}
	file, note, err := store.Pick(pos, *latest, *runID)
	if err != nil {
		return inputOf(err)
	}
	if note != "" {
		fmt.Fprintf(c.Stderr, "mcptest: %s\n", note)
	}
	env, err := c.readRun(file)
	if err != nil {
		return err
	}
	v, err := viewer.New(env, store)
	if err != nil {
		return err
	}
	if *snapshot != "" {
		u, err := v.WriteSnapshot(*snapshot)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "snapshot: %s\n", u)
	}
	if *noServe {
		return nil
	}
	ln, err := v.Listen(*addr)
	if err != nil {
		return inputOf(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, stop := viewContext()
	defer stop()
	fmt.Fprintf(c.Stderr, "mcptest: serving the report of %s on %s/ (Ctrl-C stops)\n", file, base)
	fmt.Fprintf(c.Stdout, "report: %s/\nsnapshot: %s/snapshot#%s\n", base, base, v.Fragment)
	if viewListening != nil {
		viewListening(base)
	}
	if *open {
		if err := openBrowser(base + "/"); err != nil {
			fmt.Fprintf(c.Stderr, "mcptest: could not open a browser (%v); open %s/ yourself\n", err, base)
		}
	}
	return v.Serve(ctx, ln)
}
