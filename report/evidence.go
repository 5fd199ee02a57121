package report

// The marks a call of the evidence may carry: the gate that counted it.
const (
	// MarkUnexpected is a call that matched no class of tool_selection:.
	MarkUnexpected = "unexpected tool"
	// MarkDistractor is a call to a tool distractors: injected.
	MarkDistractor = "distractor"
	// MarkRestricted is a call to a restricted tool of tool_edges:.
	MarkRestricted = "restricted edge"
	// MarkInvalid is a scenario call the world refused as an invalid action.
	MarkInvalid = "invalid action"
	// MarkForbidden is a scenario call that broke a forbidden transition.
	MarkForbidden = "forbidden transition"
	// MarkInvalidArguments is a call whose arguments break the tool's
	// inputSchema (arguments:).
	MarkInvalidArguments = "invalid arguments"
)

// RunEvidence is what one recorded run of a case did, for a reviewer who
// wants to see the calls behind the figures: its turns in order, each call
// with its arguments and a result excerpt, the final response, the
// recorded tokens and cost, and the marks of the gates that counted a call.
// Every text is redacted (internal/redact) and clipped to a bound, with
// Clipped set on what was cut.
type RunEvidence struct {
	Run   int            `json:"run"`
	Model string         `json:"model,omitempty"`
	Turns []TurnEvidence `json:"turns"`
	// Missed names the tool_selection: classes no call of the run reached.
	Missed []string `json:"missed,omitempty"`
	// Tokens is absent when the recording has no token usage.
	Tokens *TokenUse `json:"tokens,omitempty"`
	// CostMicros is the run's cost in millionths of a dollar, absent when
	// not recorded.
	CostMicros *int64 `json:"cost_micros,omitempty"`
	// Figures are the run's own figures of the gates that give them per
	// run (latency.run_ms, steps.calls, steps.turns,
	// trajectory.match_pct); a figure the run has no value for is absent.
	Figures map[string]float64 `json:"figures,omitempty"`
	// Notes say, one line each, what a gate saw of the run: a
	// trajectory's first divergence.
	Notes []string `json:"notes,omitempty"`
	// OmittedCalls counts the calls past the first 40 of the run.
	OmittedCalls int `json:"omitted_calls,omitempty"`
	// ArgumentsInvalid is the run's calls whose arguments break their
	// tool's schema; absent without an arguments: block.
	ArgumentsInvalid *int64 `json:"arguments_invalid,omitempty"`
	// Failed is set on the evidence of a run that failed while its case
	// was computed; it is not written.
	Failed bool `json:"-"`
}

// TurnEvidence is one turn of a run: its calls and the agent's final text.
type TurnEvidence struct {
	Calls         []CallEvidence `json:"calls"`
	FinalResponse string         `json:"final_response,omitempty"`
	Clipped       bool           `json:"clipped,omitempty"`
}

// CallEvidence is one call: its tool, its arguments as compact JSON, an
// excerpt of its result (the text content when the result has some, else
// its JSON), whether it errored, and the marks of the gates that counted
// it (MarkUnexpected, MarkDistractor, MarkRestricted, MarkInvalid,
// MarkForbidden).
type CallEvidence struct {
	Server string `json:"server,omitempty"`
	Tool   string `json:"tool"`
	// RecordedAs is the name the recording gave the tool, when the suite's
	// aliases: made it Tool.
	RecordedAs string   `json:"recorded_as,omitempty"`
	Arguments  string   `json:"arguments,omitempty"`
	Result     string   `json:"result,omitempty"`
	IsError    bool     `json:"is_error,omitempty"`
	DurationMS *float64 `json:"duration_ms,omitempty"`
	Marks      []string `json:"marks,omitempty"`
	// Clipped is true when the arguments or the result were cut.
	Clipped bool `json:"clipped,omitempty"`
	// Violations words how the arguments break the tool's schema
	// (arguments:), at most five.
	Violations []string `json:"violations,omitempty"`
}

// TokenUse is a run's recorded token usage.
type TokenUse struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Total  int64 `json:"total"`
}
