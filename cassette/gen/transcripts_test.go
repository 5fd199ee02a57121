package gen_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// TestCaseSuite: the one-test-per-cassette suite loads, has a test per
// cassette, fits the suite size limit at 32,000 tests, and its verdicts are
// the generator's: nearly every recorded task reaches half its tools.
func TestCaseSuite(t *testing.T) {
	if n := len(gen.CaseSuite(gen.DefaultSeed, 32000)); n > engine.MaxSuiteBytes {
		t.Errorf("32,000 tests are %d bytes, over the %d-byte suite limit", n, engine.MaxSuiteBytes)
	}
	dir := t.TempDir()
	if _, err := gen.Write(dir, 60, gen.DefaultSeed); err != nil {
		t.Fatal(err)
	}
	env := runGenerated(t, filepath.Join(dir, gen.CaseSuiteFile))
	if env.Totals.Total != 60 || env.Totals.Passed < 55 {
		t.Errorf("totals %+v, want 60 cases, at least 55 passing", env.Totals)
	}
	for i, c := range env.Cases {
		if c.Cassettes == nil || c.Cassettes.Files != 1 || c.Counts["tool_selection.classes"] < 1 {
			t.Fatalf("case %d (%s): want one cassette and at least one class", i, c.Name)
		}
		for _, f := range c.Findings {
			if f.Level == "warning" {
				t.Errorf("case %s: %s", c.Name, f.Message)
			}
		}
	}
}

func runGenerated(t *testing.T, suite string) *report.Envelope {
	t.Helper()
	s, err := engine.LoadSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	env, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// TestTranscripts: transcripts are deterministic, the OpenAI shapes are
// what they say (a bare assistant message for even i, a Chat Completions
// response for odd i), and the v1 rendering holds the same calls.
func TestTranscripts(t *testing.T) {
	for i := range 40 {
		for _, f := range []string{gen.OpenAI, gen.V1} {
			if !bytes.Equal(gen.Transcript(gen.DefaultSeed, i, f), gen.Transcript(gen.DefaultSeed, i, f)) {
				t.Fatalf("transcript %d (%s): two calls gave different bytes", i, f)
			}
		}
		var doc struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
			Choices []struct {
				Message struct {
					ToolCalls []struct {
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
			}
			Usage *struct {
				Total int `json:"total_tokens"`
			}
		}
		if err := json.Unmarshal(gen.Transcript(gen.DefaultSeed, i, gen.OpenAI), &doc); err != nil {
			t.Fatal(err)
		}
		calls := doc.ToolCalls
		if i%2 == 1 {
			if len(doc.Choices) != 1 || doc.Usage == nil || doc.Usage.Total <= 0 || doc.Role != "" {
				t.Fatalf("transcript %d: want a Chat Completions response with usage", i)
			}
			calls = doc.Choices[0].Message.ToolCalls
		} else if doc.Role != "assistant" || doc.Choices != nil {
			t.Fatalf("transcript %d: want a bare assistant message", i)
		}
		c, err := cassette.Read("t.json", gen.Transcript(gen.DefaultSeed, i, gen.V1))
		if err != nil {
			t.Fatal(err)
		}
		got := callsOf(&c.Runs[0])
		if len(calls) == 0 || len(got) != len(calls) {
			t.Fatalf("transcript %d: %d OpenAI calls, %d v1 calls", i, len(calls), len(got))
		}
		for j := range calls {
			var args any
			if err := json.Unmarshal([]byte(calls[j].Function.Arguments), &args); err != nil {
				t.Fatalf("transcript %d call %d: arguments are not JSON: %v", i, j, err)
			}
			if calls[j].Function.Name != got[j].Tool {
				t.Errorf("transcript %d call %d: %s in OpenAI, %s in v1", i, j, calls[j].Function.Name, got[j].Tool)
			}
		}
	}
}

// TestTranscriptSuite: the suite over v1 transcripts loads and scores every
// transcript, most of them passing and some failing, as the slips the
// generator makes decide.
func TestTranscriptSuite(t *testing.T) {
	dir := t.TempDir()
	paths, err := gen.WriteTranscripts(dir, 200, gen.DefaultSeed, gen.V1)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 200 {
		t.Fatalf("%d paths", len(paths))
	}
	if _, err := os.Stat(filepath.Join(dir, gen.TranscriptSuiteFile)); err != nil {
		t.Fatal(err)
	}
	env := runGenerated(t, filepath.Join(dir, gen.TranscriptSuiteFile))
	if env.Totals.Total != 200 || env.Totals.Passed < 120 || env.Totals.Failed < 20 {
		t.Errorf("totals %+v, want 200 cases, most passing, some failing", env.Totals)
	}
	if _, err := gen.WriteTranscripts(dir, 1, 1, "yaml"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// callsOf lists the run's calls, for a test that indexes them.
func callsOf(r *cassette.Run) []*cassette.Call {
	var out []*cassette.Call
	for _, c := range r.Calls() {
		out = append(out, c)
	}
	return out
}
