package prices

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
)

// MaxTableBytes bounds a price table file: LiteLLM's full table is under
// 2 MiB.
const MaxTableBytes = 32 << 20

// Table is a price table: the per-token rates of the models it lists.
type Table struct {
	// Source says where the table came from: EmbeddedSource or a file name.
	Source string
	// SHA256 digests the table's bytes.
	SHA256 string
	// Updated is the table's top-level "last_updated" string, when it has
	// one (the mirror the embedded copy comes from adds it).
	Updated string
	rates   map[string]rate
}

// rate is one model's input, output and cached-input price per token, in
// dollars; cached is nil when the entry has no cache_read_input_token_cost.
type rate struct{ in, out, cached *big.Rat }

// Load reads a price table file, bounded by MaxTableBytes.
func Load(path string) (*Table, error) {
	data, err := safefile.ReadFile(path, MaxTableBytes)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes a table in LiteLLM's format. A model whose entry lacks
// either per-token rate (an image or audio model) is left out; a rate that
// is not a non-negative number, an entry that is not an object, and a file
// that is not one JSON object are errors, each located as
// name:line:col.
func Parse(name string, data []byte) (*Table, error) {
	sum := sha256.Sum256(data)
	if rates, updated, ok := parseFast(data); ok {
		return &Table{Source: name, SHA256: hex.EncodeToString(sum[:]), Updated: updated, rates: rates}, nil
	}
	return parseChecked(name, data, hex.EncodeToString(sum[:]))
}

// parseChecked is Parse with a decoder for every entry: the reading that
// locates each error. parseFast's table, where it gives one, is this one's.
func parseChecked(name string, data []byte, digest string) (*Table, error) {
	t := &Table{Source: name, SHA256: digest, rates: map[string]rate{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	fail := func(offset int64, format string, args ...any) error {
		line, col := diag.LineCol(data, offset)
		return &diag.Error{Pos: diag.Pos{File: name, Line: line, Col: col}, Kind: "prices", Message: fmt.Sprintf(format, args...)}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fail(skipSpace(data, 0), "a price table is one JSON object mapping model names to their rates (LiteLLM's model_prices_and_context_window.json)")
	}
	firstAt := map[string]int64{}
	for dec.More() {
		keyAt := skipSpace(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(keyAt, "not valid JSON: %v", syntaxText(err))
		}
		model, _ := tok.(string)
		if first, seen := firstAt[model]; seen {
			line, col := diag.LineCol(data, first)
			return nil, fail(keyAt, "model %q is listed twice (first at %d:%d): a table lists each model once", model, line, col)
		}
		firstAt[model] = keyAt
		at := skipSpace(data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fail(at, "model %q: not valid JSON: %v", model, syntaxText(err))
		}
		if key, twice := repeatedKey(raw); twice {
			return nil, fail(at, "model %q: %q is given twice: an entry gives each rate once", model, key)
		}
		if model == "last_updated" && t.readUpdated(raw) {
			continue
		}
		var entry any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&entry); err != nil {
			return nil, fail(at, "model %q: not valid JSON: %v", model, syntaxText(err))
		}
		obj, ok := entry.(map[string]any)
		if !ok {
			return nil, fail(at, "model %q: its entry is %s, expected an object with input_cost_per_token and output_cost_per_token", model, kindOf(entry))
		}
		r, priced, err := rateOf(obj)
		if err != nil {
			return nil, fail(at, "model %q: %v", model, err)
		}
		if priced && model != "sample_spec" { // LiteLLM's entry documenting the fields
			t.rates[model] = r
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(dec.InputOffset(), "not valid JSON: %v", syntaxText(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fail(dec.InputOffset(), "text after the table's closing brace, expected the end of the file")
	}
	return t, nil
}

// readUpdated takes a top-level "last_updated" string as the table's
// date, cut to one line of 64 characters; it reports false for any other
// value, which is then read as a model's entry.
func (t *Table) readUpdated(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }); i >= 0 {
		s = s[:i]
	}
	if len(s) > 64 {
		s = s[:64]
	}
	t.Updated = s
	return true
}

// repeatedKey reports the first key an entry object gives twice (raw is
// valid JSON); a value that is not an object has none.
func repeatedKey(raw json.RawMessage) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		key, _ := tok.(string)
		if seen[key] {
			return key, true
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", false
		}
	}
	return "", false
}

// skipSpace returns the offset of the first byte at or after off that is
// not JSON whitespace or the separator before a value: where the next value
// starts, for a position that points at it.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
		off++
	}
	return off
}

// rateOf reads an entry's two per-token rates and its cached-input rate;
// priced is false when either of the two is absent.
func rateOf(obj map[string]any) (r rate, priced bool, err error) {
	in, inOK, err := dollars(obj, "input_cost_per_token")
	if err != nil {
		return r, false, err
	}
	out, outOK, err := dollars(obj, "output_cost_per_token")
	if err != nil {
		return r, false, err
	}
	cached, _, err := dollars(obj, "cache_read_input_token_cost")
	if err != nil {
		return r, false, err
	}
	return rate{in: in, out: out, cached: cached}, inOK && outOK, nil
}

func dollars(obj map[string]any, key string) (*big.Rat, bool, error) {
	v, ok := obj[key]
	if !ok || v == nil {
		return nil, false, nil
	}
	n, isNum := v.(json.Number)
	if !isNum {
		return nil, false, fmt.Errorf("%s is %s, expected a number of US dollars per token", key, kindOf(v))
	}
	r, ok := rateValue(n.String())
	if !ok {
		return nil, false, fmt.Errorf("%s is %s, expected a non-negative number of US dollars per token between 1e-30 and 1e30 (or 0)", key, clip(n.String()))
	}
	return r, true, nil
}

// Bounds of a per-token rate. A rate outside them is no price: it is
// refused before it costs anything, as 1e99999 would be a number of 100,000
// digits in every later sum.
var (
	maxRate = new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil))
	minRate = new(big.Rat).Inv(maxRate)
)

// rateValue reads a rate as the exact decimal it is written as: 0, or
// between minRate and maxRate. A text of more than 64 characters or with an
// exponent of more than three digits is refused before it is converted.
func rateValue(text string) (*big.Rat, bool) {
	if len(text) > 64 {
		return nil, false
	}
	if i := strings.IndexAny(text, "eE"); i >= 0 && len(strings.TrimLeft(text[i+1:], "+-")) > 3 {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok || r.Sign() < 0 || r.Sign() > 0 && (r.Cmp(minRate) < 0 || r.Cmp(maxRate) > 0) {
		return nil, false
	}
	return r, true
}

// clip cuts a rate's text to 40 characters for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "a list"
	}
	return "an object"
}

func syntaxText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}

// Len is the number of models the table prices.
func (t *Table) Len() int { return len(t.rates) }

// Match is how a model name found its entry: the entry's name and the rule
// that led to it.
type Match struct {
	// Entry is the table's model name whose rates apply.
	Entry string
	// Rule is "exact" (the name is in the table) or "provider prefix"
	// (the name after its last "/" is).
	Rule string
}

// lookup finds a model's rates: its exact name, else the name after the
// last "/" (a provider-qualified "openai/gpt-4o" reads gpt-4o's rates).
// There is no other fallback: a dated variant missing from the table is
// not priced at its family's rate.
func (t *Table) lookup(model string) (rate, Match, bool) {
	if r, ok := t.rates[model]; ok {
		return r, Match{Entry: model, Rule: "exact"}, true
	}
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		r, ok := t.rates[model[i+1:]]
		return r, Match{Entry: model[i+1:], Rule: "provider prefix"}, ok
	}
	return rate{}, Match{}, false
}

// Rates are the per-token prices, in US dollars, a run of a model is
// charged: CachedInput is nil when its entry has no cached-input rate
// (cached tokens are then charged as input).
type Rates struct {
	Match
	Input, Output, CachedInput *big.Rat
}

// Lookup returns the rates a run of model is priced at and how its entry
// was found; ok is false when the table has none.
func (t *Table) Lookup(model string) (Rates, bool) {
	if t == nil {
		return Rates{}, false
	}
	r, m, ok := t.lookup(model)
	if !ok {
		return Rates{}, false
	}
	return Rates{Match: m, Input: r.in, Output: r.out, CachedInput: r.cached}, true
}

// Suggest returns the priced model name closest to model, for a
// did-you-mean, or "" when none is close.
func (t *Table) Suggest(model string) string {
	if t == nil {
		return ""
	}
	names := make([]string, 0, len(t.rates))
	for name := range t.rates {
		names = append(names, name)
	}
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	return diag.Suggest(model, names)
}

// CostMicros prices input and output tokens of model in millionths of a
// dollar, rounded half up; ok is false when the table has no rates for the
// model or a count is negative.
func (t *Table) CostMicros(model string, input, output int64) (micros int64, ok bool) {
	return t.CostMicrosCached(model, input, 0, output)
}

// CostMicrosCached is CostMicros for a run whose input includes cached
// input tokens read from the provider's prompt cache: those are charged at
// the entry's cache_read_input_token_cost (at the input rate when it has
// none), the rest of the input at the input rate. A cached count above the
// input is not a usage any provider reports: ok is false.
func (t *Table) CostMicrosCached(model string, input, cached, output int64) (micros int64, ok bool) {
	if t == nil || input < 0 || output < 0 || cached < 0 || cached > input {
		return 0, false
	}
	r, _, found := t.lookup(model)
	if !found {
		return 0, false
	}
	cachedRate := r.in
	if r.cached != nil {
		cachedRate = r.cached
	}
	cost := new(big.Rat).Mul(r.in, new(big.Rat).SetInt64(input-cached))
	cost.Add(cost, new(big.Rat).Mul(cachedRate, new(big.Rat).SetInt64(cached)))
	cost.Add(cost, new(big.Rat).Mul(r.out, new(big.Rat).SetInt64(output)))
	cost.Mul(cost, big.NewRat(1_000_000, 1))
	cost.Add(cost, big.NewRat(1, 2))
	q := new(big.Int).Quo(cost.Num(), cost.Denom())
	if !q.IsInt64() {
		return 0, false
	}
	return q.Int64(), true
}

// Decimal writes a rate exactly as a decimal ("0.0000025"), the way the
// table's numbers are read: every rate is a finite decimal of at most 64
// characters, so at most 64 fraction digits are needed.
func Decimal(r *big.Rat) string {
	for prec := 0; prec <= 96; prec++ {
		s := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return s
		}
	}
	return r.FloatString(96)
}
