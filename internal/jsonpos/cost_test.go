package jsonpos

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// drawCosted writes a drawn JSON value to b, objects and arrays nested up
// to depth, and reports whether it is plain: no string with an escape and
// no object naming a member twice, the text DecodeCost costs exactly.
// Keys come from a small set, so some repeat; numbers, literals, strings
// with and without escapes, white space between tokens or none.
func drawCosted(b *bytes.Buffer, rng *rand.Rand, depth int) bool {
	space := func() {
		if rng.IntN(4) == 0 {
			b.WriteString([]string{" ", "\n  ", "\t", "\r\n"}[rng.IntN(4)])
		}
	}
	plain := true
	kind := rng.IntN(8)
	if depth <= 0 && kind < 3 {
		kind = 3 + rng.IntN(5)
	}
	switch kind {
	case 0, 1:
		b.WriteByte('{')
		seen := map[string]bool{}
		for i := range rng.IntN([]int{3, 10, 40}[rng.IntN(3)]) {
			if i > 0 {
				b.WriteByte(',')
			}
			space()
			key := []string{"", "a", "name", "k" + strconv.Itoa(rng.IntN(60)), `q\"x`, `\u00e9`, "long key of a member"}[rng.IntN(7)]
			plain = plain && !seen[key] && !strings.Contains(key, `\`)
			seen[key] = true
			b.WriteString(`"` + key + `"`)
			space()
			b.WriteByte(':')
			space()
			plain = drawCosted(b, rng, depth-1) && plain
		}
		space()
		b.WriteByte('}')
	case 2:
		b.WriteByte('[')
		for i := range rng.IntN([]int{3, 12, 50}[rng.IntN(3)]) {
			if i > 0 {
				b.WriteByte(',')
			}
			space()
			plain = drawCosted(b, rng, depth-1) && plain
		}
		space()
		b.WriteByte(']')
	case 3:
		s := strings.Repeat("x", rng.IntN(30))
		if rng.IntN(3) == 0 {
			s += []string{`\n`, `\\`, `\"`, `\ud83d\ude00`, `\/`}[rng.IntN(5)]
			plain = false
		}
		b.WriteString(`"` + s + `"`)
	case 4:
		b.WriteString([]string{"0", "-1", "3.25", "1e300", "-0.5E-7", "12345678901234567890"}[rng.IntN(6)])
	default:
		b.WriteString([]string{"true", "false", "null"}[rng.IntN(3)])
	}
	return plain
}

// costOf is the estimate worked out from a decoded value rather than its
// text: what DecodeCost says of a plain text.
func costOf(v any) int64 {
	switch v := v.(type) {
	case map[string]any:
		c, n := int64(MapCost), 0
		for k, m := range v {
			c += MemberCost(n, len(k)) + costOf(m)
			n++
		}
		return c
	case []any:
		c := int64(SliceCost)
		for _, e := range v {
			c += ElemCost + costOf(e)
		}
		return c
	case string:
		return StringCost(len(v))
	case float64:
		return NumberCost
	}
	return 0
}

// TestDecodeCostIsReference holds DecodeCost, one pass over the text, to
// the estimate worked out from the decoded value on 4,000 drawn values:
// equal on plain text, never under it on any text (an escape is costed
// by its quoted length, a repeated key as a member), the same for the
// text and its compact form, and within CostPerByte a byte.
func TestDecodeCostIsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for i := range 4000 {
		var b bytes.Buffer
		plain := drawCosted(&b, rng, 1+rng.IntN(5))
		data := b.Bytes()
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("draw %d is not JSON: %v: %s", i, err, data)
		}
		cost, want := DecodeCost(data), costOf(v)
		if plain && cost != want || cost < want {
			t.Fatalf("draw %d (plain %v): DecodeCost %d, from the value %d: %s", i, plain, cost, want, data)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, data); err != nil {
			t.Fatal(err)
		}
		if cc := DecodeCost(c.Bytes()); cc != cost {
			t.Fatalf("draw %d: DecodeCost %d compact, %d spaced: %s", i, cc, cost, data)
		}
		if cost > CostPerByte*int64(c.Len()) {
			t.Fatalf("draw %d: DecodeCost %d over CostPerByte times its %d bytes: %s", i, cost, c.Len(), data)
		}
	}
}

// TestDecodeCostOfEachShape pins the estimate of each kind of value.
func TestDecodeCostOfEachShape(t *testing.T) {
	nine := `{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0}`
	for _, c := range []struct {
		text string
		want int64
	}{
		{`{}`, 48},
		{`{"a":0}`, 48 + 288 + 8 + 8},
		{`{"abcdefghi":true}`, 48 + 288 + 16},
		{nine, 48 + (288 + 8) + 7*8 + (520 + 8) + 9*8},
		{`{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0,"j":0}`, 48 + (288 + 8) + 7*8 + (520 + 8) + (80 + 8) + 10*8},
		{`[]`, 24},
		{`[1, 2.5e3, -0]`, 24 + 3*(24+8)},
		{`[null,true,false]`, 24 + 3*24},
		{`""`, 16},
		{`"12345678"`, 16 + 8},
		{`"123456789"`, 16 + 16},
		{`[{"":[]}]`, 24 + 24 + 48 + 288 + 24},
		{`  [ "a" ,  {} ]  `, 24 + 24 + 16 + 8 + 24 + 48},
	} {
		if got := DecodeCost([]byte(c.text)); got != c.want {
			t.Errorf("DecodeCost(%s) = %d, want %d", c.text, got, c.want)
		}
	}
	four := []byte(`[[], {"a": [1, "[x]", []]}, "]"]`)
	if cost, at := DecodeCostAt(four, 100, math.MaxInt64); cost != DecodeCost(four)+4*100 || at != -1 {
		t.Errorf("DecodeCostAt with 100 more an array: %d, at %d; want %d, at -1", cost, at, DecodeCost(four)+400)
	}
}

// TestDecodeCostAtPlaces: the offset DecodeCostAt gives is where the
// value or member starts whose cost takes the total past the budget, for
// every budget from nothing to the text's whole cost on drawn values.
func TestDecodeCostAtPlaces(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		var b bytes.Buffer
		drawCosted(&b, rng, 3)
		text := b.Bytes()
		total := DecodeCost(text)
		for _, budget := range []int64{0, total / 3, total / 2, total - 1, total} {
			if budget < 0 {
				continue // a text of literals costs nothing
			}
			cost, at := DecodeCostAt(text, 0, budget)
			if cost != total {
				t.Fatalf("DecodeCostAt's cost %d, DecodeCost's %d: %s", cost, total, text)
			}
			if budget >= total {
				if at != -1 {
					t.Fatalf("within its budget %d, placed at %d: %s", budget, at, text)
				}
				continue
			}
			// what stands before at costs no more than the budget (a text
			// cut is costed as far as it goes), and the value at it, a key
			// or a scalar, takes the total past it
			if at < 0 || at >= len(text) || strings.IndexByte(" \t\r\n:,}]", text[at]) >= 0 {
				t.Fatalf("budget %d of %d placed at %d, no value's start: %s", budget, total, at, text)
			}
			if before, _ := DecodeCostAt(text[:at], 0, math.MaxInt64); before > budget {
				t.Fatalf("budget %d placed at %d, where the values before cost %d: %s", budget, at, before, text)
			}
			upTo, _ := DecodeCostAt(text[:Skip(text, at)], 0, math.MaxInt64)
			if text[at] != '{' && text[at] != '[' && upTo <= budget {
				t.Fatalf("budget %d placed at %d, where the text up to that value's end costs %d: %s", budget, at, upTo, text)
			}
		}
	}
	if got := MemberCost(3, 9); got != 16 {
		t.Errorf("MemberCost(3, 9) = %d, want 16", got)
	}
}

// TestOverBudgetAtItsEdge: a text is over its budget when it would cost
// more than the budget, not as much.
func TestOverBudgetAtItsEdge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 300 {
		var b bytes.Buffer
		drawCosted(&b, rng, 4)
		text := b.Bytes()
		cost := DecodeCost(text)
		if over, got := OverBudget(text, cost); over {
			t.Fatalf("over a budget of its own cost %d (%d): %s", cost, got, text)
		}
		if over, got := OverBudget(text, cost-1); !over || got != cost {
			t.Fatalf("not over a budget of its cost less one (%v, %d, cost %d): %s", over, got, cost, text)
		}
	}
	// The costliest JSON a byte, maps nested with an empty key, is within
	// CostPerByte, and near it.
	chain := []byte(strings.Repeat(`{"":`, 5000) + "0" + strings.Repeat("}", 5000))
	if cost, most := DecodeCost(chain), CostPerByte*int64(len(chain)); cost > most || cost < most*98/100 {
		t.Errorf("maps nested with an empty key cost %d, not just under %d", cost, most)
	}
	if over, cost := OverBudget(chain, CostPerByte*int64(len(chain))); over || cost != 0 {
		t.Errorf("a text within CostPerByte a byte of its budget is costed: %v %d", over, cost)
	}
	if MayBeOverBudget(BudgetFloor/CostPerByte) || !MayBeOverBudget(BudgetFloor/CostPerByte+1) {
		t.Errorf("MayBeOverBudget's edge is not BudgetFloor / CostPerByte")
	}
	if DecodeBudget(1000) != 12000+16<<20 {
		t.Errorf("DecodeBudget(1000) = %d", DecodeBudget(1000))
	}
	msg := BudgetError("cases[3] would take 1.0 GiB decoded, over", 1<<20)
	if !strings.HasPrefix(msg, "cases[3] would take 1.0 GiB decoded, over the decode budget of 28 MiB for JSON of 1 MiB (12 times its size, plus 16 MiB): mcptest refuses") {
		t.Errorf("BudgetError: %s", msg)
	}
}

// FuzzDecodeCost: any bytes get a figure and no panic; valid JSON gets at
// least the figure worked out from its decoded value, once each byte that
// is no character is counted as the U+FFFD (three bytes) it decodes to.
func FuzzDecodeCost(f *testing.F) {
	for _, s := range []string{`{}`, `]`, `,`, `}}}`, `{"a":1,}`, `{"a"`, `"\`, `[1,[2,{"x":"\"y"}]]`, `{1:2}`, `tru`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cost := DecodeCost(data)
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		if utf8.Valid(data) && cost < costOf(v) {
			t.Fatalf("DecodeCost %d under %d from the value: %q", cost, costOf(v), data)
		}
		var fixed []byte
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				fixed = utf8.AppendRune(fixed, r)
			} else {
				fixed = append(fixed, data[i:i+n]...)
			}
			i += n
		}
		if c := DecodeCost(fixed); c < costOf(v) {
			t.Fatalf("DecodeCost %d, with U+FFFD for each byte that is no character, under %d from the value: %q", c, costOf(v), data)
		}
	})
}
