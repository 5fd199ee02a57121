package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// genValue makes a JSON value from r: numbers in many spellings of the same
// few values (1, 1.0, 10e-1, -0, 2.50), strings, booleans, null, and
// small arrays and objects of them.
func genValue(r *rand.Rand, depth int) any {
	numbers := []string{"1", "1.0", "10e-1", "0.1e1", "-0", "0", "0.0", "2.5", "2.50", "25e-1", "-1", "-1.00", "1e2", "100", "100.000", "3"}
	switch k := r.IntN(8); {
	case k < 3:
		return json.Number(numbers[r.IntN(len(numbers))])
	case k == 3:
		return []string{"a", "b", "1", ""}[r.IntN(4)]
	case k == 4:
		return r.IntN(2) == 0
	case k == 5:
		return nil
	case k == 6 && depth > 0:
		out := make([]any, r.IntN(3))
		for i := range out {
			out[i] = genValue(r, depth-1)
		}
		return out
	case depth > 0:
		out := map[string]any{}
		for range r.IntN(3) {
			out[[]string{"a", "b", "c"}[r.IntN(3)]] = genValue(r, depth-1)
		}
		return out
	}
	return json.Number("1")
}

// plainCompile compiles schema with the validator alone, unbounded.
func plainCompile(t *testing.T, schema any) *jsonschema.Schema {
	t.Helper()
	data, _ := json.Marshal(schema)
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("mem://plain.json", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem://plain.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBoundedSchemaEnumAgrees: over generated enums and consts, and values
// in every spelling of their numbers (json.Number and float64, as a
// recording decodes them), the set lookup gives the validator's own
// verdict.
func TestBoundedSchemaEnumAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 1))
	for i := range 400 {
		enum := make([]any, 1+r.IntN(6))
		for j := range enum {
			enum[j] = genValue(r, 2)
		}
		schema := map[string]any{"enum": enum}
		if i%2 == 1 {
			schema = map[string]any{"const": enum[0]}
		}
		bounded, err := CompileBounded(schema, "mem://bounded.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		plain := plainCompile(t, schema)
		for range 20 {
			v := genValue(r, 2)
			if n, ok := v.(json.Number); ok && r.IntN(2) == 0 {
				f, _ := n.Float64()
				v = f
			}
			want, got := plain.Validate(v) == nil, bounded.Validate(v) == nil
			if want != got {
				sj, _ := json.Marshal(schema)
				t.Fatalf("schema %s, value %#v: the validator says valid=%v, the bounded check %v", sj, v, want, got)
			}
		}
	}
}

// TestBoundedSchemaLimits: each limit, hit by a generated instance, is a
// LimitError with its figure, at compile time or at the check.
func TestBoundedSchemaLimits(t *testing.T) {
	compileLimit := func(name string, schema any, want string) {
		t.Helper()
		_, err := CompileBounded(schema, "mem://x.json", nil)
		if !IsLimit(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a limit saying %q", name, err, want)
		}
	}
	compileLimit("pattern", map[string]any{"pattern": strings.Repeat(`[\s\S]{1000}`, 20)}, "over the 1000")
	compileLimit("patternProperties", map[string]any{"patternProperties": map[string]any{strings.Repeat(`a{100}`, 11): true}}, "over the 1000")
	var deep any = true
	for range MaxSchemaDepth + 1 {
		deep = map[string]any{"not": deep}
	}
	compileLimit("depth", deep, "deeper than 64")
	compileLimit("size", map[string]any{"description": strings.Repeat("x", MaxSchemaBytes)}, "over the 1048576")

	checkLimit := func(name string, schema, v any, want string) {
		t.Helper()
		s, err := CompileBounded(schema, "mem://x.json", nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Validate(v); !IsLimit(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a limit saying %q", name, err, want)
		}
	}
	for depth := 16; depth <= 40; depth += 8 {
		defs := map[string]any{}
		for i := range depth {
			next := map[string]any{"$ref": fmt.Sprintf("#/$defs/a%d", i+1)}
			defs[fmt.Sprintf("a%d", i)] = map[string]any{"anyOf": []any{next, next}}
		}
		defs[fmt.Sprintf("a%d", depth)] = map[string]any{"type": "string"}
		checkLimit(fmt.Sprintf("refs fanning out %d levels", depth), map[string]any{"$defs": defs, "$ref": "#/$defs/a0"}, 1.0, "steps")
	}
	checkLimit("long string", map[string]any{"pattern": "^a+$"}, strings.Repeat("a", MaxPatternInput+1), "over the 16384")
	big := make([]any, MaxInstanceValues)
	checkLimit("values", map[string]any{"type": "array"}, big, "over the 65536")

	// Under the limits the checks are the validator's.
	s, err := CompileBounded(map[string]any{"pattern": "^a+$", "enum": []any{"aa", "b"}}, "mem://x.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Validate("aa") != nil || s.Validate("b") == nil || s.Validate("c") == nil {
		t.Errorf("the bounded check of pattern and enum differs from the validator's")
	}
}
