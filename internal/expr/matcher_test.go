package expr_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
)

// decode reads JSON text into the generic form the package works on.
func decode(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

type matchCase struct {
	matcher string // JSON
	actual  string // JSON; "" means the target has no value
	pass    bool
	msg     string
}

// matchCases exercise every matcher, passing and failing. FuzzMatcher is
// seeded from them.
func matchCases() []matchCase {
	long := strings.Repeat("x", 300)
	return []matchCase{
		// exact
		{`{"exact": 5}`, `5`, true, ""},
		{`{"exact": 5}`, `5.0`, true, ""},
		{`{"exact": 5}`, `3`, false, "got 3, expected exactly 5"},
		{`{"exact": "5"}`, `5`, false, `got 5, expected exactly "5"`},
		{`{"exact": {"a": [1, {"b": null}], "c": true}}`, `{"c": true, "a": [1, {"b": null}]}`, true, ""},
		{`{"exact": {"a": 1}}`, `{"a": 1, "b": 2}`, false, `got {"a":1,"b":2}, expected exactly {"a":1}`},
		{`{"exact": {"a": 1}}`, `{"b": 1}`, false, `got {"b":1}, expected exactly {"a":1}`},
		{`{"exact": {"b": null}}`, `{"a": null}`, false, `got {"a":null}, expected exactly {"b":null}`},
		{`{"exact": 5}`, `{}`, false, "got {}, expected exactly 5"},
		{`{"exact": []}`, `{}`, false, "got {}, expected exactly []"},
		{`{"exact": [1, 2]}`, `[2, 1]`, false, "got [2,1], expected exactly [1,2]"},
		{`{"exact": [1, 2]}`, `[1, 2, 3]`, false, "got [1,2,3], expected exactly [1,2]"},
		{`{"exact": null}`, `null`, true, ""},
		{`{"exact": null}`, `false`, false, "got false, expected exactly null"},
		{`{"exact": 0.5}`, `0.25`, false, "got 0.25, expected exactly 0.5"},
		{`{"exact": 1e21}`, `1`, false, "got 1, expected exactly 1e+21"},
		{`{"exact": 123456789012345680000}`, `0.000001`, false, "got 0.000001, expected exactly 123456789012345680000"},
		{`{"exact": 1e-7}`, `-1e300`, false, "got -1e+300, expected exactly 1e-7"},
		{`{"exact": "<a & b>"}`, `"x"`, false, `got "x", expected exactly "<a & b>"`},
		{`{"exact": "` + long + `"}`, `1`, false, `got 1, expected exactly "` + strings.Repeat("x", 199) + "…"},
		{`{"exact": 5}`, ``, false, "no value at this target"},
		// == and !=
		{`{"==": 5}`, `5`, true, ""},
		{`{"==": [1]}`, `[2]`, false, "got [2], expected exactly [1]"},
		{`{"!=": 5}`, `4`, true, ""},
		{`{"!=": 5}`, `"5"`, true, ""},
		{`{"!=": {"a": 1}}`, `{"a": 1.0}`, false, `got {"a":1}, expected anything but {"a":1}`},
		{`{"!=": null}`, ``, false, "no value at this target"},
		// comparisons
		{`{">=": 80}`, `80`, true, ""},
		{`{">=": 80}`, `50`, false, "50 is less than the minimum 80"},
		{`{">=": 0.75}`, `0.5`, false, "0.5 is less than the minimum 0.75"},
		{`{">": 80}`, `80.5`, true, ""},
		{`{">": 80}`, `80`, false, "80 is not greater than 80"},
		{`{"<=": 0}`, `0`, true, ""},
		{`{"<=": 0}`, `3`, false, "3 is greater than the maximum 0"},
		{`{"<": 5}`, `-1`, true, ""},
		{`{"<": 5}`, `5`, false, "5 is not less than 5"},
		{`{">=": 80}`, `"abc"`, false, `expected a number, got string "abc"`},
		{`{"<": 5}`, `null`, false, "expected a number, got null"},
		{`{"<": 5}`, `true`, false, "expected a number, got boolean true"},
		{`{">": 1}`, `[2]`, false, "expected a number, got list [2]"},
		{`{">": 1}`, `{"n": 2}`, false, `expected a number, got object {"n":2}`},
		{`{">=": 80}`, ``, false, "no value at this target"},
		// contains
		{`{"contains": "operational"}`, `"status: operational"`, true, ""},
		{`{"contains": "operational"}`, `"status: degraded"`, false, "substring `operational` not found in \"status: degraded\""},
		{`{"contains": ""}`, `""`, true, ""},
		{`{"contains": "x"}`, `["a", "x"]`, true, ""},
		{`{"contains": {"id": 1}}`, `[{"id": 2}, {"id": 1.0}]`, true, ""},
		{`{"contains": "x"}`, `["a", "b"]`, false, "no element equals `\"x\"`"},
		{`{"contains": "x"}`, `[]`, false, "no element equals `\"x\"`"},
		{`{"contains": 5}`, `"555"`, false, `expected a list to contain 5, got string "555"`},
		{`{"contains": "x"}`, `{"x": 1}`, false, `expected a string or a list, got object {"x":1}`},
		{`{"contains": "x"}`, ``, false, "no value at this target"},
		// regex
		{`{"regex": "^a.c$"}`, `"abc"`, true, ""},
		{`{"regex": "b"}`, `"abc"`, true, ""},
		{`{"regex": "^z"}`, `"abc"`, false, "\"abc\" does not match the pattern `^z`"},
		{`{"regex": "^z"}`, `5`, false, "expected a string, got number 5"},
		{`{"regex": "^z"}`, ``, false, "no value at this target"},
		// schema
		{`{"schema": {"type": "object", "required": ["id"]}}`, `{"id": 1}`, true, ""},
		{`{"schema": true}`, `null`, true, ""},
		{`{"schema": false}`, `null`, false, "not allowed"},
		{`{"schema": {"minimum": 80}}`, `50`, false, "50 is less than the minimum 80"},
		{`{"schema": {"minimum": 80}}`, `80`, true, ""},
		{`{"schema": {"maximum": 0.5}}`, `0.75`, false, "0.75 is greater than the maximum 0.5"},
		{`{"schema": {"exclusiveMinimum": 80}}`, `80`, false, "80 is not greater than 80"},
		{`{"schema": {"exclusiveMaximum": 5}}`, `5`, false, "5 is not less than 5"},
		{`{"schema": {"minimum": 1e21}}`, `5`, false, "5 is less than the minimum 1e+21"},
		{`{"schema": {"maximum": -1e308}}`, `5`, false, "5 is greater than the maximum -1e+308"},
		{`{"schema": {"properties": {"score": {"minimum": 0}}}}`, `{"score": -1}`, false, "at /score: -1 is less than the minimum 0"},
		{`{"schema": {"type": "string"}}`, `5`, false, "expected string, but got number"},
		{`{"schema": {"type": "object", "required": ["name"], "properties": {"age": {"minimum": 0}}}}`, `{"age": -1}`, false, "at /age: -1 is less than the minimum 0"},
		{`{"schema": {"type": "object", "required": ["name"]}}`, `{}`, false, "missing properties: 'name'"},
		{`{"schema": {"properties": {"x": {"properties": {"y z": {"items": {"type": "string"}}}}}}}`, `{"x": {"y z": ["a", 1]}}`, false, "at /x/y z/1: expected string, but got number"},
		{`{"schema": {"additionalProperties": false}}`, `{"d": 1, "b": 2, "a": 3, "c": 4}`, false, "additionalProperties 'a', 'b', 'c', 'd' not allowed"},
		{`{"schema": {"$defs": {"pos": {"exclusiveMinimum": 0}}, "items": {"$ref": "#/$defs/pos"}}}`, `[1, 0]`, false, "at /1: 0 is not greater than 0"},
		{`{"schema": {"$schema": "http://json-schema.org/draft-07/schema#", "minimum": 3}}`, `1`, false, "1 is less than the minimum 3"},
		{`{"schema": {"type": "number"}}`, ``, false, "no value at this target"},
		// not
		{`{"not": {"exact": true}}`, `false`, true, ""},
		{`{"not": {"exact": true}}`, `true`, false, "matched `{\"exact\":true}`, which it must not"},
		{`{"not": {">=": 80}}`, `90`, false, "matched `{\">=\":80}`, which it must not"},
		{`{"not": {"regex": "^z"}}`, `5`, true, ""},
		{`{"not": {"exact": true}}`, ``, true, ""},
		{`{"not": {"not": {"exact": 1}}}`, `1`, true, ""},
		{`{"not": {"not": {"exact": 1}}}`, `2`, false, "matched `{\"not\":{\"exact\":1}}`, which it must not"},
		{`{"not": {"not": {"exact": 1}}}`, ``, false, "matched `{\"not\":{\"exact\":1}}`, which it must not"},
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range matchCases() {
		name := tc.matcher + " " + tc.actual
		if tc.actual == "" {
			name = tc.matcher + " absent"
		}
		t.Run(name, func(t *testing.T) {
			m, err := expr.ParseMatcher(decode(t, tc.matcher))
			if err != nil {
				t.Fatalf("ParseMatcher: %v", err)
			}
			var actual any
			present := tc.actual != ""
			if present {
				actual = decode(t, tc.actual)
			}
			pass, msg := m.Match(actual, present)
			if pass != tc.pass || msg != tc.msg {
				t.Errorf("Match = %v, %q\n          want %v, %q", pass, msg, tc.pass, tc.msg)
			}
		})
	}
}

// TestMatchGoValues covers values a YAML decoder or Go code may give that
// JSON cannot: integers of Go types and non-finite numbers.
func TestMatchGoValues(t *testing.T) {
	tests := []struct {
		matcher any
		actual  any
		pass    bool
		msg     string
	}{
		{map[string]any{"exact": 5.0}, 5, true, ""},
		{map[string]any{"exact": []any{int64(1)}}, []any{1.0}, true, ""},
		{map[string]any{">=": 80}, int32(80), true, ""},
		{map[string]any{">=": 80.0}, math.NaN(), false, "NaN cannot be compared with 80"},
		{map[string]any{"<": 5.0}, math.Inf(1), false, "+Inf is not less than 5"},
		{map[string]any{"exact": math.NaN()}, math.NaN(), false, "got NaN, expected exactly NaN"},
		{map[string]any{"schema": map[string]any{"type": "number"}}, math.Inf(-1), false, "the value holds the number -Inf, which a JSON Schema cannot check"},
		{map[string]any{"schema": map[string]any{"type": "number"}}, 3, true, ""},
		{map[string]any{"schema": map[string]any{"minimum": 80.0}}, int64(50), false, "50 is less than the minimum 80"},
		{map[string]any{"schema": map[string]any{"type": "object"}}, struct{}{}, false, "the schema could not be applied: invalid jsonType: struct {}"},
	}
	for _, tc := range tests {
		m, err := expr.ParseMatcher(tc.matcher)
		if err != nil {
			t.Fatalf("ParseMatcher(%v): %v", tc.matcher, err)
		}
		pass, msg := m.Match(tc.actual, true)
		if pass != tc.pass || msg != tc.msg {
			t.Errorf("%v.Match(%v) = %v, %q\n          want %v, %q", tc.matcher, tc.actual, pass, msg, tc.pass, tc.msg)
		}
	}
}

type parseErrorCase struct {
	matcher string // JSON
	pointer string
	msg     string
	hint    string
}

const allKeys = `"!=", "<", "<=", "==", ">", ">=", "contains", "exact", "not", "regex", "schema"`

// parseErrorCases are matchers that do not parse. FuzzMatcher is seeded
// from them.
func parseErrorCases() []parseErrorCase {
	return []parseErrorCase{
		{`{"exakt": 5}`, "/exakt", `unknown matcher "exakt": expected one of ` + allKeys, "did you mean `exact`?"},
		{`{"contain": "x"}`, "/contain", `unknown matcher "contain": expected one of ` + allKeys, "did you mean `contains`?"},
		{`{"=>": 5}`, "/=>", `unknown matcher "=>": expected one of ` + allKeys, "did you mean `>=`?"},
		{`{"gte": 5}`, "/gte", `unknown matcher "gte": expected one of ` + allKeys, "did you mean `>=`?"},
		{`{"pattern": "x"}`, "/pattern", `unknown matcher "pattern": expected one of ` + allKeys, "did you mean `regex`?"},
		{`{"a/b~": 5}`, "/a~1b~0", `unknown matcher "a/b~": expected one of ` + allKeys, ""},
		{`{"name": "x"}`, "/name", `unknown matcher "name": expected one of ` + allKeys, ""},
		{`{}`, "", "empty matcher: expected one key, one of " + allKeys, ""},
		{`{"exact": 5, "regex": "x"}`, "", `a matcher has exactly one key, found 2: "exact", "regex"`, "write each check as an assertion of its own"},
		{`5`, "", `a matcher is a mapping with one key, such as {exact: 5} or {">=": 80}; got number 5`, ""},
		{`"exact"`, "", `a matcher is a mapping with one key, such as {exact: 5} or {">=": 80}; got string "exact"`, ""},
		{`null`, "", `a matcher is a mapping with one key, such as {exact: 5} or {">=": 80}; got null`, ""},
		{`[{"exact": 1}]`, "", `a matcher is a mapping with one key, such as {exact: 5} or {">=": 80}; got list [{"exact":1}]`, ""},
		{`{">=": "80"}`, "/>=", `">=" compares numbers, got string "80"`, "write 80 without quotes"},
		{`{"<": "five"}`, "/<", `"<" compares numbers, got string "five"`, ""},
		{`{">": null}`, "/>", `">" compares numbers, got null`, ""},
		{`{"<=": [1]}`, "/<=", `"<=" compares numbers, got list [1]`, ""},
		{`{"regex": 5}`, "/regex", "regex needs a string pattern, got number 5", ""},
		{`{"regex": "("}`, "/regex", "regex does not compile (Go RE2 syntax): missing closing ): `(`", ""},
		{`{"regex": "a(?=b)"}`, "/regex", "regex does not compile (Go RE2 syntax): invalid or unsupported Perl syntax: `(?=`", "RE2 has no lookahead, lookbehind or backreferences"},
		{`{"schema": "object"}`, "/schema", `schema needs a JSON Schema object (or true or false), got string "object"`, ""},
		{`{"schema": {"minimum": "x"}}`, "/schema/minimum", "invalid JSON Schema: expected number, but got string", ""},
		{`{"schema": {"type": "strin"}}`, "/schema/type", `invalid JSON Schema: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"`, ""},
		{`{"schema": {"properties": {"a": {"required": "a"}}}}`, "/schema/properties/a/required", "invalid JSON Schema: expected array, but got string", ""},
		{`{"schema": {"pattern": "("}}`, "/schema/pattern", "invalid JSON Schema: '(' is not valid 'regex'", ""},
		{`{"schema": {"$ref": "#/$defs/nope"}}`, "/schema", "invalid JSON Schema: #/$defs/nope not found", ""},
		{`{"schema": {"$ref": "https://example.com/s.json"}}`, "/schema", "invalid JSON Schema: it refers to https://example.com/s.json, which is not loaded: a matcher's schema must be self-contained", `put shared definitions under $defs and refer to them as "#/$defs/name"`},
		{`{"schema": {"$ref": "file:///etc/passwd"}}`, "/schema", "invalid JSON Schema: it refers to file:///etc/passwd, which is not loaded: a matcher's schema must be self-contained", `put shared definitions under $defs and refer to them as "#/$defs/name"`},
		{`{"not": 5}`, "/not", `a matcher is a mapping with one key, such as {exact: 5} or {">=": 80}; got number 5`, "to forbid a value, write not: {exact: 5}"},
		{`{"not": {"regex": "("}}`, "/not/regex", "regex does not compile (Go RE2 syntax): missing closing ): `(`", ""},
		{`{"not": {"not": {"exakt": 1}}}`, "/not/not/exakt", `unknown matcher "exakt": expected one of ` + allKeys, "did you mean `exact`?"},
		{`{"not": {}}`, "/not", "empty matcher: expected one key, one of " + allKeys, ""},
	}
}

func TestParseMatcherErrors(t *testing.T) {
	for _, tc := range parseErrorCases() {
		t.Run(tc.matcher, func(t *testing.T) {
			m, err := expr.ParseMatcher(decode(t, tc.matcher))
			var me *expr.MatcherError
			if !errors.As(err, &me) {
				t.Fatalf("ParseMatcher = %v, %v; want a *MatcherError", m, err)
			}
			if m != nil {
				t.Errorf("ParseMatcher returned a matcher with its error")
			}
			if me.Pointer != tc.pointer || me.Msg != tc.msg || me.Hint != tc.hint {
				t.Errorf("ParseMatcher error = %#v\nwant Pointer %q, Msg %q, Hint %q", me, tc.pointer, tc.msg, tc.hint)
			}
		})
	}
}

func TestParseMatcherNonFiniteBound(t *testing.T) {
	_, err := expr.ParseMatcher(map[string]any{">=": math.NaN()})
	if err == nil || err.Error() != `at />=: ">=" needs a finite number, got NaN` {
		t.Errorf("NaN bound: %v", err)
	}
	_, err = expr.ParseMatcher(map[string]any{"schema": map[string]any{"maximum": math.Inf(1)}})
	if err == nil || err.Error() != "at /schema: schema holds the number +Inf, which JSON cannot hold" {
		t.Errorf("Inf in schema: %v", err)
	}
}

func TestMatcherErrorString(t *testing.T) {
	tests := []struct {
		err  expr.MatcherError
		want string
	}{
		{expr.MatcherError{Msg: "empty matcher"}, "empty matcher"},
		{expr.MatcherError{Pointer: "/exakt", Msg: `unknown matcher "exakt"`, Hint: "did you mean `exact`?"}, "at /exakt: unknown matcher \"exakt\" (did you mean `exact`?)"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestParseShorthand(t *testing.T) {
	tests := []struct {
		in     string
		actual string
		pass   bool
		msg    string
	}{
		{`{">=": 80}`, `50`, false, "50 is less than the minimum 80"},
		{`{"regex": "^ok"}`, `"ok!"`, true, ""},
		{`80`, `80`, true, ""},
		{`80`, `79`, false, "got 79, expected exactly 80"},
		{`"done"`, `"done"`, true, ""},
		{`[1, 2]`, `[1, 2]`, true, ""},
		{`null`, `null`, true, ""},
		{`true`, `false`, false, "got false, expected exactly true"},
	}
	for _, tc := range tests {
		m, err := expr.ParseShorthand(decode(t, tc.in))
		if err != nil {
			t.Fatalf("ParseShorthand(%s): %v", tc.in, err)
		}
		pass, msg := m.Match(decode(t, tc.actual), true)
		if pass != tc.pass || msg != tc.msg {
			t.Errorf("ParseShorthand(%s).Match(%s) = %v, %q, want %v, %q", tc.in, tc.actual, pass, msg, tc.pass, tc.msg)
		}
	}

	_, err := expr.ParseShorthand(decode(t, `{"id": 1}`))
	var me *expr.MatcherError
	if !errors.As(err, &me) || me.Pointer != "/id" || me.Hint != "to expect this object as it is, write it under exact:" {
		t.Errorf("ParseShorthand of an object: %#v", err)
	}
	_, err = expr.ParseShorthand(decode(t, `{">": "1"}`))
	if !errors.As(err, &me) || me.Pointer != "/>" || me.Hint != "write 1 without quotes" {
		t.Errorf(`ParseShorthand({">": "1"}): %#v`, err)
	}
}

func TestValue(t *testing.T) {
	tests := []struct {
		parse func(any) (*expr.Matcher, error)
		in    string
	}{
		{expr.ParseMatcher, `{">=": 80}`},
		{expr.ParseMatcher, `{"not": {"schema": {"type": "string", "enum": ["a", "b"]}}}`},
		{expr.ParseMatcher, `{"exact": {"b": [1, "<x>"], "a": null}}`},
		{expr.ParseShorthand, `80`},
		{expr.ParseShorthand, `["a", "b"]`},
		{expr.ParseShorthand, `{"contains": "x"}`},
		{expr.ParseShorthand, `{"<": -0.5}`},
		{expr.ParseMatcher, `{"not": {">": 2.5}}`},
	}
	for _, tc := range tests {
		in := decode(t, tc.in)
		m, err := tc.parse(in)
		if err != nil {
			t.Fatalf("parse %s: %v", tc.in, err)
		}
		again, err := expr.ParseShorthand(m.Value())
		if err != nil {
			t.Fatalf("parse of Value() of %s: %v", tc.in, err)
		}
		if again.String() != m.String() {
			t.Errorf("Value() of %s re-parses to %s", m, again)
		}
		want, _ := json.Marshal(in)
		got, _ := json.Marshal(m.Value())
		if string(got) != string(want) || !reflect.DeepEqual(m.Value(), in) {
			t.Errorf("Value() = %s, want %s", got, want)
		}
	}

	// A comparison keeps no copy of a float64 operand, and any other
	// operand as it was given.
	for _, in := range []map[string]any{{">=": 3}, {"<=": 2.5}, {">": int64(-1)}} {
		m, _ := expr.ParseMatcher(in)
		if got := m.Value(); !reflect.DeepEqual(got, in) {
			t.Errorf("Value() = %#v, want %#v", got, in)
		}
	}

	// The matcher keeps its own copy of what it was given, and hands out
	// copies.
	in := map[string]any{"exact": []any{1.0}}
	m, _ := expr.ParseMatcher(in)
	in["exact"].([]any)[0] = 2.0
	m.Value().(map[string]any)["exact"].([]any)[0] = 3.0
	if pass, msg := m.Match([]any{1.0}, true); !pass {
		t.Errorf("a change to the input or to Value() changed the matcher: %s", msg)
	}
	if got := m.String(); got != `{"exact":[1]}` {
		t.Errorf("String() = %s", got)
	}
}

// TestSchemaMessageIsStable checks that a failure the validator reports in
// map order is worded the same on every run.
func TestSchemaMessageIsStable(t *testing.T) {
	m, err := expr.ParseMatcher(decode(t, `{"schema": {"properties": {
		"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"},
		"d": {"type": "string"}, "e": {"type": "string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	actual := decode(t, `{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}`)
	for range 50 {
		if _, msg := m.Match(actual, true); msg != "at /a: expected string, but got number" {
			t.Fatalf("message = %q", msg)
		}
	}
}

// TestHoldsIsMatchDrawn draws matchers (every operator, under not: to
// three deep, over drawn operands) and values (numbers with NaN and the
// infinities, strings, lists, objects, absent) and holds Holds to the
// verdict of Match, and the comparisons, equality and regex to no
// allocation when they hold and when they do not.
func TestHoldsIsMatchDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 9))
	values := []any{nil, true, false, 0.0, 1.0, 40.0, 40.5, -3.0, math.NaN(), math.Inf(-1), math.Inf(1),
		"", "40", "abc", "the weather in Paris", []any{}, []any{40.0, "abc"}, map[string]any{"q": 1.0}}
	draw := func() any { return values[rng.IntN(len(values))] }
	ops := []string{"exact", "==", "!=", ">=", ">", "<=", "<", "contains", "regex", "schema"}
	operand := func(op string) any {
		switch op {
		case ">=", ">", "<=", "<":
			return []any{0.0, 40.0, -3.0, 1e300}[rng.IntN(4)]
		case "regex":
			return []string{"^a", "Paris$", "[0-9]+", ""}[rng.IntN(4)]
		case "schema":
			return []any{map[string]any{"type": "number"}, map[string]any{"type": "string", "minLength": 3.0}, map[string]any{"type": "object"}}[rng.IntN(3)]
		case "contains":
			return []any{"a", "Paris", 40.0, "x"}[rng.IntN(4)]
		}
		return draw()
	}
	for i := range 5000 {
		op := ops[rng.IntN(len(ops))]
		var spec any = map[string]any{op: operand(op)}
		for range rng.IntN(4) {
			spec = map[string]any{"not": spec}
		}
		m, err := expr.ParseMatcher(spec)
		if err != nil {
			continue // an operand the operator refuses (NaN to exact, say)
		}
		a, present := draw(), rng.IntN(8) > 0
		pass, _ := m.Match(a, present)
		if got := m.Holds(a, present); got != pass {
			t.Fatalf("draw %d: %v on %v (present %v): Holds %v, Match %v", i, spec, a, present, got, pass)
		}
		if op == "contains" || op == "schema" {
			continue
		}
		if n := testing.AllocsPerRun(10, func() { m.Holds(a, present) }); n != 0 {
			t.Fatalf("draw %d: %v on %v: Holds allocated %v times", i, spec, a, n)
		}
	}
}

// TestMatcherStringAsWritten: a matcher renders as it was written, null
// and a number to exact among them, whether its operand is kept as
// written or left to its comparison.
func TestMatcherStringAsWritten(t *testing.T) {
	for _, tc := range []struct {
		parse func(any) (*expr.Matcher, error)
		in    any
		want  string
	}{
		{expr.ParseShorthand, nil, `null`},
		{expr.ParseShorthand, 5.0, `5`},
		{expr.ParseMatcher, map[string]any{"exact": 5.0}, `{"exact":5}`},
		{expr.ParseMatcher, map[string]any{"exact": nil}, `{"exact":null}`},
		{expr.ParseMatcher, map[string]any{">=": 80.0}, `{">=":80}`},
		{expr.ParseMatcher, map[string]any{"not": map[string]any{"<": 3.0}}, `{"not":{"<":3}}`},
	} {
		m, err := tc.parse(tc.in)
		if err != nil {
			t.Fatalf("%v: %v", tc.in, err)
		}
		if got := m.String(); got != tc.want {
			t.Errorf("%v: String %s, want %s", tc.in, got, tc.want)
		}
		if got := expr.Render(m.Value()); got != tc.want {
			t.Errorf("%v: Value renders %s, want %s", tc.in, got, tc.want)
		}
	}
}
