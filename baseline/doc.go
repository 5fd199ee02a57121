// Package baseline compares two run envelopes and merges shard envelopes.
//
// What flows through it: run envelopes (report.Envelope), as `mcptest run
// --reporter json` wrote them, in; a Comparison or a merged Envelope out.
// Compare and Merge read no clock, file or network, so the same envelopes
// always give the same result. file.go reads a saved envelope from disk
// for the commands, bounded before the read starts (ReadFile; CompareFile
// and MergeFiles on top of it; ReadEnvelopes, the Action's merge job,
// bounds the shard files together), and marks what is the user's wrong input
// (diag.InputError, exit 2). The network lives in fetch.go alone: the
// GitHub type fetches the default branch's baseline artifact for the
// Action in the order of action.md (FetchBaseline, with every acceptance
// filter, and ReadArtifactEntry, which reads the one expected zip entry
// and refuses paths that climb out, links and entries over the cap). Each
// use of the API runs under a time budget (Budgeted; FetchOptions.Budget)
// that bounds every attempt and retry; each answer is cut at a size cap;
// the API URL's user-info never reaches a request URL, so no error carries
// it; untrusted names are quoted and clipped in every message. The
// ghapitest subpackage is the GitHub API stand-in its tests run against.
// Every baseline read from the API passes one path (walk): FetchBaseline
// keeps the first run it accepts, FetchHistory (fetchhistory.go;
// FetchGitHubHistory for the command line) the last N, each written by
// rename into a directory of the caller's; an artifact whose download
// does not match the digest the API lists, or listed under another run,
// is refused on that path.
//
// The window FetchHistory fetches is folded by package history (the one
// model of a window, its series, flips and slide rule), never here.
//
// # Comparison
//
// Compare(baseline, current) matches cases by name and gives, in order of
// appearance (the current run's cases in suite order, then the cases only
// the baseline has, in its order), one CaseDelta per case with a status:
//
//   - same: the case is in both runs and they can be compared honestly;
//   - new: only the current run has it;
//   - removed: only the baseline has it;
//   - not_comparable: both have it, but a difference in what was measured
//     means a change of verdict would not say anything about the agent.
//
// A comparable case carries the delta of every target with both values
// (tool_selection.f1 92 -> 75 (-17)) and the counts behind them, and every
// floor flip: the case verdict, an assertion (matched by block, index and
// target) or a floor (matched by name) whose verdict went pass -> fail (a
// regression) or fail -> pass (a fix). A change to or from inconclusive is
// shown but is not a flip.
//
// # When two cases are not comparable
//
// A case is not comparable, with every reason that applies, when:
//
//   - the baseline envelope has another schema_version (then every case is,
//     and the whole comparison says so);
//   - its kind differs;
//   - its definition_sha256 differs or is missing on either side: the
//     case's definition in the suite changed (another floor, other classes,
//     another cassette path);
//   - its number of recorded runs differs;
//   - its cassette set differs: one side has cassettes and the other not,
//     or the number of cassette files differs. The cassettes' sha256 alone
//     is deliberately not a reason: re-recording the agent is exactly what a
//     pull request changes, and the comparison is there to show what that
//     did. A changed digest is reported as evidence (cassettes_changed). The
//     envelope does not name the files, so renaming a cassette while keeping
//     their number is not detected; adding or removing one is;
//   - its assertions (block, index, target) or its floors (by name) are not
//     the same set on both sides, which an unchanged definition only allows
//     when the two runs come from different versions of mcptest.
//
// A not-comparable case is never counted as a flip, and its targets are
// shown without a delta. Other mismatches (another mcptest version, another
// run mode, another suite file) are warnings, as benchstat warns about
// mismatched inputs instead of refusing them.
//
// # Failing a build
//
// FailOn decides the exit of `mcptest report --compare`: regressions (the
// default) fails on a pass -> fail flip and on any failing case the
// baseline cannot vouch for (a new or not-comparable case, or one that was
// inconclusive in the baseline); flips only on
// pass -> fail flips; failures on any failing case; none never.
//
// # Merging shards
//
// Merge combines the envelopes of `mcptest run --shard i/n` into the
// envelope one unsharded run would have written: cases in suite order
// (sorted by position), totals and verdict recounted with
// report.Envelope.Tally; the merged run is live when any shard called a
// server, and its run.cached is the sum of the shards'. Shards of different suites, schema versions or mcptest versions,
// a case in two shards, a shard given twice and a missing shard are
// errors.
package baseline
