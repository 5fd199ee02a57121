// Package cassette is the model of a recorded agent run and its readers.
//
// A cassette file is read into a Cassette: the tools the agent was shown and,
// for each run, the calls it made, what came back, what it finally said and
// what it cost. The recordings read are detected by their content, never
// by their file name: the mcptest cassette format v1; an OpenAI Chat
// Completions or Anthropic Messages transcript, a single message of either,
// or a Chat Completions response object (transcript.go); OpenAI Responses
// API output (responses.go); OpenTelemetry GenAI spans as OTLP JSON
// (otel.go); Claude Code stream-json output (claudecode.go); Mastra's
// stored messages (mastra.go); LlamaIndex.TS ChatMessage arrays and agent
// workflow events (llamaindex.go); and Inspect AI eval logs, the .json
// EvalLog (inspect.go) and the .eval zip archive, read from memory within
// bounds on entries, sizes and compression ratio against zip bombs
// (inspectarchive.go), each sample of each epoch a run. A file of
// JSON Lines (lines.go) holds one recording per line, each line a run or
// runs of the file, or one stream-json session or OTLP export spread over
// its lines. Every gate of mcptest reads Cassette values and nothing else.
//
// What flows through: bytes (at most MaxSize, read by Load, which refuses
// a file that is not regular or over the limit from its stat) are checked
// to be JSON by json.Valid (a file it refuses is positioned by
// encoding/json), then decoded value by value by a
// hand-written decoder (decode.go) that knows the byte offset of all it
// reads. A v1 cassette is decoded straight into the model, run by run:
// Stream hands each run to its caller as soon as it is read and keeps none,
// so reading a recording costs its bytes and one run, not a tree of the
// whole file (Read is Stream keeping every run). A model's answer in the
// Chat Completions shapes (an assistant message with tool_calls, or a
// response whose choices hold such messages) is decoded straight into its
// calls too (chat.go). A transcript of plain Chat Completions or Messages
// messages (chatmessages.go), an OTLP export (otelstream.go), and a
// LangChain or AI SDK message list (liststream.go) are read a piece at a
// time: what the format's detection weighs counted first where it weighs
// every message, then each message or span decoded into generic values,
// read by the generic reader's own code, walked by the audit and let go.
// Any other recording is decoded into generic values whole and converted,
// and so is any of those shapes with a problem, so its errors are the
// generic path's. Arguments and results
// are kept as their compact JSON text (JSON), catalog tools as theirs, and
// read as encoding/json reads them (numbers are float64) when decoded. A
// key repeated in any object is refused. What the decoder builds, and what
// each kept text would build, is held to a decode budget of 12 times the
// bytes plus 16 MiB (budget.go): JSON that costs more to decode is refused
// where the budget runs out. Nothing is redacted here: reports pass values
// through internal/redact.
//
// The v1 format is published as a JSON Schema in engine/schema
// (cassette.v1.json); a test holds the reader and the schema to the same
// verdict on every file of testdata.
//
// A transcript is one run. Its messages map to turns and calls as follows.
// A user message starts a new turn once the agent has answered the current
// one (consecutive user messages make one turn, and a last user message the
// agent never answered makes none); the first user message is the
// cassette's Prompt. OpenAI assistant tool_calls and Anthropic tool_use
// blocks become calls, in order; an OpenAI arguments string is parsed as
// JSON, kept as the string when it does not parse, and read as no arguments
// when empty. OpenAI tool messages (matched by tool_call_id, else the first
// call still waiting) and Anthropic tool_result blocks (matched by
// tool_use_id) become results {"content": [...]}, with is_error from the
// block, or for OpenAI only from an explicit is_error or isError field. The
// last assistant text of a turn is its final response. usage (top-level, or
// else summed over messages; prompt_tokens/completion_tokens/total_tokens
// or input_tokens/output_tokens) gives the run's tokens. A tool name
// mcp__<server>__<tool> is split into server and tool.
//
// The other recordings map into the same model: a Responses API list of
// responses and items is one run (function_call and mcp_call items are
// calls, function_call_output items results, mcp_list_tools the catalog);
// an OTLP trace is one run (execute_tool spans, and MCP tools/call spans
// outside them, are its calls in start order, else the tool_call parts of
// its model calls' output messages; gen_ai.usage.* of the innermost spans
// that have it are its tokens, invoke_agent spans its agents and
// delegations); a stream-json session, from its init event to its
// result event, is one run (assistant and user events read as Anthropic
// messages, the result event's usage and total_cost_usd the tokens and
// cost). docs/traces.md says what each cannot carry.
//
// A malformed file is a *diag.Error (or a diag.List) that names
// file:line:col (1-based, columns in characters) of the offending value and
// its JSON Pointer, and says what was expected; a repeated key is placed at
// its repetition and names the first. Positions are worked out from the
// bytes only when there is an error, so reading a good file costs a check
// and one decode. At most 100 problems of a file are reported, then a count
// of the rest.
//
// Writing goes the other way through File (write.go): the v1 document as
// typed structs, keys in the format's order, which `mcptest record` fills
// from a proxied session and the generator (gen) from its corpus. A
// cassette record --append adds to is read back with DecodeFile, which
// keeps its runs, catalog entries and x- extensions as the bytes it read.
package cassette
