package prices

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestCents writes dollars with at least two fraction digits, exactly.
func TestCents(t *testing.T) {
	for in, want := range map[string]string{"3": "3.00", "0.3": "0.30", "0.075": "0.075", "10.25": "10.25"} {
		if got := cents(json.Number(in)); got != want {
			t.Errorf("cents(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestReport looks models up exactly and by provider prefix, names the
// unknown ones with a did-you-mean, and writes text and JSON.
func TestReport(t *testing.T) {
	table, err := Parse("t.json", []byte(`{"gpt-4o": {"input_cost_per_token": 0.0000025, "output_cost_per_token": 0.00001},
		"claude-x": {"input_cost_per_token": 3e-6, "output_cost_per_token": 1.5e-5, "cache_read_input_token_cost": 3e-7}}`))
	if err != nil {
		t.Fatal(err)
	}
	rep, unknown := table.Report([]string{"openai/gpt-4o", "claude-x", "gpt-4"})
	if len(rep.Models) != 2 || len(unknown) != 1 || unknown[0] != "gpt-4" {
		t.Fatalf("report %+v, unknown %v", rep, unknown)
	}
	if m := rep.Models[0]; m.Entry != "gpt-4o" || m.Match != "provider prefix" || m.InputPerM != "2.5" || m.CachedInput != "" {
		t.Errorf("openai/gpt-4o: %+v", m)
	}
	if msg := table.Unknown("gpt-4"); !strings.Contains(msg, `no entry for model "gpt-4" (did you mean "gpt-4o"?)`) {
		t.Errorf("Unknown: %s", msg)
	}
	var text, js bytes.Buffer
	if err := rep.Write(&text, "text", strings.ToUpper); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"table: t.json\n", "\nOPENAI/GPT-4O: entry GPT-4O (provider prefix match)\n  input         $2.50 per 1M tokens\n  output        $10.00 per 1M tokens\n  cached input  no cache_read_input_token_cost: charged as input\n", "  cached input  $0.30 per 1M tokens\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := rep.Write(&js, "json", nil); err != nil || !strings.Contains(js.String(), `"cache_read_input_token_cost": 0.0000003`) {
		t.Errorf("json (%v):\n%s", err, js.String())
	}
}
