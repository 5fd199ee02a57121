// Package action is the GitHub Action: what `mcptest action` (the
// Dockerfile's entrypoint, described by action.yml) does in a workflow.
//
// What flows through it: the Action's inputs (INPUT_* variables), the
// runner's context (GITHUB_* variables) and the event payload in, decoded
// into go-github's typed events (PullRequestEvent, MergeGroupEvent,
// WorkflowRunEvent); the suite is run offline as `mcptest run` runs it,
// compared with the default branch's baseline (package baseline fetches
// it), and the result goes out as the run envelope and reports written by
// rename beside report-path, workflow-command annotations, the job
// summary, the step's outputs (GITHUB_OUTPUT, in heredocs with a random
// delimiter), the sticky pull request comment and the drift issue. The
// modes (check, baseline, comment, drift) are Run's branches; comment
// mode reads the pull request run's envelope as data and never runs its
// code. A sharded suite runs as shard jobs (mode shard: one shard's
// envelope, no comparison) and one merge job (mode merge: the shards'
// envelopes merged as `mcptest report merge` merges them, then the event's
// mode over the whole suite). Every use of the GitHub API is bounded by
// api-timeout.
//
// With the history input (history.go) the check, baseline and drift modes
// also fetch the default branch's last N baselines (baseline.FetchHistory,
// the baseline fetch's own checks) into a temporary directory, fold them
// with this run into one history.History (package history's model, the
// one fold of a window), draw from it the annotate.Trend of the summary's
// trend block and the comment's and drift issue's sliding-floor lines and
// the page written beside report-path, and, under history-threshold, fail
// the step on a slide by history's one rule, history.Sustained (a warning
// in baseline mode).
//
// It is a package of its own, at the top level beside action.yml, because
// it is a user interface of its own, as cmd/mcptest and mcpserver are: it
// orchestrates engine (the run), baseline (the fetch and the comparison)
// and annotate (the rendering) for one runner, and holds the GitHub I/O
// only the Action needs (comments, pull request lookup, issues). Keeping it
// out of cmd leaves the command line a thin layer of flags, and lets the
// Action's tests drive it against the GitHub API stand-in
// (baseline/ghapitest) directly.
//
// Errors: ErrFailed is a failing gate (exit 1) the Action has already
// reported; an *diag.InputError is wrong input (exit 2); a diag.List is an
// invalid suite or cassette (exit 2), also put on its lines as
// annotations; any other error is an operational failure (exit 3).
package action
