// Package viewer is what `mcptest view` serves: one saved run's HTML
// report, its envelope and the snapshot viewer on a loopback port, and the
// pages over the runs kept in the workspace store (the run list with a
// comparison picker, any stored run's report, a comparison of two, one
// case's history across them).
//
// A run envelope (report.Envelope) and the store's runs directory flow in;
// HTTP answers flow out, rendered by annotate. The server binds a loopback
// address only and answers only requests whose Host is a loopback name, so
// neither another machine nor a web page (by DNS rebinding) reaches it;
// it answers GET and HEAD, with nosniff, no-store and no-referrer headers.
// Every stored run is read bounded (baseline.ReadFile), a run id is
// checked against the shape of an id before it names a file, and at most
// MaxHistoryRuns runs are read for a page, one at a time. The snapshot
// page is written by rename (internal/safefile). Wrong input (an address
// that is not loopback, a run id that is not stored) is a
// *diag.InputError.
//
// The package links annotate, baseline and the envelope, never the runner
// (engine), the MCP client (live) or the MCP SDK.
package viewer
