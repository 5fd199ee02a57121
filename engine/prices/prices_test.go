package prices

import (
	"strings"
	"testing"
)

// TestEmbeddedTable pins the embedded copy: its digest (the file in
// litellm/ is the one its README names) and how many models it prices.
func TestEmbeddedTable(t *testing.T) {
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if tab.SHA256 != "e5d05bc8c1ac0aca8b99a384e94971579f482a833ab772cb91b14e498c42684e" {
		t.Errorf("embedded table digest %s: the copy in litellm/ changed; update its README and this digest together", tab.SHA256)
	}
	if tab.Len() != 393 || tab.Source != EmbeddedSource {
		t.Errorf("embedded table prices %d models from %q, want 393 from the embedded copy", tab.Len(), tab.Source)
	}
}

// TestCostMicros checks costs against the table's published rates, worked
// by hand: gpt-4o is $5 per million input tokens and $15 per million output
// tokens in the embedded copy.
func TestCostMicros(t *testing.T) {
	tab, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model   string
		in, out int64
		want    int64
		ok      bool
	}{
		{"gpt-4o", 1000, 200, 8000, true},        // 1000*5e-6 + 200*1.5e-5 = $0.008
		{"openai/gpt-4o", 1000, 200, 8000, true}, // provider-qualified
		{"gpt-4o", 0, 0, 0, true},
		{"gpt-4o", 1_000_000, 1_000_000, 20_000_000, true},
		{"gpt-4o-2024-08-06", 1000, 200, 0, false}, // not in this copy: no family fallback
		{"no-such-model", 1, 1, 0, false},
		{"gpt-4o", -1, 0, 0, false},
	} {
		got, ok := tab.CostMicros(tc.model, tc.in, tc.out)
		if got != tc.want || ok != tc.ok {
			t.Errorf("CostMicros(%q, %d, %d) = %d, %v; want %d, %v", tc.model, tc.in, tc.out, got, ok, tc.want, tc.ok)
		}
	}
	var none *Table
	if _, ok := none.CostMicros("gpt-4o", 1, 1); ok {
		t.Error("a nil table priced a run")
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
// accepts prices without error.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"m": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}`))
	f.Add([]byte(`{"m": {"input_cost_per_token": 1e999999, "output_cost_per_token": 1}}`))
	f.Add([]byte(`{"a": null, "b": [], "c": {"input_cost_per_token": "1"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
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
