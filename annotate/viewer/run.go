package viewer

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/report"
)

// Options are what `mcptest view` asks of the viewer.
type Options struct {
	// Args, Latest and RunID pick the run (Store.Pick).
	Args   []string
	Latest bool
	RunID  string
	// Addr is the HOST:PORT to serve on, a loopback address.
	Addr string
	// Snapshot, when set, is where to write the snapshot viewer page; its
	// file:// address is printed. NoServe stops there.
	Snapshot string
	NoServe  bool
	// Context is the server's lifetime: it serves until the context ends;
	// nil is UntilInterrupt.
	Context func() (context.Context, context.CancelFunc)
	// Listening, when set, is told the server's address once it listens.
	Listening func(base string)
	// Open, when set, opens the served report (OpenBrowser).
	Open func(url string) error
	// Stdout takes the addresses; Stderr what the viewer is doing. nil
	// discards.
	Stdout, Stderr io.Writer
}

// UntilInterrupt is a server's lifetime until an interrupt or a
// termination signal.
func UntilInterrupt() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// Run shows the run o picks from store as o asks: it reads the run
// (bounded, baseline.ReadFile), writes the snapshot viewer, then serves
// the run and the store's pages until o.Context ends, printing the
// report's and the snapshot's addresses. Wrong input is a
// *diag.InputError.
func Run(store Store, o Options) error {
	if o.NoServe && o.Snapshot == "" {
		return input("--no-serve goes with --snapshot FILE")
	}
	if o.Context == nil {
		o.Context = UntilInterrupt
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	file, note, err := store.Pick(o.Args, o.Latest, o.RunID)
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintf(o.Stderr, "mcptest: %s\n", note)
	}
	env, err := baseline.ReadFile(file, "", report.Read)
	if err != nil {
		return err
	}
	v, err := New(env, store)
	if err != nil {
		return err
	}
	if o.Snapshot != "" {
		u, err := v.WriteSnapshot(o.Snapshot)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.Stdout, "snapshot: %s\n", u)
	}
	if o.NoServe {
		return nil
	}
	ln, err := v.Listen(o.Addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	ctx, stop := o.Context()
	defer stop()
	fmt.Fprintf(o.Stderr, "mcptest: serving the report of %s on %s/ (Ctrl-C stops)\n", file, base)
	fmt.Fprintf(o.Stdout, "report: %s/\nsnapshot: %s/snapshot#%s\n", base, base, v.Fragment)
	if o.Listening != nil {
		o.Listening(base)
	}
	if o.Open != nil {
		if err := o.Open(base + "/"); err != nil {
			fmt.Fprintf(o.Stderr, "mcptest: could not open a browser (%v); open %s/ yourself\n", err, base)
		}
	}
	return v.Serve(ctx, ln)
}
