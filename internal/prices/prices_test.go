package prices

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// TestEmbeddedTable pins the embedded copy: its digest (the file in
// litellm/, uncompressed, is the one its README names), its date and how
// many models it prices.
func TestEmbeddedTable(t *testing.T) {
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	data := embeddedJSON(t)
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != "d367a97d5e53cdea0ea68853afba06c8429afa51cfc3fe834a9a1d8eb8e8d68f" || tab.SHA256 != got {
		t.Errorf("embedded table digest %s, reported as %s: the copy in litellm/ changed; update its README, embeddedSHA256 and this digest together", got, tab.SHA256)
	}
	if !json.Valid(data) {
		t.Error("the embedded table is not valid JSON")
	}
	if tab.Len() != 2496 || tab.Source != EmbeddedSource || tab.Updated != "2026-07-24T18:23:43.215560+00:00" {
		t.Errorf("embedded table prices %d models from %q of %q, want 2496 from the embedded copy of 2026-07-24", tab.Len(), tab.Source, tab.Updated)
	}
	if _, ok := tab.Lookup("sample_spec"); ok {
		t.Error("sample_spec, the entry documenting LiteLLM's fields, is priced as a model")
	}
}

// TestCostMicros checks costs against the table's published rates, worked
// by hand: gpt-4o is $2.50 per million input tokens, $10 per million output
// tokens and $1.25 per million cached input tokens; claude-sonnet-4-5 $3,
// $15 and $0.30.
func TestCostMicros(t *testing.T) {
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model           string
		in, cached, out int64
		want            int64
		ok              bool
	}{
		{"gpt-4o", 1000, 0, 200, 4500, true},        // 1000*2.5e-6 + 200*1e-5 = $0.0045
		{"openai/gpt-4o", 1000, 0, 200, 4500, true}, // provider-qualified
		{"gpt-4o", 0, 0, 0, 0, true},
		{"gpt-4o", 1_000_000, 0, 1_000_000, 12_500_000, true},
		{"gpt-4o", 2000, 1024, 100, 4720, true},              // 976*2.5e-6 + 1024*1.25e-6 + 100*1e-5 = $0.00472
		{"claude-sonnet-4-5", 1000, 0, 200, 6000, true},      // 1000*3e-6 + 200*1.5e-5 = $0.006
		{"claude-sonnet-4-5", 10000, 8000, 500, 15900, true}, // 2000*3e-6 + 8000*3e-7 + 500*1.5e-5 = $0.0159
		{"anthropic/claude-sonnet-4-5", 1000, 0, 200, 6000, true},
		{"gpt-4o-2099-01-01", 1000, 0, 200, 0, false}, // not in the table: no family fallback
		{"no-such-model", 1, 0, 1, 0, false},
		{"gpt-4o", -1, 0, 0, 0, false},
		{"gpt-4o", 10, 11, 0, 0, false}, // more cached than input
	} {
		got, ok := tab.CostMicrosCached(tc.model, tc.in, tc.cached, tc.out)
		if got != tc.want || ok != tc.ok {
			t.Errorf("CostMicrosCached(%q, %d, %d, %d) = %d, %v; want %d, %v", tc.model, tc.in, tc.cached, tc.out, got, ok, tc.want, tc.ok)
		}
	}
	var none *Table
	if _, ok := none.CostMicros("gpt-4o", 1, 1); ok {
		t.Error("a nil table priced a run")
	}
}

// TestLookup checks the rates and the matched entry a model name gets, the
// figures `mcptest prices` prints, and the did-you-mean of a near miss.
func TestLookup(t *testing.T) {
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ model, entry, rule, in, out, cached string }{
		{"gpt-4o", "gpt-4o", "exact", "0.0000025", "0.00001", "0.00000125"},
		{"openai/gpt-4o", "gpt-4o", "provider prefix", "0.0000025", "0.00001", "0.00000125"},
		{"claude-sonnet-4-5", "claude-sonnet-4-5", "exact", "0.000003", "0.000015", "0.0000003"},
	} {
		r, ok := tab.Lookup(tc.model)
		if !ok || r.Entry != tc.entry || r.Rule != tc.rule || Decimal(r.Input) != tc.in || Decimal(r.Output) != tc.out || Decimal(r.CachedInput) != tc.cached {
			t.Errorf("Lookup(%q) = %+v, %v; want %s by %s at %s/%s/%s", tc.model, r.Match, ok, tc.entry, tc.rule, tc.in, tc.out, tc.cached)
		}
	}
	if got := tab.Suggest("claude-sonet-4-5"); got != "claude-sonnet-4-5" {
		t.Errorf("Suggest(claude-sonet-4-5) = %q", got)
	}
}

// TestExactRounding checks that rates are read as the decimals they are
// written as and costs round half up to a whole micro-dollar.
func TestExactRounding(t *testing.T) {
	tab, err := Parse("t.json", []byte(`{"m": {"input_cost_per_token": 2.5e-07, "output_cost_per_token": 0.0000001},
"img": {"output_cost_per_image": 0.04}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, out, want int64 }{
		{2, 0, 1},  // 0.5 micro rounds up
		{1, 0, 0},  // 0.25 rounds down
		{0, 5, 1},  // 5e-7 dollars = 0.5 micro
		{3, 3, 1},  // 0.75 + 0.3 = 1.05
		{0, 15, 2}, // 1.5 rounds up; 0.1 is exact here, not 0.1000000000000000055
	} {
		if got, _ := tab.CostMicros("m", tc.in, tc.out); got != tc.want {
			t.Errorf("CostMicros(m, %d, %d) = %d, want %d", tc.in, tc.out, got, tc.want)
		}
	}
	if tab.Len() != 1 {
		t.Errorf("table prices %d models, want 1 (the image model has no per-token rates)", tab.Len())
	}
}

// TestParseErrors checks that each malformed table is refused with its
// position and what was expected.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[]`, "p.json:1:1: a price table is one JSON object"},
		{"{\n \"m\": {\"input_cost_per_token\": \"cheap\", \"output_cost_per_token\": 1}}", `p.json:2:7: model "m": input_cost_per_token is a string, expected a number of US dollars per token`},
		{"{\"m\": {\"input_cost_per_token\": -1, \"output_cost_per_token\": 1}}", `model "m": input_cost_per_token is -1, expected a non-negative number`},
		{"{\"m\": 3}", `p.json:1:7: model "m": its entry is a number, expected an object`},
		{"{\"m\": {} } x", "text after the table's closing brace"},
		{"{\"m\": {\"input_cost_per_token\": 1,", "not valid JSON"},
		{"", "a price table is one JSON object"},
		// A huge exponent made each rate a number of 100,000 digits: a table
		// of 20,000 such rates (1.5 MB) took 27 s of CPU to read.
		{"{\"m\": {\"input_cost_per_token\": 1e99999, \"output_cost_per_token\": 1}}", `p.json:1:7: model "m": input_cost_per_token is 1e99999, expected a non-negative number of US dollars per token between 1e-30 and 1e30`},
		{"{\"m\": {\"input_cost_per_token\": 1, \"output_cost_per_token\": 5E-400}}", `output_cost_per_token is 5E-400, expected a non-negative number`},
		{"{\"m\": {\"input_cost_per_token\": 1e-31, \"output_cost_per_token\": 1}}", `input_cost_per_token is 1e-31, expected`},
		// A repeated model or rate took the last value silently: a second
		// entry far down a table under review could set gpt-4o free.
		{"{\"m\": {\"input_cost_per_token\": 1, \"output_cost_per_token\": 1},\n \"m\": {\"input_cost_per_token\": 0, \"output_cost_per_token\": 0}}", `p.json:2:2: model "m" is listed twice (first at 1:2): a table lists each model once`},
		{"{\"m\": {\"input_cost_per_token\": 1, \"output_cost_per_token\": 1, \"input_cost_per_token\": 0}}", `p.json:1:7: model "m": "input_cost_per_token" is given twice: an entry gives each rate once`},
		{"{\"m\": {\"input_cost_per_token\": 0, \"output_cost_per_token\": 1.0000001e30}}", `output_cost_per_token is 1.0000001e30, expected`},
	} {
		_, err := Parse("p.json", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParse checks that no input panics the table reader and that what it
// accepts prices without error, and that the one-pass reader's table,
// where it gives one, is the checked reader's.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"m": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}`))
	f.Add([]byte(`{"m": {"input_cost_per_token": 1e999999, "output_cost_per_token": 1}}`))
	f.Add([]byte(`{"a": null, "b": [], "c": {"input_cost_per_token": "1"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsChecked(t, data)
		tab, err := Parse("f.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json:") {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		for m := range tab.rates {
			tab.CostMicros(m, 1<<40, 1<<40)
		}
	})
}

// TestRateBounds: the bounds themselves, zero and negative zero are rates;
// a cost past int64 micro-dollars is left unpriced.
func TestRateBounds(t *testing.T) {
	tab, err := Parse("t.json", []byte(`{"a": {"input_cost_per_token": 1e-30, "output_cost_per_token": 1e30},
"z": {"input_cost_per_token": -0, "output_cost_per_token": 0.0}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := tab.CostMicros("z", 5, 5); !ok || got != 0 {
		t.Errorf("zero rates price %d, %v", got, ok)
	}
	if got, ok := tab.CostMicros("a", 1, 0); !ok || got != 0 {
		t.Errorf("1e-30 per token prices %d, %v", got, ok)
	}
	if got, ok := tab.CostMicros("a", 0, 1); ok {
		t.Errorf("1e30 per token (1e36 micro-dollars, past int64) priced as %d", got)
	}
}
