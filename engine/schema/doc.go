// Package schema embeds the published JSON Schemas of mcptest's files, the
// suite (suite.v1.json), the cassette (cassette.v1.json) and the run
// envelope (envelope.v1.json), and compiles them once; `mcptest schema`
// prints them, and Modeline names the suite's in generated suites. The files in this folder are the published contract: editors
// read them through the `# yaml-language-server: $schema=...` header and
// `mcptest validate` checks against exactly these bytes.
package schema
