package cassette

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
)

func ptr[T any](v T) *T { return &v }

func textResult(s string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
}

func mustRead(t *testing.T, file string) *Cassette {
	t.Helper()
	c, err := ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	decodeResults(c)
	return c
}

// decodeResults replaces each result kept as text by its decoded value,
// so a test compares results as values.
func decodeResults(c *Cassette) {
	for i := range c.Runs {
		for j := range c.Runs[i].Turns {
			for k, call := range c.Runs[i].Turns[j].Calls {
				c.Runs[i].Turns[j].Calls[k].Result = call.ResultValue()
			}
		}
	}
}

// diff fails the test with both values when got and want differ.
func diff(t *testing.T, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("got:\n%s\nwant:\n%s", g, w)
	}
}

func TestReadV1Example(t *testing.T) {
	kept, err := ReadFile("testdata/ok/v1_example.json")
	if err != nil {
		t.Fatal(err)
	}
	// A recorded result is kept as its compact text, not as Go maps.
	if r, ok := kept.Runs[0].Turns[0].Calls[0].Result.(JSON); !ok || r != `{"content":[{"type":"text","text":"21C, sunny"}]}` {
		t.Errorf("result kept as %T %v, want its compact text", kept.Runs[0].Turns[0].Calls[0].Result, kept.Runs[0].Turns[0].Calls[0].Result)
	}
	c := mustRead(t, "testdata/ok/v1_example.json")
	tool := map[string]any{
		"name": "get_weather", "description": "...",
		"inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true},
	}
	want := &Cassette{
		Path:       "testdata/ok/v1_example.json",
		Format:     FormatV1,
		Agent:      "researcher",
		Model:      "claude-sonnet-4-5-20250929",
		Provider:   "anthropic",
		RecordedAt: "2026-11-01T12:00:00Z",
		Prompt:     "What is the weather in Sacramento?",
		Catalog: []ServerCatalog{{Server: "weather", Tools: []Tool{{
			Name: "get_weather", Description: "...", Text: JSONOf(tool),
		}}}},
		Runs: []Run{{
			Turns: []Turn{{
				Calls: []Call{{
					Server: "weather", Tool: "get_weather", Arguments: JSONOf(map[string]any{"city": "Sacramento"}),
					Result: textResult("21C, sunny"), DurationMS: ptr(12.0), Agent: "planner",
				}},
				FinalResponse: "It is 21C and sunny in Sacramento.",
			}},
			Delegations: []Delegation{{From: "planner", To: "worker"}},
			Tokens:      &Tokens{Input: 1200, Output: 320, Total: 1520},
			CostMicros:  ptr(int64(4200)),
		}},
	}
	diff(t, c, want)
	if id := c.Runs[0].Turns[0].Calls[0].ID(); id != "weather.get_weather" {
		t.Errorf("ID() = %q", id)
	}
}

func TestReadV1MultiRun(t *testing.T) {
	c := mustRead(t, "testdata/ok/v1_multirun.json")
	if len(c.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(c.Runs))
	}
	// The catalog is ordered by server name, whatever the file's order.
	var servers []string
	for _, s := range c.Catalog {
		servers = append(servers, s.Server)
	}
	diff(t, servers, []string{"alpha", "zeta"})
	zeta := c.Catalog[1].Tools
	if len(zeta) != 2 || zeta[0].Name != "search" || zeta[0].Description != "" || zeta[1].Description != "Fetches a URL." {
		t.Errorf("zeta tools: %+v", zeta)
	}
	if zeta[0].Raw()["x-vendor"] != 7.0 {
		t.Errorf("Raw does not keep the tool verbatim: %v", zeta[0].Raw())
	}
	r0, r1, r2 := c.Runs[0], c.Runs[1], c.Runs[2]
	// tokens.total defaults to input + output.
	diff(t, r0.Tokens, &Tokens{Input: 900, Output: 100, Total: 1000})
	if r0.CostMicros != nil || len(r0.Turns) != 2 || r0.Turns[1].FinalResponse != "You're welcome." {
		t.Errorf("run 0: %+v", r0)
	}
	// Numbers in arguments are float64.
	diff(t, r0.Turns[0].Calls[0].Arguments.Value(), map[string]any{"q": "refund policy", "limit": 3.0})
	calls := r1.callList()
	if len(calls) != 2 || !calls[0].IsError || calls[1].IsError || *calls[0].DurationMS != 0.5 || calls[0].ID() != "zeta.search" {
		t.Errorf("run 1 calls: %+v", calls)
	}
	if r1.CostMicros == nil || *r1.CostMicros != 0 || r1.Tokens != nil {
		t.Errorf("run 1: cost %v tokens %v", r1.CostMicros, r1.Tokens)
	}
	diff(t, r1.Delegations, []Delegation{{From: "triage", To: "billing"}})
	diff(t, r2, Run{})
}

func TestReadOpenAI(t *testing.T) {
	c := mustRead(t, "testdata/ok/openai_chat.json")
	want := &Cassette{
		Path:   "testdata/ok/openai_chat.json",
		Format: FormatOpenAI,
		Model:  "gpt-4o-2024-08-06",
		Prompt: "What's the weather in Paris and in Rome?",
		Runs: []Run{{
			Turns: []Turn{
				{
					Calls: []Call{
						// mcp__weather__get_weather is split into server and tool.
						{Server: "weather", Tool: "get_weather", Arguments: JSONOf(map[string]any{"city": "Paris"}), Result: textResult("18C, light rain")},
						// Arguments that do not parse stay a string; is_error comes from an explicit field only.
						{Tool: "get_weather", Arguments: JSONOf(`{"city": "Rome"`), IsError: true, Result: textResult("Error: arguments are not valid JSON")},
						// Empty arguments are no arguments; content parts are kept as the content.
						{Tool: "get_weather", Result: textResult("24C, sunny")},
					},
					FinalResponse: "Paris: 18C and light rain. Rome: 24C and sunny.",
				},
				// Two user messages make one turn; text parts are joined; the
				// last user message, never answered, makes no turn.
				{FinalResponse: "Have a good trip!"},
			},
			Tokens: &Tokens{Input: 812, Output: 96, Total: 908},
		}},
	}
	diff(t, c, want)
}

func TestReadOpenAIArray(t *testing.T) {
	c := mustRead(t, "testdata/ok/openai_array.json")
	want := &Cassette{
		Path:   "testdata/ok/openai_array.json",
		Format: FormatOpenAI,
		Prompt: "Read README.md",
		Runs: []Run{{
			Turns: []Turn{{
				// A tool message without tool_call_id answers the first call still waiting.
				Calls:         []Call{{Tool: "read_file", Arguments: JSONOf(map[string]any{"path": "README.md"}), Result: textResult("# mcptest")}},
				FinalResponse: "It is the mcptest README.",
			}},
			// Per-message usage is summed; a missing total_tokens is input + output.
			Tokens: &Tokens{Input: 230, Output: 29, Total: 259},
		}},
	}
	diff(t, c, want)
}

func TestReadAnthropic(t *testing.T) {
	c := mustRead(t, "testdata/ok/anthropic_fs_retry.json")
	want := &Cassette{
		Path:   "testdata/ok/anthropic_fs_retry.json",
		Format: FormatAnthropic,
		Model:  "claude-sonnet-4-5-20250929",
		Prompt: "Summarise the config in /srv/app/config.yaml",
		Runs: []Run{{
			Turns: []Turn{
				{
					Calls: []Call{
						{
							Server: "fs", Tool: "read_file", Arguments: JSONOf(map[string]any{"path": "/srv/app/config.yml"}), IsError: true,
							Result: textResult("ENOENT: no such file or directory, open '/srv/app/config.yml'"),
						},
						{
							Server: "fs", Tool: "read_file", Arguments: JSONOf(map[string]any{"path": "/srv/app/config.yaml"}),
							Result: textResult("port: 8080\nlog_level: info\ndatabase:\n  host: db.internal\n  pool: 10\n"),
						},
					},
					FinalResponse: "The app listens on port 8080, logs at info level and uses a pool of 10 connections to db.internal.",
				},
				{FinalResponse: "Port 8080."},
			},
			Tokens: &Tokens{Input: 1210 + 1350 + 1460 + 1510, Output: 64 + 58 + 41 + 6, Total: 5530 + 169},
		}},
	}
	diff(t, c, want)
}

// TestReadTauBench reads real τ-bench trajectories (OpenAI format, under
// "traj") and checks the calls against the record's own agent_tool_calls:
// names, arguments and observations, in order.
func TestReadTauBench(t *testing.T) {
	files, _ := filepath.Glob("testdata/ok/tau_bench_*.json")
	if len(files) < 2 {
		t.Fatalf("τ-bench records missing: %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var rec struct {
				Traj []struct {
					Role    string
					Content *string
				}
				AgentToolCalls []struct {
					Name        string
					Kwargs      map[string]any
					Observation string
				} `json:"agent_tool_calls"`
			}
			if err := json.Unmarshal(data, &rec); err != nil {
				t.Fatal(err)
			}
			c, err := Read(f, data)
			if err != nil {
				t.Fatal(err)
			}
			if c.Format != FormatOpenAI || len(c.Runs) != 1 {
				t.Fatalf("format %s, %d runs", c.Format, len(c.Runs))
			}
			calls := c.Runs[0].callList()
			if len(calls) != len(rec.AgentToolCalls) {
				t.Fatalf("%d calls, the record lists %d", len(calls), len(rec.AgentToolCalls))
			}
			for i, want := range rec.AgentToolCalls {
				got := calls[i]
				if got.Tool != want.Name || got.Server != "" {
					t.Errorf("call %d: %s, want %s", i, got.ID(), want.Name)
				}
				diff(t, got.Arguments.Value(), want.Kwargs)
				diff(t, got.ResultValue(), textResult(want.Observation))
				if got.IsError {
					t.Errorf("call %d: is_error without an explicit field", i)
				}
			}
			// The final response of the last turn the agent answered is its
			// last assistant text after the user message that opened it.
			var firstUser, lastAssistant, text string
			answered := false
			for _, m := range rec.Traj {
				switch m.Role {
				case "user":
					if firstUser == "" {
						firstUser = *m.Content
					}
					if answered {
						lastAssistant, text, answered = text, "", false
					}
				case "assistant":
					answered = true
					if m.Content != nil && *m.Content != "" {
						text = *m.Content
					}
				}
			}
			if answered {
				lastAssistant = text
			}
			turns := c.Runs[0].Turns
			if c.Prompt != firstUser || turns[len(turns)-1].FinalResponse != lastAssistant {
				t.Errorf("prompt %q, last final response %q", c.Prompt, turns[len(turns)-1].FinalResponse)
			}
		})
	}
}

// TestReadLiveMCPBench reads a real LiveMCPBench trajectory and checks the
// execute-tool calls against the record's executed_tools (server::tool).
func TestReadLiveMCPBench(t *testing.T) {
	f := "testdata/ok/livemcpbench_asset_price.json"
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		ExecutedTools []string `json:"executed_tools"`
		FinalResponse string   `json:"final_response"`
		Question      string
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	c, err := Read(f, data)
	if err != nil {
		t.Fatal(err)
	}
	var executed, tools []string
	for _, call := range c.Runs[0].callList() {
		tools = append(tools, call.Tool)
		if call.Tool == "execute-tool" {
			a := call.Arguments.Value().(map[string]any)
			executed = append(executed, a["server_name"].(string)+"::"+a["tool_name"].(string))
		}
	}
	diff(t, tools, []string{"route", "execute-tool", "execute-tool"})
	diff(t, executed, rec.ExecutedTools)
	turns := c.Runs[0].Turns
	if c.Format != FormatOpenAI || len(turns) != 1 || turns[0].FinalResponse != rec.FinalResponse || c.Prompt != rec.Question {
		t.Errorf("format %s, %d turns, final %.40q", c.Format, len(turns), turns[0].FinalResponse)
	}
	if got := c.Runs[0].callList()[2].ResultValue(); !reflect.DeepEqual(got, textResult("Tool call timed out.")) {
		t.Errorf("last result %v", got)
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, json string
		format     Format
		err        string // a substring of the error when format is ""
	}{
		{"v1", `{"mcptest_cassette": 1, "runs": []}`, FormatV1, ""},
		{"v1 wins over messages", `{"mcptest_cassette": 1, "runs": [], "messages": []}`, "", `unexpected key "messages"`},
		{"openai messages", `{"messages": [{"role": "user", "content": "hi"}]}`, FormatOpenAI, ""},
		{"empty messages", `{"messages": []}`, FormatOpenAI, ""},
		{"openai array", `[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]`, FormatOpenAI, ""},
		{"openai under traj", `{"task": 1, "gold": [{"name": "x"}], "traj": [{"role": "user", "content": "hi"}]}`, FormatOpenAI, ""},
		{"openai tool role", `[{"role": "user", "content": [{"type": "text", "text": "hi"}]}, {"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "a", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "1", "content": [{"type": "text", "text": "x"}]}]`, FormatOpenAI, ""},
		{"openai usage", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "usage": {"prompt_tokens": 1}}`, FormatOpenAI, ""},
		{"anthropic text blocks", `{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}`, FormatAnthropic, ""},
		{"anthropic tool_use", `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "a", "input": {}}]}]}`, FormatAnthropic, ""},
		{"anthropic usage", `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo", "usage": {"input_tokens": 3, "output_tokens": 1}}, {"role": "user", "content": "x"}], "usage": {"input_tokens": 3}}`, FormatAnthropic, ""},
		{"mixed", `{"messages": [{"role": "assistant", "tool_calls": []}, {"role": "assistant", "content": [{"type": "tool_use", "name": "a"}]}]}`, "", "mix"},
		{"two message arrays", `{"a": [{"role": "user"}], "b": [{"role": "user"}]}`, "", `ambiguous transcript: arrays of messages under "a", "b"`},
		{"array without roles", `[{"name": "x"}]`, "", "unrecognized recording"},
		{"empty array", `[]`, "", "found an empty array"},
		{"number", `42`, "", "found the number 42"},
		{"null", `null`, "", "found null"},
		{"object", `{"a": 1}`, "", `found an object with keys "a"`},
		{"empty object", `{}`, "", "found an empty object"},
		{"many keys", `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1}`, "", `"f" and 2 more`},
		{"messages not an array", `{"messages": "hi"}`, "", `found an object with keys "messages"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read("t.json", []byte(tt.json))
			if tt.format != "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.Format != tt.format {
					t.Errorf("format %s, want %s", c.Format, tt.format)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want it to contain %q", err, tt.err)
			}
			if err != nil && !strings.Contains(err.Error(), "[cassette]") {
				t.Errorf("error %v is not of kind cassette", err)
			}
		})
	}
}

// errorCases pin the exact text, position and pointer of each kind of
// error. They also seed FuzzRead and are checked against the schema.
var errorCases = []struct {
	name, json string
	want       string // every error, one per line; "" for none
	pointer    string // of the first error
}{
	{"missing tool",
		`{"mcptest_cassette": 1, "runs": [{"turns": [{}, {"calls": [{"server": "fs"}]}]}]}`,
		`f.json:1:60: runs[0].turns[1].calls[0]: missing required "tool": every call names the tool it called [cassette]`,
		"/runs/0/turns/1/calls/0"},
	// A problem with a missing member is placed on the object that lacks
	// it: it had no position at all (found by FuzzRead).
	{"missing member placed on its object",
		`{"output": [{"type": "mcp_list_tools"}]}`,
		`f.json:1:13: output[0].tools: expected an array of tools {"name": ..., "input_schema": {...}}, found null [cassette]`,
		"/output/0/tools"},
	{"unknown key with hint",
		"{\"mcptest_cassette\": 1,\n \"runs\": [{\"turns\": [{\"final_respone\": \"done\"}]}]}",
		`f.json:2:23: runs[0].turns[0]: unexpected key "final_respone": expected one of "calls", "final_response" (or an "x-" extension key) (did you mean "final_response"?) [cassette]`,
		"/runs/0/turns/0/final_respone"},
	{"unknown key without hint",
		`{"mcptest_cassette": 1, "runs": [], "zzzzzzzz": 1}`,
		`f.json:1:37: unexpected key "zzzzzzzz": expected one of "mcptest_cassette", "agent", "model", "provider", "recorded_at", "prompt", "catalog", "runs" (or an "x-" extension key) [cassette]`,
		"/zzzzzzzz"},
	{"extension keys are allowed",
		`{"mcptest_cassette": 1, "x-a": 1, "runs": [{"x-b": 2, "turns": [{"x-c": 3, "calls": [{"tool": "t", "x-d": 4}]}], "tokens": {"x-e": 5}, "delegations": [{"from": "a", "to": "b", "x-f": 6}]}]}`,
		"", ""},
	{"missing runs",
		`  {"mcptest_cassette": 1}`,
		`f.json:1:3: missing required "runs": a cassette holds one entry per recorded run (an empty array when none) [cassette]`,
		""},
	{"version",
		`{"mcptest_cassette": 3, "runs": []}`,
		`f.json:1:22: mcptest_cassette: unsupported cassette format version 3: this mcptest reads version 1 [cassette]`,
		"/mcptest_cassette"},
	{"version 1.5",
		`{"mcptest_cassette": 1.5}`,
		`f.json:1:22: mcptest_cassette: unsupported cassette format version 1.5: this mcptest reads version 1 [cassette]`,
		"/mcptest_cassette"},
	{"version type",
		`{"mcptest_cassette": null, "runs": []}`,
		`f.json:1:22: mcptest_cassette: expected the cassette format version, the number 1, found null [cassette]`,
		"/mcptest_cassette"},
	{"wrong types",
		`{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [{"tool": "t", "is_error": 1, "duration_ms": "5"}]}], "cost_micros": 2.5}]}`,
		"f.json:1:82: runs[0].turns[0].calls[0].is_error: expected true or false, found the number 1 [cassette]\n" +
			`f.json:1:100: runs[0].turns[0].calls[0].duration_ms: expected a duration in milliseconds, a number ≥ 0, found the string "5" [cassette]` + "\n" +
			"f.json:1:124: runs[0].cost_micros: expected a non-negative integer (micro-dollars), found the number 2.5 [cassette]",
		"/runs/0/turns/0/calls/0/is_error"},
	{"count over 2^53",
		`{"mcptest_cassette": 1, "runs": [{"tokens": {"input": 9007199254740994}}]}`,
		`f.json:1:55: runs[0].tokens.input: expected a non-negative integer (tokens), found the number 9.007199254740994e+15 [cassette]`,
		"/runs/0/tokens/input"},
	{"long string is cut",
		`{"mcptest_cassette": 1, "runs": [], "agent": ["x"], "model": 12, "prompt": {"a": "` + strings.Repeat("é", 50) + `"}, "provider": "` + strings.Repeat("é", 50) + `"}`,
		"f.json:1:46: agent: expected a string, found an array [cassette]\n" +
			"f.json:1:62: model: expected a string, found the number 12 [cassette]\n" +
			"f.json:1:76: prompt: expected a string, found an object [cassette]",
		"/agent"},
	{"catalog keys are escaped in pointers",
		`{"mcptest_cassette": 1, "runs": [], "catalog": {"a/b~c": {"tools": [{}]}}}`,
		`f.json:1:69: catalog["a/b~c"].tools[0]: missing required "name": every tool has a name [cassette]`,
		"/catalog/a~1b~0c/tools/0"},
	{"escaped keys are found",
		`{"mcptest_cassette": 1, "runs": [], "catalog": {"caf\u00e9 \"s\"": {"tools": 1}}}`,
		`f.json:1:78: catalog["café \"s\""].tools: expected an array of tools, found the number 1 [cassette]`,
		`/catalog/café "s"/tools`},
	{"duplicate keys are refused",
		`{"mcptest_cassette": 1, "runs": [], "runs": 5}`,
		`f.json:1:37: duplicate key "runs" (first at 1:25) [cassette]`,
		"/runs"},
	{"a duplicated final_response cannot flip a verdict",
		"{\"mcptest_cassette\": 1, \"runs\": [{\"turns\": [{\n  \"final_response\": \"refund issued\",\n  \"final_response\": \"I could not help\"}]}]}",
		`f.json:3:3: runs[0].turns[0]: duplicate key "final_response" (first at 2:3) [cassette]`,
		"/runs/0/turns/0/final_response"},
	{"duplicate keys in arguments, results and catalogs",
		`{"mcptest_cassette": 1, "catalog": {"s": {"tools": [{"name": "a", "name": "b"}]}, "s": {"tools": []}}, "runs": [{"turns": [{"calls": [{"tool": "t", "arguments": {"amount": 1, "amount": 1000}, "result": {"content": [], "isError": false, "isError": true}}]}]}]}`,
		"f.json:1:67: catalog.s.tools[0]: duplicate key \"name\" (first at 1:54) [cassette]\n" +
			"f.json:1:83: catalog: duplicate key \"s\" (first at 1:37) [cassette]\n" +
			"f.json:1:176: runs[0].turns[0].calls[0].arguments: duplicate key \"amount\" (first at 1:163) [cassette]\n" +
			"f.json:1:237: runs[0].turns[0].calls[0].result: duplicate key \"isError\" (first at 1:219) [cassette]",
		"/catalog/s/tools/0/name"},
	{"duplicate keys in a transcript",
		`{"messages": [{"role": "user", "content": "hi", "role": "assistant"}]}`,
		`f.json:1:49: messages[0]: duplicate key "role" (first at 1:16) [cassette]`,
		"/messages/0/role"},
	{"syntax error",
		"{\n\t\"mcptest_cassette\": 1,\n\t\"runs\": [1 2]\n}",
		`f.json:3:13: invalid JSON: invalid character '2' after array element [cassette]`,
		""},
	{"syntax error after multi-byte characters",
		`{"prompt": "日本語", }`,
		`f.json:1:19: invalid JSON: invalid character '}' looking for beginning of object key string [cassette]`,
		""},
	{"unterminated",
		`{"mcptest_cassette": 1, "runs": [`,
		`f.json:1:34: invalid JSON: the file ends before the JSON value is complete [cassette]`,
		""},
	{"trailing garbage",
		`{"mcptest_cassette": 1, "runs": []} {}`,
		`f.json:1:37: invalid JSON: invalid character '{' after top-level value [cassette]`,
		""},
	{"number out of range",
		`[1, -2e999]`,
		`f.json:1:5: number -2e999 is out of range: a JSON number must fit a 64-bit float [cassette]`,
		""},
	{"empty",
		"\n \t\n",
		`f.json:1:1: the file is empty: expected a cassette, a JSON object [cassette]`,
		""},
	{"byte order mark",
		"\xef\xbb\xbf{\"mcptest_cassette\": 1, \"runs\": 0}",
		`f.json:1:33: runs: expected an array of runs, found the number 0 [cassette]`,
		"/runs"},
	{"openai tool call without name",
		`{"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"arguments": "{}"}}]}]}`,
		`f.json:1:76: messages[0].tool_calls[0].function: missing "name": every tool call names the tool it calls [cassette]`,
		"/messages/0/tool_calls/0/function"},
	{"anthropic tool_use without name",
		`{"messages": [{"role": "assistant", "content": [{"type": "tool_use", "name": ""}]}]}`,
		`f.json:1:78: messages[0].content[0].name: expected the name of the called tool, a non-empty string, found the string "" [cassette]`,
		"/messages/0/content/0/name"},
	{"array transcript message not an object",
		`[{"role": "user"}, 7]`,
		`f.json:1:20: [1]: expected a message object {"role": ..., "content": ...}, found the number 7 [cassette]`,
		"/1"},
	{"traj message without role",
		`{"traj": [{"role": "user"}], "messages": [{"role": "user"}, {}]}`,
		`f.json:1:61: messages[1]: missing "role": every message says who sent it ("user", "assistant", ...) [cassette]`,
		"/messages/1"},
}

func TestErrors(t *testing.T) {
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read("f.json", []byte(tt.json))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", err, tt.want)
			}
			if p := diagErrors(t, err)[0].Pointer; p != tt.pointer {
				t.Errorf("pointer %q, want %q", p, tt.pointer)
			}
		})
	}
}

func TestSplitMCP(t *testing.T) {
	tests := []struct{ name, server, tool string }{
		{"mcp__fs__read_file", "fs", "read_file"},
		{"mcp__github__create_pull_request", "github", "create_pull_request"},
		{"mcp__a__b__c", "a", "b__c"},
		{"mcp__fs__", "", "mcp__fs__"},
		{"mcp____x", "", "mcp____x"},
		{"mcp__fs", "", "mcp__fs"},
		{"read_file", "", "read_file"},
		{"MCP__fs__x", "", "MCP__fs__x"},
	}
	for _, tt := range tests {
		s, tool := splitMCP(tt.name)
		if s != tt.server || tool != tt.tool {
			t.Errorf("splitMCP(%q) = %q, %q; want %q, %q", tt.name, s, tool, tt.server, tt.tool)
		}
	}
}

func TestArguments(t *testing.T) {
	tests := []struct {
		in   any
		want any
	}{
		{`{"a": 1}`, map[string]any{"a": 1.0}},
		{`[1, "x"]`, []any{1.0, "x"}},
		{`"quoted"`, "quoted"},
		{`{"a": 1`, `{"a": 1`},
		{`{"a": 1} trailing`, `{"a": 1} trailing`},
		{``, nil},
		{"  \n", nil},
		{nil, nil},
		{map[string]any{"already": "decoded"}, map[string]any{"already": "decoded"}},
	}
	for _, tt := range tests {
		diff(t, arguments(tt.in).Value(), tt.want)
	}
}

func TestSizeLimit(t *testing.T) {
	_, err := Read("big.json", make([]byte, MaxSize+1))
	want := "big.json: the file is 64.0 MiB, over the 64 MiB limit for a cassette: split the runs over several files [cassette]"
	if err == nil || err.Error() != want {
		t.Errorf("Read: %v\nwant %s", err, want)
	}
	// ReadFile refuses without reading the file.
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSize + 1<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadFile(path)
	var de *diag.Error
	if !errors.As(err, &de) || !strings.Contains(de.Message, "65 MiB, over the 64 MiB limit") {
		t.Errorf("ReadFile: %v", err)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile("testdata/nope.json")
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), `read cassette "testdata/nope.json": `) {
		t.Errorf("ReadFile: %v", err)
	}
}

// TestReadFileRefusesNonRegular: a FIFO or a device is refused before it is
// read (a FIFO without a writer used to block ReadFile for ever).
func TestReadFileRefusesNonRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	t.Cleanup(func() {
		if f, err := os.OpenFile(p, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	done := make(chan error, 1)
	go func() { _, err := ReadFile(p); done <- err }()
	select {
	case err := <-done:
		if err == nil || err.Error() != p+": is a named pipe (FIFO), not a regular file [cassette]" {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile blocked on a FIFO")
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		if _, err := ReadFile("/dev/null"); err == nil || err.Error() != "/dev/null: is a device, not a regular file [cassette]" {
			t.Errorf("device: %v", err)
		}
	}
}

// TestUnquote holds the reader's string decoding to encoding/json's on
// escapes, surrogates and bytes that are not UTF-8.
func TestUnquote(t *testing.T) {
	for _, s := range []string{
		`plain`, `a\"b\\c\/d`, `\b\f\n\r\t`, `\u00e9\u20AC`, `\ud83d\ude00 pair`, `\ud83d lone`, `\ude00 low`,
		`\ud83d\u0041`, "caf\xc3\xa9", "bad \xff\xfe bytes", "cut \xe2\x82", `\u0000`, "mixed \xff \\n \u00e9",
	} {
		raw := `"` + s + `"`
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		d := newDecoder([]byte(raw), &walker{})
		if got, end := d.str(0, false); got != want || end != len(raw) {
			t.Errorf("%q: got %q (end %d), encoding/json %q", raw, got, end, want)
		}
	}
}

// TestNotARecordingShowsNothingOfIt: a file named as a cassette that is not
// one (a shadow file, a service-account key) is refused with an error that
// quotes at most the offending character or the names of its keys, and
// that asks the printer not to echo its lines (the caret printer used to
// print the first line of /etc/shadow under the error).
func TestNotARecordingShowsNothingOfIt(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"shadow", "root:$6$Zk3salt$9hGfQhashhash:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n",
			`f.json:1:1: invalid JSON: invalid character 'r' looking for beginning of value [cassette]`},
		{"binary", "\x00\x01secret",
			`f.json:1:1: invalid JSON: invalid character '\x00' looking for beginning of value [cassette]`},
		{"key file", "{\"type\": \"service_account\",\n \"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQ\"}",
			`f.json:1:1: unrecognized recording: ` + tried + `; found an object with keys "private_key", "type" [cassette]`},
		{"huge number", `{"x": 1e99999999999999999999999999999999999999999999999999999}`,
			`f.json:1:7: number 1e99999999999999999999999999999999999999… is out of range: a JSON number must fit a 64-bit float [cassette]`},
	} {
		_, err := Read("f.json", []byte(tt.data))
		l := diagErrors(t, err)
		if len(l) != 1 || l[0].Error() != tt.want || !l[0].HideSource {
			t.Errorf("%s: %v (HideSource %v)\nwant %s, HideSource", tt.name, err, len(l) == 1 && l[0].HideSource, tt.want)
		}
	}
	// A recording's own errors keep their source line.
	_, err := Read("f.json", []byte(`{"mcptest_cassette": 1, "runs": 5}`))
	if l := diagErrors(t, err); l[0].HideSource {
		t.Errorf("a cassette's error hides its source: %v", err)
	}
}

// TestRealCatalogs: the catalog of a cassette holds what real servers and
// registries write: the verbatim tools/list of the three npm reference
// servers (their tools carry execution, kept in Raw), LiveMCPBench's
// "annotations": null (read as absent) and Python's surrogate-pair escapes.
func TestRealCatalogs(t *testing.T) {
	c, err := ReadFile("testdata/ok/v1_real_catalogs.json")
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]Tool{}
	for _, s := range c.Catalog {
		for _, tool := range s.Tools {
			tools[s.Server+"."+tool.Name] = tool
		}
	}
	if _, ok := tools["everything.echo"].Raw()["execution"].(map[string]any); !ok {
		t.Errorf("everything.echo: execution not kept: %v", tools["everything.echo"].Raw())
	}
	launch := tools["bing-cn-mcp.launch"]
	if launch.Description != "Launch 🚀 now" {
		t.Errorf("launch description = %q", launch.Description)
	}
	for _, k := range []string{"annotations", "outputSchema", "title"} {
		if _, ok := launch.Raw()[k]; ok {
			t.Errorf("launch: null %s kept, want absent", k)
		}
	}
	if len(tools) < 30 {
		t.Errorf("read %d tools, want every tool of the four servers", len(tools))
	}
}
