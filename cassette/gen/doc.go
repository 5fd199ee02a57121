// Package gen generates realistic mcptest cassettes (format v1) for
// benchmarks and load tests, deterministically: the same seed and index
// always give the same bytes.
//
// What flows through: real data embedded from data/ (the tools/list
// results of 27 real MCP servers and 29 real tasks with their gold tool
// sequences from LiveMCPBench; the 14 τ-bench airline tools with 9 real
// recorded call sequences, their arguments and observations), decoded
// once, becomes one v1 cassette per index: provenance (agent, model
// version, provider, recorded_at, the task's prompt), a catalog holding
// the servers the task needs plus one general server (search, fetch,
// files or time), verbatim, and 1 to 3 runs (one most often). A run has
// 2 to 6 turns of 1 to 5 calls (the low counts likelier, as in recorded
// traces): the task's own calls first, in order, then calls to the
// catalog's tools. Arguments are the recorded ones when known, else real
// example arguments, else values drawn from the tool's inputSchema (enums,
// bounds, nesting) with content that follows the property name (a url for
// "url", a path for "path"). Results are CallToolResult values: recorded
// τ-bench observations for the airline tools, and otherwise text shaped by
// what the tool does (hits of a search, a markdown page for a fetch, one
// line for a write, a JSON record also given as structuredContent), a few
// hundred bytes to a few KB. One call in sixteen fails with a real error
// text and is retried when the turn has room; one run in five hands off
// from a planner to a worker agent, which makes the calls. Every turn ends
// with a final response; each run carries token counts that grow with the
// conversation and the cost at the model's list price. Prose is a word
// bigram chain over the real prompts and tool descriptions.
//
// With the default seed a cassette is 5 to 90 KB, 27 KB at the median
// (10th and 90th percentiles 15 and 43 KB); 2,000 cassettes hold 3,121
// runs, 9,866 turns and 21,915 calls (1,306 failed) in 57 MB.
//
// Write puts n cassettes in a directory with three suites over them: one
// test reading the whole directory (the case where memory must not grow
// with the number of cassettes) and one test per 100 cassettes, which
// pass, and one test per cassette gating its task's gold tools
// (CaseSuite: the case where memory must not grow with the number of
// cases), where a few recorded tasks fall short.
//
// WriteFailing puts n cassettes in a directory with a suite in which every
// case fails: each cassette (FailingCassette) has three runs, each calling
// the restricted filesystem.move_file once, and each test (FailingSuite)
// gates its task's tools and restricts Restricted, so every case keeps
// its evidence (the shape the HTML report's size is held to).
//
// WriteTranscripts puts n model answers in a directory, as an eval
// harness such as promptfoo saves an OpenAI model's output (the bare
// assistant message with its tool_calls, or the whole Chat Completions
// response) or as v1 cassettes of the same content, with a suite scoring
// each answer's tool calls against its task's gold tools
// (TranscriptSuite).
//
// # Attribution
//
// data/livemcpbench.json is derived from LiveMCPBench
// (github.com/icip-cas/LiveMCPBench, commit a928e57d1ee7a25579b9a7036030faffff72d15b,
// Apache-2.0; Mo et al., "LiveMCPBench: Can Agents Navigate an Ocean of MCP
// Tools?", arXiv:2508.01780); its tool entries are the tools/list output of
// third-party open-source MCP servers. data/taubench.json is derived from
// τ-bench (github.com/sierra-research/tau-bench, commit
// 59a200c6d575d595120f1cb70fea53cef0632f6b, MIT, © 2024 Sierra; Yao et al.,
// arXiv:2406.12045). data/README.md says what was taken and how.
package gen
