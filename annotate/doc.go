// Package annotate holds every surface that shows a run to a reader. Each
// reporter renders from the run envelope (report.Envelope) and nothing
// else, so `mcptest report run.json --format X` gives what `mcptest run
// --reporter X` gave, without a second run.
//
// New picks a reporter by name, NewComparison the reporter of a
// comparison with a baseline. The pretty reporter is for people at a
// terminal (colour only when asked for); the json reporter writes the
// canonical envelope, byte for byte deterministic. junit (JUnit XML for CI
// test tabs), sarif (SARIF 2.1.0 for code scanning, written by WriteSARIF,
// which doctor and security share) and html (the self-contained auditor
// view) render the same envelope for other readers; the problems of a case
// (caseProblems) and the run's provenance are computed once for all three.
// SnapshotPage and SnapshotFragment are the viewer of a run carried in its
// own address (mcptest view): the html report's own body, built by the
// same model and templates within the snapshot's share of evidence, and
// the envelope named by its sha256, deflated against the viewer's preset
// dictionary (snapshot.go). RunList and CaseHistory are
// the pages mcptest view (the viewer subpackage) serves over the runs
// stored in the workspace: the
// runs with a comparison picker, and one case across them. The html
// report's pieces are html.go (the page), htmlfigures.go (figures against
// their thresholds, grouped by gate), htmlevidence.go (the run
// timelines, within the page's budget) and htmlpack.go (the details past
// the page's first 512 KiB, held compressed and decoded on opening).
//
// For the GitHub Action, action.go turns a run and its comparison with the
// baseline (an ActionReport) into workflow-command annotations (written
// through go-githubactions, spent in priority order within the runner's
// limits), the job summary, the sticky PR comment and the drift issue, all
// cut in priority order under GitHub's size limits; safe.go holds the
// markdown escaping of untrusted text (Text, Fence, MarkerKey). The sticky
// comment and the drift issue are found by their first line (HasMarker).
// trend.go renders an ActionReport's Trend (the history input), which the
// Action draws from package history's fold of the window (it sits above
// this package, so the Trend is plain figures and names: nothing here
// counts a flip or decides a slide): one line per floor that fell, under
// the verdict of the summary, comment and issue, and the summary's
// bounded trend block after the floor flips; TrendText is the same trend
// as plain lines for the log.
//
// Under GitHub Actions every line mcptest prints goes through a RunnerLog
// (runnerlog.go), which neutralises whatever the runner would run as a
// workflow command; the commands mcptest emits itself take its Commands
// path. The agent reporter's repro: lines quote a case name for a POSIX
// shell, or write it with Go escapes for --filter-escaped (EscapeName).
package annotate
