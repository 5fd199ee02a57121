package prices

import (
	_ "embed"
	"fmt"
	"math/big"
	"strings"
	"sync"
)

// EmbeddedSource names the embedded table: LiteLLM's
// model_prices_and_context_window.json of 2026-07-24, as mirrored by
// RoCry/llm-api-price at commit 8442b93 (litellm/README.md).
const EmbeddedSource = "LiteLLM model_prices_and_context_window.json (embedded copy of 2026-07-24, RoCry/llm-api-price 8442b93)"

// embeddedSHA256 is the digest of the embedded table uncompressed, the one
// its README names: a run's envelope reports it as the table it priced
// with; TestEmbeddedTable computes it from the bytes.
const embeddedSHA256 = "d367a97d5e53cdea0ea68853afba06c8429afa51cfc3fe834a9a1d8eb8e8d68f"

// embeddedRates is what a run reads of the embedded table: its date, then
// each priced model's rates as the table writes them (rates.tsv, written
// from the table by `go test ./internal/prices -run TestEmbeddedRates
// -update`). Reading the 1.5 MB table itself, gunzipped and scanned, cost
// about 7 ms of CPU in every run that priced a recording, on its first
// case, while the others waited; these 2,496 lines take a few hundred
// microseconds.
//
//go:embed litellm/rates.tsv
var embeddedRates string

var (
	embeddedOnce  sync.Once
	embeddedTable *Table
	embeddedErr   error
)

// Embedded returns the table compiled into mcptest. Its rates are the
// table's as Parse reads it (TestEmbeddedRates), so an error here is a
// build defect.
func Embedded() (*Table, error) {
	embeddedOnce.Do(func() {
		embeddedTable, embeddedErr = readRates(embeddedRates)
		if embeddedTable != nil {
			embeddedTable.Source = EmbeddedSource
			embeddedTable.SHA256 = embeddedSHA256
		}
	})
	return embeddedTable, embeddedErr
}

// ratesHead starts the rates' first line, which holds the table's date.
const ratesHead = "last_updated\t"

// readRates reads the rates' lines: the first is ratesHead and the
// table's date; each other is a model's name, input, output and
// cached-input rate, tab-separated, the last empty when the entry has
// none. Each distinct rate is converted once.
func readRates(text string) (*Table, error) {
	head, rest, _ := strings.Cut(text, "\n")
	updated, ok := strings.CutPrefix(head, ratesHead)
	if !ok {
		return nil, fmt.Errorf("embedded rates: line 1 is %q, expected %q and the table's date", clip(head), ratesHead)
	}
	t := &Table{Updated: updated, rates: make(map[string]rate, strings.Count(rest, "\n"))}
	rats := map[string]*big.Rat{}
	value := func(text string) (*big.Rat, bool) {
		if r, seen := rats[text]; seen {
			return r, true
		}
		r, ok := rateValue(text)
		if ok {
			rats[text] = r
		}
		return r, ok
	}
	for n := 2; rest != ""; n++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		model, rest1, _ := strings.Cut(line, "\t")
		in, rest2, _ := strings.Cut(rest1, "\t")
		out, cached, four := strings.Cut(rest2, "\t")
		if model == "" || !four || strings.Contains(cached, "\t") {
			return nil, fmt.Errorf("embedded rates: line %d has %d fields, expected a model and its three rates", n, strings.Count(line, "\t")+1)
		}
		var r rate
		var okIn, okOut bool
		r.in, okIn = value(in)
		r.out, okOut = value(out)
		okCached := cached == ""
		if !okCached {
			r.cached, okCached = value(cached)
		}
		if !okIn || !okOut || !okCached {
			return nil, fmt.Errorf("embedded rates: line %d (%s): a rate that is not a number", n, model)
		}
		t.rates[model] = r
	}
	return t, nil
}
