package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/prices"
)

// pricesCommand prints, per model, the rates a run of it would be priced at
// and the table entry that matched; a model the table lacks is named on
// stderr with the nearest priced one, and exits 2.
func (c *Command) pricesCommand(_ context.Context, args []string) error {
	fs := c.newFlags("prices", "mcptest prices [--prices FILE] [--format text|json] MODEL...")
	file := fs.String("prices", "", "look the models up in the LiteLLM-format price table `FILE` instead of the embedded copy")
	format := fs.String("format", "text", "text or json")
	models, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return inputErr("--format %q: expected text or json", *format)
	}
	if len(models) == 0 {
		return inputErr("prices takes one or more model names, as a cassette's model names them (mcptest prices claude-sonnet-4-5 openai/gpt-4o)")
	}
	table, err := priceTable(*file)
	if err != nil {
		return err
	}
	out := priceReport{Table: priceTableInfo{Source: table.Source, SHA256: table.SHA256, Updated: table.Updated}, Models: []modelPrice{}}
	var unknown []string
	for _, m := range models {
		r, ok := table.Lookup(m)
		if !ok {
			unknown = append(unknown, m)
			continue
		}
		out.Models = append(out.Models, modelPriceOf(m, r))
	}
	if err := out.write(c.Stdout, *format); err != nil {
		return fmt.Errorf("write prices: %w", err)
	}
	for _, m := range unknown {
		hint := ""
		if s := table.Suggest(m); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		fmt.Fprintf(c.Stderr, "mcptest: prices: the price table has no entry for model %s%s: a run of it that records tokens and no cost is not priced\n",
			fmt.Sprintf("%q", m), hint)
	}
	if unknown != nil {
		return silentExit(ExitInput)
	}
	return nil
}

// priceTable is the table a run would use: the file given to --prices,
// else the embedded copy.
func priceTable(file string) (*prices.Table, error) {
	if file == "" {
		return prices.Embedded()
	}
	t, err := prices.Load(file)
	if err != nil && !errors.As(err, new(*diag.Error)) {
		return nil, inputErr("--prices: %v", err)
	}
	return t, err
}

// priceReport is what `mcptest prices --format json` prints.
type priceReport struct {
	Table  priceTableInfo `json:"table"`
	Models []modelPrice   `json:"models"`
}

type priceTableInfo struct {
	Source  string `json:"source"`
	SHA256  string `json:"sha256"`
	Updated string `json:"updated,omitempty"`
}

// modelPrice is one model's rates in US dollars per token, written as the
// exact decimals the table gives (JSON numbers), and per million tokens.
type modelPrice struct {
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

func modelPriceOf(model string, r prices.Rates) modelPrice {
	m := modelPrice{Model: model, Entry: r.Entry, Match: r.Rule,
		Input: json.Number(prices.Decimal(r.Input)), Output: json.Number(prices.Decimal(r.Output)),
		InputPerM: perMillion(r.Input), OutputPerM: perMillion(r.Output), cachedAbsent: r.CachedInput == nil}
	if r.CachedInput != nil {
		m.CachedInput, m.CachedPerM = json.Number(prices.Decimal(r.CachedInput)), perMillion(r.CachedInput)
	}
	return m
}

// perMillion is a per-token rate times a million, exactly.
func perMillion(r *big.Rat) json.Number {
	return json.Number(prices.Decimal(new(big.Rat).Mul(r, big.NewRat(1_000_000, 1))))
}

func (p priceReport) write(w io.Writer, format string) error {
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
		// The model name is the user's argument: printed quoted when it
		// holds a character that does not print.
		fmt.Fprintf(&b, "\n%s: entry %s (%s match)\n", annotate.Clean(m.Model), annotate.Clean(m.Entry), m.Match)
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
