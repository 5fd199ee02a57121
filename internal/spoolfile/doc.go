// Package spoolfile creates the temporary files mcptest spools a run's
// cases, a merge or a comparison to before it writes its output: each is
// removed from its directory as soon as it is created, where the system
// allows it (the process keeps the open file), so a process killed
// half-way (SIGKILL, the runner's timeout, an out-of-memory kill) leaves
// nothing in the temporary directory.
package spoolfile
