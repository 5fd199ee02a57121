package prices

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
)

// Open is the table a run uses: the file given to --prices (Load, a
// malformed table a positioned error, an unreadable one an input error
// naming the flag), else the embedded copy.
func Open(file string) (*Table, error) {
	if file == "" {
		return Embedded()
	}
	t, err := Load(file)
	if err != nil && !errors.As(err, new(*diag.Error)) {
		return nil, diag.Input("--prices: %v", err)
	}
	return t, err
}

// Report is what `mcptest prices` prints: the table and, per model found,
// the rates a run of it is priced at and the entry that matched.
type Report struct {
	Table  TableInfo    `json:"table"`
	Models []ModelPrice `json:"models"`
}

// TableInfo names a table: where it came from, its digest and date.
type TableInfo struct {
	Source  string `json:"source"`
	SHA256  string `json:"sha256"`
	Updated string `json:"updated,omitempty"`
}

// ModelPrice is one model's rates in US dollars per token, written as the
// exact decimals the table gives (JSON numbers), and per million tokens.
type ModelPrice struct {
	Model        string      `json:"model"`
	Entry        string      `json:"entry"`
	Match        string      `json:"match"`
	Input        json.Number `json:"input_cost_per_token"`
	Output       json.Number `json:"output_cost_per_token"`
	CachedInput  json.Number `json:"cache_read_input_token_cost,omitempty"`
	InputPerM    json.Number `json:"input_per_million"`
	OutputPerM   json.Number `json:"output_per_million"`
	CachedPerM   json.Number `json:"cache_read_per_million,omitempty"`
	cachedAbsent bool
}

// Report looks models up in t: the report of those it prices, and the
// names it has no entry for, in the order given.
func (t *Table) Report(models []string) (rep Report, unknown []string) {
	rep = Report{Table: TableInfo{Source: t.Source, SHA256: t.SHA256, Updated: t.Updated}, Models: []ModelPrice{}}
	for _, m := range models {
		r, ok := t.Lookup(m)
		if !ok {
			unknown = append(unknown, m)
			continue
		}
		rep.Models = append(rep.Models, modelPriceOf(m, r))
	}
	return rep, unknown
}

// Unknown is the message for a model t has no entry for, with the nearest
// priced name.
func (t *Table) Unknown(model string) string {
	hint := ""
	if s := t.Suggest(model); s != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	return fmt.Sprintf("the price table has no entry for model %q%s: a run of it that records tokens and no cost is not priced", model, hint)
}

func modelPriceOf(model string, r Rates) ModelPrice {
	m := ModelPrice{Model: model, Entry: r.Entry, Match: r.Rule,
		Input: json.Number(Decimal(r.Input)), Output: json.Number(Decimal(r.Output)),
		InputPerM: perMillion(r.Input), OutputPerM: perMillion(r.Output), cachedAbsent: r.CachedInput == nil}
	if r.CachedInput != nil {
		m.CachedInput, m.CachedPerM = json.Number(Decimal(r.CachedInput)), perMillion(r.CachedInput)
	}
	return m
}

// perMillion is a per-token rate times a million, exactly.
func perMillion(r *big.Rat) json.Number {
	return json.Number(Decimal(new(big.Rat).Mul(r, big.NewRat(1_000_000, 1))))
}

// Write renders the report as json or text; clean quotes a name that
// holds a character that does not print (the names are the user's
// arguments and the table's keys).
func (p Report) Write(w io.Writer, format string, clean func(string) string) error {
	if format == "json" {
		data, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "table: %s\n", p.Table.Source)
	fmt.Fprintf(&b, "sha256: %s\n", p.Table.SHA256)
	for _, m := range p.Models {
		fmt.Fprintf(&b, "\n%s: entry %s (%s match)\n", clean(m.Model), clean(m.Entry), m.Match)
		fmt.Fprintf(&b, "  input         $%s per 1M tokens\n", cents(m.InputPerM))
		fmt.Fprintf(&b, "  output        $%s per 1M tokens\n", cents(m.OutputPerM))
		if m.cachedAbsent {
			b.WriteString("  cached input  no cache_read_input_token_cost: charged as input\n")
		} else {
			fmt.Fprintf(&b, "  cached input  $%s per 1M tokens\n", cents(m.CachedPerM))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cents writes an exact decimal amount of dollars with at least two
// fraction digits: 3 is 3.00, 0.3 is 0.30, 0.075 stays 0.075.
func cents(n json.Number) string {
	s := string(n)
	i := strings.IndexByte(s, '.')
	switch {
	case i < 0:
		return s + ".00"
	case len(s)-i == 2:
		return s + "0"
	}
	return s
}
