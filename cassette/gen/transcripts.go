package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/cassette"
)

// The files WriteTranscripts creates in its directory.
const (
	// TranscriptDir is the directory, beside the suite, holding the
	// transcripts.
	TranscriptDir = "transcripts"
	// TranscriptSuiteFile is the suite with one test per transcript.
	TranscriptSuiteFile = "suite.yml"
)

// The formats Transcript writes.
const (
	// OpenAI is what an eval harness such as promptfoo saves of an OpenAI
	// model's answer: the assistant message alone, {"role": "assistant",
	// "tool_calls": [...]}, for even i, and the whole Chat Completions
	// response, {"choices": [{"message": ...}], "usage": ...}, for odd i.
	OpenAI = "openai"
	// V1 is the same content as a v1 cassette: one run of one turn whose
	// calls are the tool calls, with the token counts when the response
	// had them.
	V1 = "v1"
)

// transcriptSalt keeps the transcripts' random stream apart from the
// cassettes' for the same seed and index.
const transcriptSalt = 0x7472616e73637269

// transcript is one generated answer: the model, the tool calls made and
// the token usage (zero for a bare message).
type transcript struct {
	model    string
	calls    []step
	usage    cassette.FileTokens
	expected []string
	bare     bool
}

// Transcript returns the i-th transcript of the set generated from seed,
// in format OpenAI or V1 (anything else panics): the first answer of an
// agent given one of the real tasks, the tool calls it made with their
// arguments, as one JSON document ending in a newline. The agent calls
// the task's gold tools in order, with three realistic slips: one call in
// five answers with another tool of the task's servers instead of a gold
// one, one in six adds a call nobody asked for, one in ten stops one call
// short. Tool names are bare, as a model's function calls name them.
func Transcript(seed uint64, i int, format string) []byte {
	t := newTranscript(seed, i)
	var doc any
	switch format {
	case OpenAI:
		doc = t.openAI(seed, i)
	case V1:
		doc = t.v1()
	default:
		panic("cassette/gen: unknown transcript format " + format)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		panic("cassette/gen: encode: " + err.Error()) // maps, slices, strings and numbers: cannot fail
	}
	return buf.Bytes()
}

// newTranscript draws transcript i: its task, model, calls and usage.
func newTranscript(seed uint64, i int) transcript {
	g := &generator{c: data(), rng: rand.New(rand.NewPCG(seed^transcriptSalt, uint64(i)))}
	rng := g.rng
	tk := g.c.tasks[rng.IntN(len(g.c.tasks))]
	m := models[2+rng.IntN(2)] // the OpenAI models
	t := transcript{model: m.model, bare: i%2 == 0}
	for _, s := range tk.Steps {
		if !slices.Contains(t.expected, s.Tool) {
			t.expected = append(t.expected, s.Tool)
		}
		t.calls = append(t.calls, s)
	}
	var others []step
	for _, srv := range tk.Servers {
		for _, tl := range g.c.servers[srv].Tools {
			if !slices.Contains(t.expected, tl.Name) && !slices.Contains(Restricted, srv+"."+tl.Name) {
				others = append(others, step{Server: srv, Tool: tl.Name})
			}
		}
	}
	if len(others) > 0 && rng.IntN(5) == 0 {
		t.calls[rng.IntN(len(t.calls))] = others[rng.IntN(len(others))]
	}
	if len(others) > 0 && rng.IntN(6) == 0 {
		t.calls = append(t.calls, others[rng.IntN(len(others))])
	}
	if len(t.calls) > 1 && rng.IntN(10) == 0 {
		t.calls = t.calls[:len(t.calls)-1]
	}
	for j, s := range t.calls {
		if s.Args == nil {
			t.calls[j].Args = g.arguments(s.Server, s.Tool)
		}
	}
	if !t.bare {
		in := int64(600 + rng.IntN(3000))
		out := int64(20 + 30*len(t.calls) + rng.IntN(60))
		t.usage = cassette.FileTokens{Input: in, Output: out, Total: in + out}
	}
	return t
}

// chatCompletion is a Chat Completions response, fields in the API's order.
type chatCompletion struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []chatChoice `json:"choices"`
	Usage             chatUsage    `json:"usage"`
	SystemFingerprint string       `json:"system_fingerprint"`
}

type chatUsage struct {
	Prompt     int64 `json:"prompt_tokens"`
	Completion int64 `json:"completion_tokens"`
	Total      int64 `json:"total_tokens"`
}

type chatChoice struct {
	Index        int         `json:"index"`
	Message      chatMessage `json:"message"`
	Logprobs     *struct{}   `json:"logprobs"`
	FinishReason string      `json:"finish_reason"`
}

type chatMessage struct {
	Role      string         `json:"role"`
	Content   *string        `json:"content"`
	ToolCalls []chatToolCall `json:"tool_calls"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// openAI renders the transcript as promptfoo keeps an OpenAI answer.
func (t transcript) openAI(seed uint64, i int) any {
	msg := chatMessage{Role: "assistant"}
	for j, s := range t.calls {
		args, err := json.Marshal(s.Args)
		if err != nil {
			panic("cassette/gen: encode arguments: " + err.Error())
		}
		msg.ToolCalls = append(msg.ToolCalls, chatToolCall{
			ID: fmt.Sprintf("call_%08x%02d", uint32(seed)^uint32(i*2654435761), j), Type: "function",
			Function: chatFunction{Name: s.Tool, Arguments: string(args)},
		})
	}
	if t.bare {
		return msg
	}
	return chatCompletion{
		ID: fmt.Sprintf("chatcmpl-%06d", i), Object: "chat.completion", Created: 1767600000 + int64(i)*97, Model: t.model,
		Choices:           []chatChoice{{Message: msg, FinishReason: "tool_calls"}},
		Usage:             chatUsage{Prompt: t.usage.Input, Completion: t.usage.Output, Total: t.usage.Total},
		SystemFingerprint: "fp_7f6be3efb0",
	}
}

// v1Transcript is the v1 cassette of a transcript: one run of one turn.
type v1Transcript struct {
	Version int               `json:"mcptest_cassette"`
	Model   string            `json:"model,omitempty"`
	Runs    []v1TranscriptRun `json:"runs"`
}

type v1TranscriptRun struct {
	Turns  []v1TranscriptTurn   `json:"turns"`
	Tokens *cassette.FileTokens `json:"tokens,omitempty"`
}

type v1TranscriptTurn struct {
	Calls []v1TranscriptCall `json:"calls"`
}

type v1TranscriptCall struct {
	Tool      string `json:"tool"`
	Arguments any    `json:"arguments"`
}

// v1 renders the transcript as a v1 cassette of the same content.
func (t transcript) v1() any {
	doc := v1Transcript{Version: 1}
	var turn v1TranscriptTurn
	for _, s := range t.calls {
		turn.Calls = append(turn.Calls, v1TranscriptCall{Tool: s.Tool, Arguments: s.Args})
	}
	run := v1TranscriptRun{Turns: []v1TranscriptTurn{turn}}
	if !t.bare {
		doc.Model = t.model
		u := t.usage
		run.Tokens = &u
	}
	doc.Runs = []v1TranscriptRun{run}
	return doc
}

// TranscriptSuite returns the suite over n transcripts written by
// WriteTranscripts from seed: one test per transcript, scoring its tool
// calls against the task's gold tools with equal_function_sets, one class
// per tool and count: distinct, so Selection F1 is promptfoo's set-based
// tool-call F1, gated on tool_selection.f1 >= 80 (promptfoo's 0.8).
func TranscriptSuite(seed uint64, n int) []byte {
	var b strings.Builder
	b.WriteString(`# Generated by cassette/gen: the tool calls of one model answer per
# test, scored against the task's gold tools. See docs/benchmarks.md.
tests:
`)
	for i := range n {
		t := newTranscript(seed, i)
		fmt.Fprintf(&b, "  - name: transcript %d\n    type: agent\n    cassette: %s/%s\n", i, TranscriptDir, transcriptName(i))
		classesYAML(&b, t.expected, "distinct")
		b.WriteString("      expect:\n        - tool_selection.f1: { \">=\": 80 }\n")
	}
	return []byte(b.String())
}

// WriteTranscripts generates n transcripts from seed in format (OpenAI or
// V1) into dir/transcripts and writes the suite over them,
// TranscriptSuiteFile. It returns the transcript paths in order. dir is
// created when missing; files already there are overwritten.
func WriteTranscripts(dir string, n int, seed uint64, format string) ([]string, error) {
	if n < 1 || n > MaxN {
		return nil, fmt.Errorf("generate transcripts: n is %d, expected 1 to %d", n, MaxN)
	}
	if format != OpenAI && format != V1 {
		return nil, fmt.Errorf("generate transcripts: format %q, expected %q or %q", format, OpenAI, V1)
	}
	tdir := filepath.Join(dir, TranscriptDir)
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		return nil, fmt.Errorf("generate transcripts: %w", err)
	}
	paths := make([]string, n)
	for i := range n {
		p := filepath.Join(tdir, transcriptName(i))
		if err := os.WriteFile(p, Transcript(seed, i, format), 0o644); err != nil {
			return nil, fmt.Errorf("generate transcripts: %w", err)
		}
		paths[i] = p
	}
	if err := os.WriteFile(filepath.Join(dir, TranscriptSuiteFile), TranscriptSuite(seed, n), 0o644); err != nil {
		return nil, fmt.Errorf("generate transcripts: %w", err)
	}
	return paths, nil
}

// transcriptName is the file name of transcript i.
func transcriptName(i int) string {
	return fmt.Sprintf("transcript-%06d.json", i)
}
