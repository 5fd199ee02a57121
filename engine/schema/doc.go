// Package schema embeds the published JSON Schemas of mcptest's user files,
// the suite (suite.v1.json) and the cassette (cassette.v1.json), and compiles
// them once. The files in this folder are the published contract: editors
// read them through the `# yaml-language-server: $schema=...` header and
// `mcptest validate` checks against exactly these bytes.
package schema
