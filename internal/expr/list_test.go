package expr_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
)

// lazyList is a []any read as an expr.List whose elements are made when
// read: each list in an element is a lazyList again. built counts the
// elements made, over every lazyList of one value.
type lazyList struct {
	l     []any
	built *int
}

func (l lazyList) Len() int { return len(l.l) }

func (l lazyList) At(i int) any {
	*l.built++
	return lazyOf(l.l[i], l.built)
}

// lazyOf is v with every list in it a lazyList counting into built; maps
// are copied.
func lazyOf(v any, built *int) any {
	return mixedOf(v, built, nil)
}

// mixedOf is lazyOf, but with rng each list is a lazyList or a []any
// (whose lists are mixed again) at random.
func mixedOf(v any, built *int, rng *rand.Rand) any {
	switch x := v.(type) {
	case []any:
		if rng == nil || rng.IntN(2) == 0 {
			return lazyList{l: x, built: built}
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = mixedOf(e, built, rng)
		}
		return l
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = mixedOf(e, built, rng)
		}
		return m
	}
	return v
}

// TestMatchCasesOverLists holds every worked matcher case (matchCases) to
// the same outcome with its value's lists read as an expr.List.
func TestMatchCasesOverLists(t *testing.T) {
	for _, tc := range matchCases() {
		if tc.actual == "" {
			continue
		}
		m, err := expr.ParseMatcher(decode(t, tc.matcher))
		if err != nil {
			t.Fatalf("%s: %v", tc.matcher, err)
		}
		built := 0
		pass, msg := m.Match(lazyOf(decode(t, tc.actual), &built), true)
		if pass != tc.pass || msg != tc.msg {
			t.Errorf("%s over %s as a List: %v, %q; want %v, %q", tc.matcher, tc.actual, pass, msg, tc.pass, tc.msg)
		}
	}
}

// TestListSameAsSliceDrawn draws values (lists of up to 3,000 elements,
// nested lists and objects, long strings, numbers of every size) and
// holds the value with its lists read as an expr.List (every list, or
// some, a []any among them holding a List) to the value itself: Render gives the same text building at most the elements it
// shows, Equal holds between them both ways and against a value next to
// it alike, Lookup finds the same at drawn paths, Materialize gives the
// value back, and every drawn matcher (exact, ==, !=, contains of an
// element and of none, regex, comparisons, schema passing, failing and
// over its limits, not) matches alike.
func TestListSameAsSliceDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 32))
	n := 1500
	if testing.Short() {
		n = 300
	}
	for i := range n {
		v := drawListValue(rng, 3)
		built := 0
		lazy := lazyOf(v, &built)
		if i%2 == 1 {
			lazy = mixedOf(v, &built, rng)
		}
		at := fmt.Sprintf("value %d (%.120s)", i, expr.Render(v))
		if got, want := expr.Render(lazy), expr.Render(v); got != want {
			t.Fatalf("%s: Render %q, want %q", at, got, want)
		}
		if l, ok := v.([]any); ok && i%2 == 0 && built > 403 {
			t.Fatalf("%s: Render built %d elements of a list of %d to show 200 characters", at, built, len(l))
		}
		next := nextTo(rng, v)
		if !expr.Equal(lazy, v) || !expr.Equal(v, lazy) || expr.Equal(lazy, next) != expr.Equal(v, next) {
			t.Fatalf("%s: Equal differs from the value's", at)
		}
		if got := expr.Materialize(lazy); !reflect.DeepEqual(got, v) {
			t.Fatalf("%s: Materialize gives %.200s", at, expr.Render(got))
		}
		for range 3 {
			p := drawListPath(t, rng)
			got, gotOK := p.Lookup(map[string]any{"v": lazy})
			want, wantOK := p.Lookup(map[string]any{"v": v})
			if gotOK != wantOK || !reflect.DeepEqual(expr.Materialize(got), want) {
				t.Fatalf("%s: Lookup(%s) = %.200s %v, want %.200s %v", at, p, expr.Render(got), gotOK, expr.Render(want), wantOK)
			}
		}
		for range 4 {
			m := drawListMatcher(t, rng, v, next)
			gotPass, gotMsg := m.Match(lazy, true)
			wantPass, wantMsg := m.Match(v, true)
			if gotPass != wantPass || gotMsg != wantMsg {
				t.Fatalf("%s, %s: %v %q, want %v %q", at, m, gotPass, gotMsg, wantPass, wantMsg)
			}
		}
	}
}

// drawListValue draws a JSON value depth levels deep at most, lists
// often, and now and then long at the top.
func drawListValue(rng *rand.Rand, depth int) any {
	return drawListAt(rng, depth, true)
}

func drawListAt(rng *rand.Rand, depth int, top bool) any {
	k := rng.IntN(8)
	if depth == 0 {
		k = 3 + rng.IntN(5)
	}
	switch k {
	case 0, 1:
		n := rng.IntN(5)
		if top && rng.IntN(4) == 0 {
			n = rng.IntN(3000)
		}
		l := make([]any, n)
		for i := range l {
			l[i] = drawListAt(rng, depth-1, false)
		}
		return l
	case 2:
		m := map[string]any{}
		for range rng.IntN(4) {
			m[string(rune('a'+rng.IntN(6)))] = drawListAt(rng, depth-1, false)
		}
		return m
	case 3:
		return []string{"", "x", "tool", strings.Repeat("é\"", 150)}[rng.IntN(4)]
	case 4:
		return []float64{0, 1, -2.5, 1e21, 1e-7, math.MaxFloat64}[rng.IntN(6)]
	case 5:
		return rng.IntN(2) == 0
	case 6:
		return nil
	}
	return float64(rng.IntN(10))
}

// nextTo is a value next to v: a list with its last element changed or
// left out, an object with a member more, anything else wrapped.
func nextTo(rng *rand.Rand, v any) any {
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return []any{nil}
		}
		out := append([]any(nil), x[:len(x)-1]...)
		if rng.IntN(2) == 0 {
			out = append(out, "changed")
		}
		return out
	case map[string]any:
		out := map[string]any{"z": true}
		for k, e := range x {
			out[k] = e
		}
		return out
	}
	return []any{v}
}

// drawListPath draws a path into a drawn value under the key v: indexes
// (past the end too) and keys.
func drawListPath(t *testing.T, rng *rand.Rand) expr.Path {
	t.Helper()
	text := "v"
	for range 1 + rng.IntN(3) {
		if rng.IntN(3) > 0 {
			text += fmt.Sprintf("[%d]", []int{0, 1, 2, 5, 2999}[rng.IntN(5)])
		} else {
			text += "." + string(rune('a'+rng.IntN(6)))
		}
	}
	p, err := expr.ParsePath(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// drawListMatcher draws a matcher over v: of each kind, with v, next or
// an element of v as its operand.
func drawListMatcher(t *testing.T, rng *rand.Rand, v, next any) *expr.Matcher {
	t.Helper()
	var elem any = "none"
	if l, ok := v.([]any); ok && len(l) > 0 && rng.IntN(3) > 0 {
		elem = l[rng.IntN(len(l))]
	}
	schemas := []any{
		map[string]any{"type": "array", "maxItems": float64(rng.IntN(4))},
		map[string]any{"type": "array", "items": map[string]any{"type": "number"}},
		map[string]any{"contains": map[string]any{"type": "string"}},
		map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "array"}}},
		map[string]any{"type": "array", "uniqueItems": true},
	}
	ms := []any{
		map[string]any{"exact": v}, map[string]any{"==": next}, map[string]any{"!=": v}, map[string]any{"!=": next},
		map[string]any{"contains": elem}, map[string]any{"regex": "x"}, map[string]any{">=": 1.0},
		map[string]any{"schema": schemas[rng.IntN(len(schemas))]},
		map[string]any{"not": map[string]any{"contains": elem}},
	}
	m, err := expr.ParseMatcher(ms[rng.IntN(len(ms))])
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSchemaOverListNonFinite: a schema over a List whose elements hold
// NaN or an infinity says the first in key order, as over the []any.
func TestSchemaOverListNonFinite(t *testing.T) {
	m, err := expr.ParseMatcher(map[string]any{"schema": map[string]any{"type": "array"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range [][]any{
		{1.0, map[string]any{"b": math.Inf(1), "a": []any{math.NaN()}}, math.Inf(-1)},
		{[]any{1.0, []any{math.Inf(-1)}}, math.NaN()},
		{1.0, "x", []any{2.0}},
	} {
		built := 0
		gotPass, gotMsg := m.Match(lazyOf(v, &built), true)
		wantPass, wantMsg := m.Match(v, true)
		if gotPass != wantPass || gotMsg != wantMsg {
			t.Errorf("%s: %v %q, want %v %q", expr.Render(v), gotPass, gotMsg, wantPass, wantMsg)
		}
	}
}
