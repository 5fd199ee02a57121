// Package mcpserver is the front door an agent drives mcptest through:
// `mcptest mcp-server`, an MCP server on stdio (the official Go SDK) whose
// tools are mcptest's verbs.
//
// What flows through it: a verb's arguments in, a JSON document out. The
// artifact readers (list_runs, get_run, list_cassettes, get_cassette,
// get_coverage, get_doctor_report) read the workspace's .mcptest/ store and
// its cassettes; validate_suite and the introspection verbs (list_tools,
// list_resources, list_prompts, get_capabilities) answer with exactly the
// documents the CLI prints, from the renderers the CLI prints with
// (engine.ValidationDocument, live.Document), so the two cannot drift; the
// scaffolders (scaffold_suite, scaffold_conformance, scaffold_redteam,
// scaffold_eval) introspect the target once, never call a tool, and render
// with the functions `mcptest generate` renders with; the writers
// (run_tool_test, trigger_run, record_cassette, propose_assertions) run the
// server under test and answer only when the operator started the front
// door with --enable-writes. A command target (a raw argv) is started only
// when writes are enabled or when that exact argv is declared under
// servers: in the workspace's mcptest.yml; a url target is reached, and a
// bearer token from the front door's environment sent to it, only when
// writes are enabled or when that exact url is declared there with that
// bearer_token_env (gate.go).
//
// Discover (discover.go) finds the MCP servers a workspace's and a user's
// client configs declare, and Diagnose (walk.go) starts each one it can
// and reads its catalog, hiding every value a ${VAR} reference expanded
// to: DoctorWalk (`mcptest doctor` with no target), and get_doctor_report.
//
// The CLI's renderings of what its live commands read are here too
// (render.go: WriteCatalog, WriteLayers, WriteLint, WriteSecurity), as are
// Generate and WriteSuite behind `mcptest generate` and InstallFrontDoor
// behind `mcp-server --install`: cmd/mcptest parses the flags and calls
// them. Everything a server said is printed through annotate.Clean.
//
// The workspace store (.mcptest/, or where MCPTEST_DIR says) is this
// package's: Store (workspace.go) is how `mcptest run` keeps each run's
// envelope there and bounds the store, and the artifact readers read the
// same layout.
//
// Every file the front door reads or writes in the workspace goes through
// an os.Root (paths.go): a name outside it (an absolute path elsewhere, a
// "..", a symbolic link leading out, a cassette: or catalog: of an inline
// suite) is refused before anything touches it, with words that never
// depend on what lies outside. Reads are bounded (internal/safefile: a FIFO
// or a device is refused, never waited on) and writes go by rename.
//
// On stdio the front door reads its frames itself (StdioTransport): a line
// that is not a JSON-RPC 2.0 message is answered with the JSON-RPC error it
// deserves and the session goes on, where the SDK's transport would end it.
//
// It is its own top-level package because it is neither the offline engine
// nor a reporter: it is a second user interface beside cmd/mcptest, built on
// live (the MCP client and transports), engine (the suite model and the
// envelope) and annotate (the agent-shaped failures).
package mcpserver
