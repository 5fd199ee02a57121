// Package history folds a window of run envelopes, oldest first, into the
// history of each suite and each case: every figure's series (pass rate,
// pass^k, certified_lower, selection F1, tokens, cost, tool-surface
// tokens), the runs where a case's verdict flipped, the cases that flip
// often, the cases added and removed, a least-squares slope per figure and
// the floors that slid over the window.
//
// It reads one envelope at a time and keeps only each case's figures, never
// an envelope's evidence: a Builder takes Snapshots in order (Add), a
// Snapshot is what history reads of one envelope (ReadSnapshot decodes one
// from a stream case by case; SnapshotOf takes one from a decoded
// envelope), and History returns the fold. Build folds a sequence of
// snapshots; BuildFiles folds envelope files ordered by run.started_at
// (Order), and Command is `mcptest history` once its flags are parsed
// (with --github it first fetches the default branch's baselines through
// baseline.GitHubHistoryDir, the Action's baseline checks). The
// renderers (Text, Markdown, JSON, HTML) print a History; every string in
// it came from an untrusted envelope and is escaped for where it goes.
package history
