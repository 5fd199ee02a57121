package main

import (
	"context"
	"runtime/debug"

	"github.com/mcptest/mcptest/report/stamp"
)

// version is the mcptest version; commit and date are the release's commit
// and build time (RFC 3339). Release builds set them with -ldflags "-X
// main.version=... -X main.commit=... -X main.date=..."; otherwise init
// reads them from the binary's build info (stamp.Build.Complete).
var (
	version = stamp.SourceVersion
	commit  = ""
	date    = ""
)

func init() {
	bi, _ := debug.ReadBuildInfo()
	b := build().Complete(bi)
	version, commit, date = b.Version, b.Commit, b.Date
}

// build is this build's stamp.
func build() stamp.Build { return stamp.Build{Version: version, Commit: commit, Date: date} }

// buildID identifies this build for the result cache (stamp.Build.CacheKey).
func buildID() string { return build().CacheKey() }

// printVersion is `mcptest version`.
func (c *Command) printVersion(_ context.Context, args []string) error {
	fs := c.newFlags("version", "mcptest version   (also mcptest --version, mcptest -v)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return inputErr("version takes no arguments, got %q", pos)
	}
	build().Write(c.Stdout)
	return nil
}
