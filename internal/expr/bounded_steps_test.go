package expr

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"testing"
)

// allOf is a schema whose root applies n copies of sub, as allOf: n+1
// subschemas applied to the value.
func allOf(n int, sub map[string]any) map[string]any {
	subs := make([]any, n)
	for i := range subs {
		subs[i] = sub
	}
	return map[string]any{"allOf": subs}
}

// budget is the steps a check of a value of values JSON values may take.
func budget(values int) int { return SchemaStepsBase + SchemaStepsPerValue*values }

// stepsEdge checks that the schema make(at) fits the steps of v and
// make(at+1) does not: the check's cost, worked out by the rule, is at the
// budget's edge.
func stepsEdge(t *testing.T, what string, v any, at int, make func(n int) map[string]any) {
	t.Helper()
	if err := compileOK(t, make(at)).Validate(v); err != nil {
		t.Errorf("%s, %d: %v, want it checked (at the budget)", what, at, err)
	}
	if err := compileOK(t, make(at+1)).Validate(v); !IsLimit(err) {
		t.Errorf("%s, %d: %v, want the steps spent (one over the budget)", what, at+1, err)
	}
}

// TestBoundedStepCosts: the steps a check spends, at the edge of the
// budget, for each kind of cost: one a subschema applied to a value (a
// check that spends exactly its budget is made; a step more is not), one
// more for each eight members of an object or items of an array, the
// member names run through a patternProperties regular expression (one
// step for each 64 instruction-bytes), and an enum's lookup (one step for
// each eight values of the value looked up).
func TestBoundedStepCosts(t *testing.T) {
	// An array of 5,456 numbers (5,457 values: a budget of 16,384 +
	// 8*5,457 = 60,040): eight subschemas applying items: {type: number}
	// cost 1 + 5,456/8 and 5,456 for the items each, the root and n
	// subschemas {type: array} 1 + 5,456/8 = 683 each. At n = 15 the check
	// spends 24*683 + 8*5,456 = 60,040, its budget exactly.
	items := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = float64(i)
		}
		return out
	}
	stepsEdge(t, "subschemas over an array of 5,456 items", items(5456), 15, func(n int) map[string]any {
		s := allOf(8, map[string]any{"items": map[string]any{"type": "number"}})
		for range n {
			s["allOf"] = append(s["allOf"].([]any), map[string]any{"type": "array"})
		}
		return s
	})

	// An object of 8,192 members (8,193 values, a budget of 81,928): each
	// subschema costs 1 + 8,192/8 = 1,025, so the root and 78 fit
	// (80,975), 79 do not (82,000).
	obj := map[string]any{}
	for i := range 8192 {
		obj[fmt.Sprintf("m%04d", i)] = true
	}
	stepsEdge(t, "subschemas over an object of 8,192 members", obj, 78, func(n int) map[string]any {
		return allOf(n, map[string]any{"type": "object"})
	})
	stepsEdge(t, "subschemas over an array of 8,192 items", items(8192), 78, func(n int) map[string]any {
		return allOf(n, map[string]any{"type": "array"})
	})

	// An enum of one array of 1,023 items (1,024 values, a budget of
	// 24,576): the root costs 1 + 1,023/8 = 128, each enum subschema as
	// much and 1,024/8 for the lookup, 256: 95 fit (24,448), 96 do not
	// (24,704).
	arr := items(1023)
	stepsEdge(t, "enum lookups of an array of 1,023 items", arr, 95, func(n int) map[string]any {
		return allOf(n, map[string]any{"enum": []any{arr}})
	})
}

// TestBoundedMemberNameSteps: a patternProperties regular expression of n
// instructions run over an object's member names costs len(name)*n/64
// steps a name, on top of 1 + members/8 and one for each member's value
// the matched subschema is applied to: the most members of 16 KiB names
// that fit the budget are checked, one more is not.
func TestBoundedMemberNameSteps(t *testing.T) {
	const re = "^[a-z]*$"
	p, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := syntax.Compile(p.Simplify())
	if err != nil {
		t.Fatal(err)
	}
	insts := len(prog.Inst)
	s := compileOK(t, map[string]any{"patternProperties": map[string]any{re: map[string]any{"type": "boolean"}}})
	object := func(m int) (map[string]any, int) {
		v := map[string]any{}
		cost := 1 + m/8 + m // the object, and each member's value
		for i := range m {
			name := strings.Repeat("a", MaxPatternInput-1) + string(rune('a'+i))
			v[name] = true
			cost += len(name) * insts / 64
		}
		return v, cost
	}
	m := 1
	for ; ; m++ {
		if _, cost := object(m); cost > budget(1+m) {
			break
		}
		if m > 26 {
			t.Fatalf("%d members of %d bytes fit the budget: the names cost too little to test", m, MaxPatternInput)
		}
	}
	fits, _ := object(m - 1)
	if err := s.Validate(fits); err != nil {
		t.Errorf("%d members of %d-byte names (%d instructions): %v, want it checked", m-1, MaxPatternInput, insts, err)
	}
	over, _ := object(m)
	if err := s.Validate(over); !IsLimit(err) {
		t.Errorf("%d members of %d-byte names (%d instructions): %v, want the steps spent", m, MaxPatternInput, insts, err)
	}
}

// TestDecimalKeyIsExact: over drawn JSON numbers (signs, leading and
// trailing zeros, fractions, exponents), decimalKey is the number's exact
// value, its digits without leading or trailing zeros and the power of
// ten: read back as a rational it equals the number, so numbers share a
// key exactly when they are equal.
func TestDecimalKeyIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 5))
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte("0001234567899"[r.IntN(13)])
		}
		return b.String()
	}
	for range 20000 {
		num := ""
		if r.IntN(3) == 0 {
			num = "-"
		}
		num += digits(1 + r.IntN(6))
		if r.IntN(2) == 0 {
			num += "." + digits(1+r.IntN(6))
		}
		if r.IntN(2) == 0 {
			num += []string{"e", "E", "e+", "e-"}[r.IntN(4)] + digits(1+r.IntN(2))
		}
		key := decimalKey(num)
		want, ok := new(big.Rat).SetString(num)
		if !ok {
			t.Fatalf("%s is no number", num)
		}
		if want.Sign() == 0 {
			if key != "0" {
				t.Fatalf("decimalKey(%s) = %q, want 0", num, key)
			}
			continue
		}
		mant, _, _ := strings.Cut(strings.TrimPrefix(key, "-"), "e")
		if strings.HasPrefix(mant, "0") || strings.HasSuffix(mant, "0") {
			t.Fatalf("decimalKey(%s) = %q: its digits have a leading or trailing zero", num, key)
		}
		got, ok := new(big.Rat).SetString(key)
		if !ok || got.Cmp(want) != 0 {
			t.Fatalf("decimalKey(%s) = %q, which is %v, not %v", num, key, got, want)
		}
	}
}
