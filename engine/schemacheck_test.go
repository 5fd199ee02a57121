package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine/schema"
	"github.com/mcptest/mcptest/internal/yamlpos"
	"github.com/santhosh-tekuri/jsonschema/v5"
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

// TestSchemaCheckDrawnSchemas holds schemaCheck to the validator beyond
// the suite schema: 3,000 schemas drawn from the keywords it knows (each
// bound at and around its edges, nested under properties, items, anyOf,
// if/then/else and a $ref to a definition), each compiled by both, and
// 60 values drawn for each (objects, lists, numbers, strings, booleans,
// null, nested): the two judge every value the same. Schemas written in
// forms it does not know (an unknown keyword, a type that is no type, an
// empty anyOf, a reference outside $defs, a bound that is no count) it
// refuses to compile, so the validator judges them.
func TestSchemaCheckDrawnSchemas(t *testing.T) {
	for _, text := range []string{
		`{"type":[]}`, `{"type":5}`, `{"type":"int"}`, `{"anyOf":[]}`, `{"anyOf":{}}`, `{"$ref":"#/$defs/a/b"}`,
		`{"$ref":"#/defs/a"}`, `{"$ref":"#/$defs/none","$defs":{}}`, `{"minItems":-1}`, `{"minItems":1.5}`,
		`{"minItems":3e9}`, `{"minLength":"3"}`, `{"properties":[]}`, `{"required":[1]}`, `{"pattern":"a"}`,
		`{"items":{"format":"x"}}`, `{"maximum":"1"}`, `{"enum":1}`, `{"uniqueItems":1}`, `{"additionalProperties":1}`,
		`{"$ref":"#/$defs/a~0","$defs":{"a~0":{}}}`, `{"maxProperties":-1}`, `{"minProperties":0.5}`, `7`,
		`{"items":{"$id":"other.json","$ref":"#/$defs/a"},"$defs":{"a":{}}}`, `{"properties":{"a":{"$schema":"x"}}}`,
	} {
		var doc any
		if err := json.Unmarshal([]byte(text), &doc); err != nil {
			t.Fatal(err)
		}
		root, _ := doc.(map[string]any)
		c := checkCompiler{root: root, defs: map[string]*checkNode{}}
		if _, ok := c.compile(doc); ok {
			t.Errorf("%s compiled", text)
		}
	}
	for _, bound := range []float64{0, 1, math.MaxInt32} { // counts it takes, to the largest
		c := checkCompiler{root: map[string]any{}, defs: map[string]*checkNode{}}
		if n, ok := c.compile(map[string]any{"minItems": bound}); !ok || n.minItems != int(bound) {
			t.Errorf("minItems %v: compiled %v", bound, ok)
		}
	}
	rng := rand.New(rand.NewPCG(40, 12))
	agreed, valid := 0, 0
	for i := range 3000 {
		schemaDoc := map[string]any{"$defs": map[string]any{"d": drawSchema(rng, 2)}}
		root, _ := drawSchema(rng, 0).(map[string]any) // a boolean root drawn: the definition alone
		for k, v := range root {
			schemaDoc[k] = v
		}
		data, _ := json.Marshal(schemaDoc)
		vc := jsonschema.NewCompiler()
		vc.Draft = jsonschema.Draft2020
		if err := vc.AddResource("s.json", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		vs, err := vc.Compile("s.json")
		if err != nil {
			t.Fatalf("schema %d %s: %v", i, data, err)
		}
		var doc map[string]any
		json.Unmarshal(data, &doc)
		c := checkCompiler{root: doc, defs: map[string]*checkNode{}}
		n, ok := c.compile(doc)
		if !ok {
			t.Fatalf("schema %d did not compile: %s", i, data)
		}
		for j := range 60 {
			v := drawValue(rng, 0)
			want := vs.Validate(v) == nil
			if got := n.check(v); got != want {
				vd, _ := json.Marshal(v)
				t.Fatalf("schema %d %s, value %d %s: schemaCheck says valid %v, the validator %v", i, data, j, vd, got, want)
			}
			agreed++
			if want {
				valid++
			}
		}
	}
	if valid < agreed/10 || valid > agreed*9/10 {
		t.Fatalf("draws too one-sided: %d of %d valid", valid, agreed)
	}
}

// drawSchema draws a schema of the keywords schemaCheck knows.
//
// complexity: a table, one case a keyword drawn.
func drawSchema(rng *rand.Rand, depth int) any {
	if depth > 2 || rng.IntN(8) == 0 {
		return []any{true, false, map[string]any{}}[rng.IntN(3)]
	}
	s := map[string]any{}
	bound := func() float64 { return []float64{-1, 0, 0.5, 1, 1.5, 2}[rng.IntN(6)] }
	counts := func() float64 { return float64(rng.IntN(3)) }
	for range 1 + rng.IntN(3) {
		switch rng.IntN(20) {
		case 0:
			s["type"] = []string{"object", "array", "string", "number", "integer", "boolean", "null"}[rng.IntN(7)]
		case 1:
			s["type"] = []any{"integer", "string"}
		case 2:
			s["properties"] = map[string]any{"a": drawSchema(rng, depth+1), "b": drawSchema(rng, depth+1)}
		case 3:
			s["additionalProperties"] = drawSchema(rng, depth+1)
		case 4:
			s["required"] = []any{"a", "b"}[:1+rng.IntN(2)]
		case 5:
			s["propertyNames"] = map[string]any{"minLength": counts()}
		case 6:
			s["minProperties"], s["maxProperties"] = counts(), counts()
		case 7:
			s["items"] = drawSchema(rng, depth+1)
		case 8:
			s["minItems"] = counts()
		case 9:
			s["uniqueItems"] = rng.IntN(2) == 0
		case 10:
			s["minLength"] = counts()
		case 11:
			s["minimum"] = bound()
		case 12:
			s["maximum"] = bound()
		case 13:
			s["exclusiveMaximum"] = bound()
		case 14:
			s["enum"] = []any{drawValue(rng, 2), drawValue(rng, 2), 1.0}
		case 15:
			s["const"] = drawValue(rng, 1)
		case 16:
			s["anyOf"] = []any{drawSchema(rng, depth+1), drawSchema(rng, depth+1)}
		case 17:
			s["if"], s["then"] = drawSchema(rng, depth+1), drawSchema(rng, depth+1)
			if rng.IntN(2) == 0 {
				s["else"] = drawSchema(rng, depth+1)
			}
		case 18:
			s["$ref"] = "#/$defs/d"
		case 19:
			s["title"], s["description"] = "t", "d"
		}
	}
	if depth > 0 {
		delete(s, "$ref") // references from the root only: no definition refers to itself
	}
	return s
}

// drawValue draws a JSON value as a suite's document holds it.
func drawValue(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(10); {
	case depth < 2 && k < 2:
		m := map[string]any{}
		for _, key := range []string{"a", "b", "", "c"}[:rng.IntN(5)%4+rng.IntN(2)] {
			m[key] = drawValue(rng, depth+1)
		}
		return m
	case depth < 2 && k < 4:
		l := make([]any, rng.IntN(4))
		for i := range l {
			l[i] = drawValue(rng, depth+1)
		}
		if len(l) > 1 && rng.IntN(3) == 0 {
			l[1] = l[0]
		}
		return l
	case k < 6:
		return []float64{-1, 0, 0.5, 1, 1.5, 2, 1e21}[rng.IntN(7)]
	case k < 8:
		return []string{"", "x", "é", "ab"}[rng.IntN(4)]
	case k < 9:
		return rng.IntN(2) == 0
	}
	return nil
}
