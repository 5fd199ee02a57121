package prices

import (
	"strings"
	"testing"
)

// TestUpdatedLine: last_updated is cut at its first control character
// (C0 or DEL), keeps its spaces, and keeps 64 characters.
func TestUpdatedLine(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, tc := range []struct{ in, want string }{
		{`"2025-01-02 10:00"`, "2025-01-02 10:00"},
		{`"2025-01-02\u007fforged"`, "2025-01-02"},
		{`"2025-01-02\tforged"`, "2025-01-02"},
		{`"2025-01-02\u001fforged"`, "2025-01-02"},
		{`"` + long + `"`, long[:64]},
	} {
		tab, err := Parse("t.json", []byte(`{"last_updated": `+tc.in+`}`))
		if err != nil || tab.Updated != tc.want {
			t.Errorf("last_updated %s: %q, %v; want %q", tc.in, tab.Updated, err, tc.want)
		}
	}
}

// TestRateText: the limits on a rate's text. A rate of exactly 64
// characters is read, 65 is refused; an exponent of three digits is read,
// four is refused; a null rate is an absent one (the model is not
// priced), not an error; a list entry is named a list even when it holds
// a string twice.
func TestRateText(t *testing.T) {
	rate64 := "1" + strings.Repeat("0", 29) + "." + strings.Repeat("0", 33) // 1e29, 64 characters
	if len(rate64) != 64 {
		t.Fatalf("rate64 is %d characters", len(rate64))
	}
	entry := func(in string) string {
		return `{"m": {"input_cost_per_token": ` + in + `, "output_cost_per_token": 1}}`
	}
	for _, tc := range []struct{ table, err string }{
		{entry(rate64), ""},
		{entry(rate64 + "0"), "expected a non-negative number"},
		{entry("2.5e-006"), ""},
		{entry("2.5e-0006"), "expected a non-negative number"},
		{entry("1e+030"), ""},
		{`{"m": {"input_cost_per_token": null, "output_cost_per_token": 1}}`, ""},
		{`{"m": ["a", 1, "a", 2]}`, "its entry is a list"},
	} {
		_, err := Parse("p.json", []byte(tc.table))
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v; want %q", tc.table, err, tc.err)
		}
	}
	tab, err := Parse("p.json", []byte(`{"m": {"input_cost_per_token": null, "output_cost_per_token": 1}}`))
	if err != nil || tab.Len() != 0 {
		t.Errorf("a null input rate: %v, %d models priced; want the model left out", err, tab.Len())
	}
}

// TestClipAt40: a refused rate is quoted whole up to 40 characters, cut
// with an ellipsis past that.
func TestClipAt40(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{strings.Repeat("9", 40), strings.Repeat("9", 40)},
		{strings.Repeat("9", 41), strings.Repeat("9", 40) + "…"},
	} {
		if got := clip(tc.in); got != tc.want {
			t.Errorf("clip(%d characters) = %q, want %q", len(tc.in), got, tc.want)
		}
	}
}

// TestProviderPrefix: a name is looked up after its last "/", even when
// the "/" is its first character, for the rates and for the did-you-mean.
func TestProviderPrefix(t *testing.T) {
	tab, err := Parse("t.json", []byte(`{"gpt-4o": {"input_cost_per_token": 1, "output_cost_per_token": 1},
"zeta-model-large": {"input_cost_per_token": 1, "output_cost_per_token": 1},
"abcxy": {"input_cost_per_token": 1, "output_cost_per_token": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"/gpt-4o", "openai/gpt-4o", "a/b/gpt-4o"} {
		if r, ok := tab.Lookup(model); !ok || r.Entry != "gpt-4o" || r.Rule != "provider prefix" {
			t.Errorf("Lookup(%q) = %+v, %v; want gpt-4o by provider prefix", model, r.Match, ok)
		}
	}
	for model, want := range map[string]string{
		"zeta-model-larg":                    "zeta-model-large",
		"/zeta-model-larg":                   "zeta-model-large",
		"some-long-provider/zeta-model-larg": "zeta-model-large",
		// Two edits from abcde, three from /abcde: found only once the
		// leading "/" is cut.
		"/abcde": "abcxy",
	} {
		if got := tab.Suggest(model); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", model, got, want)
		}
	}
}
