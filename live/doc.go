// Package live talks to real MCP servers: it connects to a target (a stdio
// command with its env, or a streamable HTTP url with a bearer token read
// from an env var), reads its catalogs (tools, resources, prompts and
// capabilities), reads a saved catalog file, and serves a catalog as a
// deterministic mock server.
//
// It is its own package because it is the only code of mcptest that does
// network and process I/O, through the official MCP Go SDK: engine/ stays an
// offline replay engine that imports this package for the suites that name a
// live server, and this package imports nothing of mcptest but leaves, so
// the dependency direction stays one-way (cmd → engine → live).
//
// What flows through it: a Target in, a Catalog out; a Catalog in, an MCP
// server out. A 401 or 403 from an HTTP target comes back as an *AuthError
// whose message says what to set and how to diagnose it. Document is a
// catalog as `mcptest tools --format json` prints it and the front door's
// list verbs answer it (with the description-poisoning warnings of
// gate/security); SurfaceTokens is what listing its tools costs, and
// Layers the connection layers `mcptest doctor` reports. Record is `mcptest
// record`: a Recording collects the calls ProxyServer forwards (to an agent
// on stdio, or over streamable HTTP with ProxyHTTP) and renders them as a
// v1 cassette (cassette.File), added to the one ReadRecording read
// when appending. An *diag.InputError is a refusal of what the user gave (a
// --listen address, a cassette to append to that is not v1), which the
// command reports as wrong input.
package live
