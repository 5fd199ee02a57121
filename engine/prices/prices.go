package prices

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"sync"

	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/safefile"
)

// MaxTableBytes bounds a price table file: LiteLLM's full table is under
// 2 MiB.
const MaxTableBytes = 32 << 20

// EmbeddedSource names the embedded table: LiteLLM's
// model_prices_and_context_window.json as published in the npm package
// llm-cost 1.0.5 (2024-12-13).
const EmbeddedSource = "LiteLLM model_prices_and_context_window.json (embedded copy of 2024-12-13)"

//go:embed litellm/model_prices_and_context_window.json
var embedded []byte

// Table is a price table: the per-token rates of the models it lists.
type Table struct {
	// Source says where the table came from: EmbeddedSource or a file name.
	Source string
	// SHA256 digests the table's bytes.
	SHA256 string
	rates  map[string]rate
}

// rate is one model's input and output price per token, in dollars.
type rate struct{ in, out *big.Rat }

var (
	embeddedOnce  sync.Once
	embeddedTable *Table
	embeddedErr   error
)

// Embedded returns the table compiled into mcptest. Its bytes are checked
// by the package's tests, so an error here is a build defect.
func Embedded() (*Table, error) {
	embeddedOnce.Do(func() {
		embeddedTable, embeddedErr = Parse("embedded price table", embedded)
		if embeddedTable != nil {
			embeddedTable.Source = EmbeddedSource
		}
	})
	return embeddedTable, embeddedErr
}

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
	t := &Table{Source: name, SHA256: hex.EncodeToString(sum[:]), rates: map[string]rate{}}
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
		if priced {
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

// rateOf reads an entry's two per-token rates; priced is false when
// either is absent.
func rateOf(obj map[string]any) (r rate, priced bool, err error) {
	in, inOK, err := dollars(obj, "input_cost_per_token")
	if err != nil {
		return r, false, err
	}
	out, outOK, err := dollars(obj, "output_cost_per_token")
	if err != nil {
		return r, false, err
	}
	return rate{in: in, out: out}, inOK && outOK, nil
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

// lookup finds a model's rates: its exact name, else the name after the
// last "/" (a provider-qualified "openai/gpt-4o" reads gpt-4o's rates).
// There is no other fallback: a dated variant missing from the table is
// not priced at its family's rate.
func (t *Table) lookup(model string) (rate, bool) {
	if r, ok := t.rates[model]; ok {
		return r, true
	}
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		r, ok := t.rates[model[i+1:]]
		return r, ok
	}
	return rate{}, false
}

// CostMicros prices input and output tokens of model in millionths of a
// dollar, rounded half up; ok is false when the table has no rates for the
// model or a count is negative.
func (t *Table) CostMicros(model string, input, output int64) (micros int64, ok bool) {
	if t == nil || input < 0 || output < 0 {
		return 0, false
	}
	r, found := t.lookup(model)
	if !found {
		return 0, false
	}
	cost := new(big.Rat).Mul(r.in, new(big.Rat).SetInt64(input))
	cost.Add(cost, new(big.Rat).Mul(r.out, new(big.Rat).SetInt64(output)))
	cost.Mul(cost, big.NewRat(1_000_000, 1))
	cost.Add(cost, big.NewRat(1, 2))
	q := new(big.Int).Quo(cost.Num(), cost.Denom())
	if !q.IsInt64() {
		return 0, false
	}
	return q.Int64(), true
}
