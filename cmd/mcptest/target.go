package main

import (
	"errors"
	"flag"

	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/live"
)

// targetSynopsis is how a command's usage line names its target; a command
// that needs a live server leaves out --catalog (liveTargetSynopsis).
const targetSynopsis, liveTargetSynopsis = live.TargetSynopsis, live.LiveTargetSynopsis

// addTargetFlags adds the target flags to fs (live.AddTargetFlags;
// withCatalog adds --catalog): a built target's secrets join the mask, and
// --server reads its target from --config (engine.ServerTarget).
func (c *Command) addTargetFlags(fs *flag.FlagSet, withCatalog bool) *live.TargetFlags {
	tf := live.AddTargetFlags(fs, withCatalog)
	tf.Know, tf.Suite = c.knowTarget, engine.ServerTarget
	tf.NoServer = func(err error) bool { return errors.As(err, new(*engine.NoServerError)) }
	return tf
}

// loadCatalog reads the target's catalog (live.LoadInput).
func (c *Command) loadCatalog(t live.Target, lists live.Lists) (*live.Catalog, error) {
	return live.LoadInput(t, c.Getenv, lists)
}

// readCatalog parses the target flags, then reads the lists of the target
// they name.
func (c *Command) readCatalog(tf *live.TargetFlags, args []string, lists live.Lists) (*live.Catalog, error) {
	if err := tf.Parse(args); err != nil {
		return nil, err
	}
	t, err := tf.Target()
	if err != nil {
		return nil, err
	}
	return c.loadCatalog(t, lists)
}

// timeoutFlag is --timeout: a positive duration.
type timeoutFlag = cli.Duration
