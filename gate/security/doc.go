// Package security scans tool definitions for description poisoning, the
// documented MCP attack: tool descriptions are untrusted text that flows
// straight into an agent's context. It implements the SEC-NNN rules of
// `mcptest security`; `mcptest tools --format json` runs the description
// subset inline and adds a warnings array when one fires.
//
// Tool definitions (decoded tools/list entries) flow in; findings flow out,
// each with a sanitized one-line summary safe to show a model or a
// terminal. Nothing here follows, fetches or executes what a description
// says.
package security
