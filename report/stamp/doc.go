// Package stamp writes the operational facts of a run into its envelope:
// the run id (a ULID, so ids sort by time), and where the run happened (the
// repository, branch and commit a CI system names, or off CI the ones git
// gives, GitSource; the platform and the CI system). These facts come from
// the clock, randomness, the environment and git, which the engine never
// reads: the commands that start a run
// (mcptest run, scenario run, report compare, the Action, the mcp-server
// front door) stamp its envelope here, and only in its run, source and
// environment fields. Build is the mcptest build itself: the version a
// release sets with -ldflags, or the one its build info carries, which
// `mcptest version` prints and every envelope names.
package stamp
