package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine/schema"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// TestSchemaCheckAgrees holds schemaCheck to the suite schema's
// validator. The embedded schema compiles for it (every keyword known),
// and the two judge every document the same, valid for both or for
// neither: every suite of examples/ and testdata/, each of their sections
// on its own, the generated suites; each of those with an empty key added
// to one mapping, for every mapping; and 10,000 documents drawn from them
// (a key dropped, renamed or added, a value replaced by one of another
// type or shape, a string emptied, a list emptied or an item repeated, a
// number put at a bound the schema states, a value moved from elsewhere
// in the document, one level deeper). Each document's sections are also
// judged item by item (validItem), as a run that streams them does.
func TestSchemaCheckAgrees(t *testing.T) {
	if suiteCheck() == nil {
		t.Fatal("the suite schema uses a keyword schemaCheck does not know: every suite pays the validator's compile")
	}
	var bases []any
	files, _ := filepath.Glob("../examples/*/*.yml")
	more, _ := filepath.Glob("testdata/*/*.yml")
	for _, file := range append(files, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if d := yamlpos.Read(file, data, suiteYAML); len(d.Errs) == 0 && d.Root != nil {
			bases = append(bases, d.Root)
		}
	}
	for _, text := range [][]byte{gen.CaseSuite(gen.DefaultSeed, 5), gen.TranscriptSuite(gen.DefaultSeed, 5), []byte(fastSuites[1])} {
		bases = append(bases, yamlpos.Read("g.yml", text, suiteYAML).Root)
	}
	for _, b := range slices.Clone(bases) { // each section on its own too: fewer places to draw from
		m, _ := b.(map[string]any)
		for _, k := range slices.Sorted(mapKeys(m)) {
			if len(m) > 1 {
				bases = append(bases, map[string]any{k: m[k]})
			}
		}
	}
	if len(bases) < 30 {
		t.Fatalf("%d suites to draw from", len(bases))
	}
	rng := rand.New(rand.NewPCG(40, 9))
	valid, refused := 0, 0
	judge := func(doc any, what string) {
		t.Helper()
		want := schema.Suite().Validate(doc) == nil
		if got := suiteCheck().check(doc); got != want {
			t.Fatalf("%s: schemaCheck says valid %v, the validator %v (%v):\n%v", what, got, want, schema.Suite().Validate(doc), doc)
		}
		if want {
			valid++
		} else {
			refused++
		}
		m, _ := doc.(map[string]any)
		for _, key := range slices.Sorted(mapKeys(m)) {
			items, _ := m[key].([]any)
			for _, it := range items {
				want := schema.Suite().Validate(map[string]any{key: []any{it}}) == nil
				if got := suiteCheck().validItem(key, it); got != want {
					t.Fatalf("%s: an item of %s: schemaCheck says valid %v, the validator %v:\n%v", what, key, got, want, it)
				}
			}
		}
	}
	for i, b := range bases {
		judge(b, fmt.Sprintf("suite %d", i))
	}
	for i, b := range bases { // every mapping with an empty key added, its value one of the mapping's
		var at []place
		places(b, &at)
		for j := range at {
			if m, ok := at[j].value.(map[string]any); ok && len(m) > 0 {
				doc := deepCopy(b)
				var again []place
				places(doc, &again)
				m := again[j].value.(map[string]any)
				m[""] = deepCopy(m[slices.Sorted(mapKeys(m))[0]])
				judge(doc, fmt.Sprintf("suite %d, mapping %d with an empty key", i, j))
			}
		}
	}
	for i := range 10000 {
		base := bases[rng.IntN(len(bases))]
		doc := deepCopy(base)
		for range 1 + rng.IntN(3) {
			doc = mutate(rng, doc, base)
		}
		judge(doc, fmt.Sprintf("draw %d", i))
	}
	if valid < 500 || refused < 1000 {
		t.Fatalf("draws too one-sided: %d valid, %d refused", valid, refused)
	}
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = deepCopy(x)
		}
		return l
	}
	return v
}

// place is a value of a document and what replaces it there.
type place struct {
	value any
	set   func(any)
}

// places lists the values under v, each with its setter (nil dropping a
// key of a mapping half the time, else setting null).
func places(v any, out *[]place) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(mapKeys(v)) {
			*out = append(*out, place{v[k], func(x any) {
				if x == nil && len(v)%2 == 0 {
					delete(v, k)
					return
				}
				v[k] = x
			}})
			places(v[k], out)
		}
	case []any:
		for i := range v {
			*out = append(*out, place{v[i], func(x any) { v[i] = x }})
			places(v[i], out)
		}
	}
}

// mutate changes doc in one drawn place (see TestSchemaCheckAgrees) and
// returns it.
func mutate(rng *rand.Rand, doc, base any) any {
	var at, from []place
	places(doc, &at)
	places(deepCopy(base), &from)
	if len(at) == 0 || len(from) == 0 {
		return map[string]any{"tests": []any{}}
	}
	p := at[rng.IntN(len(at))]
	other := from[rng.IntN(len(from))].value
	// pick draws a place whose value is of v's type, else keeps p.
	pick := func(v any) place {
		var of []place
		for _, q := range at {
			if fmt.Sprintf("%T", q.value) == fmt.Sprintf("%T", v) {
				of = append(of, q)
			}
		}
		if len(of) == 0 {
			return p
		}
		return of[rng.IntN(len(of))]
	}
	switch rng.IntN(14) {
	case 0:
		p.set(nil) // dropped (a mapping's key, half the time) or null
	case 1:
		p.set("")
	case 2:
		p.set([]any{})
	case 3:
		p.set(map[string]any{})
	case 4:
		p.set([]float64{-1, 0.5, 1e21, 3, 100, 101, -0.0}[rng.IntN(7)])
	case 5:
		p.set(deepCopy(other))
	case 6:
		p.set([]any{deepCopy(p.value)}) // one level deeper
	case 7:
		p.set(map[string]any{"target": "x", "matcher": deepCopy(p.value)})
	case 8:
		if m, ok := pick(map[string]any{}).value.(map[string]any); ok && len(m) > 0 {
			k := slices.Sorted(mapKeys(m))[rng.IntN(len(m))]
			m[[]string{k + "s", "", k[:len(k)/2]}[rng.IntN(3)]] = m[k] // a key renamed, emptied or cut
			delete(m, k)
		}
	case 9:
		if p = pick([]any{}); true {
			l, _ := p.value.([]any)
			if len(l) == 0 {
				break
			}
			p.set(append(deepCopy(l).([]any), deepCopy(l[rng.IntN(len(l))]))) // an item repeated
		}
	case 10:
		p.set([]any{"agent", "scenario", "tool", true, "é", "x"}[rng.IntN(6)])
	case 11:
		if m, ok := p.value.(map[string]any); ok {
			m[[]string{"extra", "name", "type", "expect", "cassette", "runs", "k"}[rng.IntN(7)]] = deepCopy(other)
		}
	default:
		// A number at a bound the schema states: at it, just over, just
		// under.
		if p = pick(0.0); true {
			p.set([]float64{0, 1, 1.5, 95, 99.5, 100, 100.5, 101, 1000, 1001, 2}[rng.IntN(11)])
		}
	}
	return doc
}
