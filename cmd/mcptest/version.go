package main

import (
	"runtime/debug"

	"github.com/mcptest/mcptest/engine/stamp"
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
	b := stamp.Build{Version: version, Commit: commit, Date: date}.Complete(bi)
	version, commit, date = b.Version, b.Commit, b.Date
}

// buildID identifies this build for the result cache (stamp.Build.CacheKey).
func buildID() string {
	return stamp.Build{Version: version, Commit: commit, Date: date}.CacheKey()
}
