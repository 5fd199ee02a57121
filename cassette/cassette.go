package cassette

import "iter"

// Version is the cassette format version this package reads and writes.
const Version = 1

// Format names the recording a Cassette was read from.
type Format string

// The recordings a cassette path may hold.
const (
	FormatV1        Format = "mcptest-v1"
	FormatOpenAI    Format = "openai-chat"
	FormatAnthropic Format = "anthropic-messages"
	FormatResponses Format = "openai-responses"
	FormatOTel      Format = "otel-genai"
	// FormatClaudeCode is the stream-json output of Claude Code and the
	// Claude Agent SDK.
	FormatClaudeCode Format = "claude-stream-json"
)

// Cassette is one recorded agent test: provenance, the catalog the model was
// shown, and one entry per run of the same prompt.
type Cassette struct {
	// Path is the file the cassette was read from, as given to the reader.
	Path   string
	Format Format

	Agent      string
	Model      string
	Provider   string
	RecordedAt string
	Prompt     string

	// Catalog is the tools/list result each server returned, ordered by
	// server name.
	Catalog []ServerCatalog

	Runs []Run

	// Warnings say what the reader had to guess of the recording (spans
	// that share no trace, grouped into runs by time), for the commands
	// to show; nil when it guessed nothing.
	Warnings []string
}

// ServerCatalog is the tools one server advertised.
type ServerCatalog struct {
	Server string
	Tools  []Tool
}

// Tool is one entry of a tools/list result. Its name and description are
// strings; the entry itself is kept as its JSON text (Text), decoded where
// a gate reads more than the name (InputSchema, Raw, Member), as a call's
// arguments are: a catalog of many tools holds their bytes, not a Go map
// for each JSON object of their schemas (SECURITY.md, the memory a replay
// costs).
type Tool struct {
	// Name is "" when the entry has none (or not a string).
	Name string
	// Description is "" when the entry has none (or not a string).
	Description string
	// Text is the entry as encoding/json writes it decoded (compact,
	// members in key order, numbers as a float64 writes them, <, > and &
	// as they are), its optional members that were null left out; "" for
	// none.
	Text JSON
}

// Run is one run of the prompt.
type Run struct {
	Turns       []Turn
	Delegations []Delegation
	// Tokens is nil when the recording carries no token usage.
	Tokens *Tokens
	// CostMicros is nil when the recording carries no cost.
	CostMicros *int64
}

// Calls yields the run's calls in call order, across turns, each with its
// index in that order and where it lies: a run of a million calls is read
// without a copy of them (112 bytes a call), which no gate may make.
func (r *Run) Calls() iter.Seq2[int, *Call] {
	return func(yield func(int, *Call) bool) {
		n := 0
		for ti := range r.Turns {
			calls := r.Turns[ti].Calls
			for ci := range calls {
				if !yield(n, &calls[ci]) {
					return
				}
				n++
			}
		}
	}
}

// Turn is one user turn: the calls the agent made and its final text.
type Turn struct {
	Calls []Call
	// FinalResponse is the agent's final text for the turn; "" when absent.
	FinalResponse string
}

// Call is one tool call.
type Call struct {
	// Server is "" when the recording does not say which server answered.
	Server string
	Tool   string
	// Arguments is the JSON the agent sent, as compact text (decoded on
	// demand by Arguments.Value): normally an object. A transcript whose
	// arguments string does not parse keeps it as a JSON string; "" when
	// none were recorded (or null).
	Arguments JSON
	IsError   bool
	// Result is the CallToolResult, nil when not recorded: as its compact
	// text (a JSON) in every cassette Read, Stream and Tally give, decoded
	// in one built by hand. ResultValue gives it decoded.
	Result any
	// DurationMS is nil when not recorded.
	DurationMS *float64
	// Agent is the agent of a multi-agent system that made the call.
	Agent string
	// RecordedAs is the name the recording gave the tool when a suite's
	// aliases: made it Tool; "" when Tool is the name as recorded.
	RecordedAs string
}

// ResultValue returns the call's result decoded (as encoding/json decodes
// into an any), nil when not recorded; a result kept as text is decoded
// afresh at each call.
func (c Call) ResultValue() any {
	if j, ok := c.Result.(JSON); ok {
		return j.Value()
	}
	return c.Result
}

// ID returns the call's qualified id, server.tool, or the bare tool name when
// the server is unknown.
func (c Call) ID() string {
	if c.Server == "" {
		return c.Tool
	}
	return c.Server + "." + c.Tool
}

// Delegation is an agent-to-agent hand-off observed in a run.
type Delegation struct {
	From string
	To   string
}

// Tokens is the conversation's token usage for one run.
type Tokens struct {
	// Input counts every input token, cached ones included.
	Input int64
	// Cached is the part of Input read from the provider's prompt cache,
	// where the trace records it (OpenAI cached_tokens, Anthropic
	// cache_read_input_tokens); it is priced at the cached-input rate.
	Cached int64
	Output int64
	Total  int64
}
