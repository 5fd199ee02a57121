package prices

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sameAsChecked fails t when parseFast gives a table for data that
// parseChecked refuses or reads otherwise. It reports whether parseFast
// gave one.
func sameAsChecked(t *testing.T, data []byte) bool {
	t.Helper()
	rates, updated, ok := parseFast(data)
	if !ok {
		return false
	}
	want, err := parseChecked("t.json", data, "")
	if err != nil {
		t.Fatalf("parseFast read a table parseChecked refuses (%v):\n%s", err, data)
	}
	if updated != want.Updated {
		t.Fatalf("parseFast's date %q, parseChecked's %q:\n%s", updated, want.Updated, data)
	}
	if len(rates) != len(want.rates) {
		t.Fatalf("parseFast prices %d models, parseChecked %d:\n%s", len(rates), len(want.rates), data)
	}
	for m, r := range want.rates {
		got, found := rates[m]
		if !found || got.in.Cmp(r.in) != 0 || got.out.Cmp(r.out) != 0 || (got.cached == nil) != (r.cached == nil) ||
			r.cached != nil && got.cached.Cmp(r.cached) != 0 {
			t.Fatalf("model %q: parseFast's rates %v, parseChecked's %v:\n%s", m, got, r, data)
		}
	}
	return true
}

// TestParseFastSameAsChecked holds the one-pass reader to the decoder's
// reading on the embedded table and on drawn tables: entries with and
// without rates, nulls, strings and lists where rates go, nested values,
// escaped and non-ASCII keys, repeated models and rates, dates, rates out
// of bounds, text cut short. Where parseFast gives a table it is
// parseChecked's; it must give one for most drawn tables (those
// parseChecked accepts without an escaped key), or the fast path is not
// taken.
func TestParseFastSameAsChecked(t *testing.T) {
	data := embeddedJSON(t)
	if !sameAsChecked(t, data) {
		t.Fatal("parseFast did not read the embedded table")
	}
	rng := rand.New(rand.NewPCG(40, 1))
	fast, accepted := 0, 0
	for i := range 3000 {
		text := drawTable(rng)
		if sameAsChecked(t, []byte(text)) {
			fast++
		}
		if _, err := parseChecked("t.json", []byte(text), ""); err == nil {
			accepted++
			if !strings.Contains(text, `\`) && !strings.ContainsFunc(text, func(r rune) bool { return r > 0x7f }) {
				if _, _, ok := parseFast([]byte(text)); !ok {
					t.Fatalf("table %d: parseChecked reads it, parseFast gave up:\n%s", i, text)
				}
			}
		}
	}
	t.Logf("3000 drawn tables: parseChecked accepted %d, parseFast read %d", accepted, fast)
	if fast < 600 || accepted == 3000 {
		t.Fatalf("drawn tables: %d read by parseFast, %d accepted: the draw does not test both sides", fast, accepted)
	}
}

// drawTable writes a price table, mostly valid.
func drawTable(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	rateText := func() string {
		if rng.IntN(25) == 0 {
			return pick(`"1e-6"`, `true`, `[1]`, `{"a":1}`, `1e99999`, `-1`, `1e-31`, `2e30`)
		}
		return pick(`0`, `-0`, `1e-6`, `2.5E-6`, `0.000003`, `1.25e-07`, `null`, `3`, `1e30`, `1e-30`)
	}
	names := []string{"gpt-4o", "m", "claude", "openai/gpt-4o", "sample_spec", "last_updated", "x y"}
	escaped := []string{`a\"b`, `\u00e9t\u00e9`, "été", `tab\tkey`, "a\x80b"} // names and keys the decoder rewrites (a byte that is not UTF-8 too)
	var b strings.Builder
	b.WriteString(pick("{", " {\n", "\t{"))
	n := rng.IntN(8)
	for e := range n {
		if e > 0 {
			b.WriteString(pick(",", ",\n ", " , "))
		}
		name := names[rng.IntN(len(names))]
		if rng.IntN(3) > 0 {
			name = fmt.Sprintf("model-%d", rng.IntN(40))
		}
		quoted := `"` + name + `"`
		if rng.IntN(20) == 0 {
			name = escaped[rng.IntN(len(escaped))]
			quoted = `"` + name + `"`
		}
		fmt.Fprintf(&b, "%s%s:%s", quoted, pick("", " "), pick("", " ", "\n  "))
		if name == "last_updated" && rng.IntN(2) == 0 {
			b.WriteString(pick(`"2026-07-24"`, `"a\nb"`, `"`+strings.Repeat("x", 70)+`"`))
			continue
		}
		switch rng.IntN(30) {
		case 0:
			b.WriteString(pick(`3`, `"x"`, `null`, `[]`, `true`))
			continue
		}
		b.WriteString("{")
		keys := []string{"input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost", "mode", "max_tokens", "supported_regions", "litellm_provider"}
		if rng.IntN(20) == 0 {
			keys = append(keys, pick(`input_cost_per_token\u0000`, `in\"put`, `input_cost_per_tok\u0065n`))
		}
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		k := rng.IntN(len(keys) + 1)
		if rng.IntN(20) == 0 && k > 0 {
			keys = append(keys[:k], keys[0]) // a key given twice
			k++
		}
		for j, key := range keys[:k] {
			if j > 0 {
				b.WriteString(pick(",", ", ", ",\n    "))
			}
			fmt.Fprintf(&b, `"%s":%s`, key, pick("", " "))
			switch key {
			case "input_cost_per_token", "output_cost_per_token", "cache_read_input_token_cost":
				b.WriteString(rateText())
			case "supported_regions":
				b.WriteString(pick(`["us", "eu"]`, `[{"a": [1, {"b": "}"}]}]`, `[]`))
			case "mode":
				b.WriteString(pick(`"chat"`, `"a \"quoted\" {mode}"`, `{"nested": {"input_cost_per_token": "x"}}`))
			default:
				b.WriteString(pick(`8192`, `null`, `false`, `"openai"`, `1.5e3`))
			}
		}
		b.WriteString("}")
	}
	b.WriteString(pick("}", "}\n", " }", "} x", ""))
	return b.String()
}
