package expr

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"testing"
)

func compileOK(t *testing.T, schema any) *Schema {
	t.Helper()
	s, err := CompileBounded(schema, "edge.json", nil)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return s
}

// TestBoundedCompileEdges: a schema of exactly MaxSchemaBytes compiles, one
// byte more does not; objects nested MaxSchemaDepth+1 deep compile, one
// more does not, and arrays nested count as objects do.
func TestBoundedCompileEdges(t *testing.T) {
	pad := func(n int) map[string]any {
		return map[string]any{"description": strings.Repeat("x", n-len(`{"description":""}`))}
	}
	if _, err := CompileBounded(pad(MaxSchemaBytes), "a.json", nil); err != nil {
		t.Errorf("a schema of exactly %d bytes: %v", MaxSchemaBytes, err)
	}
	if _, err := CompileBounded(pad(MaxSchemaBytes+1), "b.json", nil); !IsLimit(err) {
		t.Errorf("a schema of %d bytes: %v, want a limit", MaxSchemaBytes+1, err)
	}
	nest := func(levels int) any {
		var s any = map[string]any{}
		for range levels - 1 {
			s = map[string]any{"not": s}
		}
		return s
	}
	if _, err := CompileBounded(nest(MaxSchemaDepth+1), "c.json", nil); err != nil {
		t.Errorf("%d nested objects: %v", MaxSchemaDepth+1, err)
	}
	if _, err := CompileBounded(nest(MaxSchemaDepth+2), "d.json", nil); !IsLimit(err) {
		t.Errorf("%d nested objects: %v, want a limit", MaxSchemaDepth+2, err)
	}
	var arrays any = []any{}
	for range MaxSchemaDepth + 1 {
		arrays = []any{arrays}
	}
	if _, err := CompileBounded(map[string]any{"default": arrays}, "e.json", nil); !IsLimit(err) {
		t.Errorf("arrays nested %d deep: %v, want a limit", MaxSchemaDepth+1, err)
	}
}

// TestBoundedPatternEdges: a pattern of exactly MaxPatternInsts
// instructions compiles, one of more does not; a value's string of exactly
// MaxPatternInput bytes is checked against a schema with a pattern, a
// longer one is not; format: regex counts as a pattern, another format
// does not.
func TestBoundedPatternEdges(t *testing.T) {
	insts := func(re string) int {
		p, err := syntax.Parse(re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := syntax.Compile(p.Simplify())
		if err != nil {
			t.Fatal(err)
		}
		return len(prog.Inst)
	}
	at, over := "", ""
	for n := 1; n < 2000 && (at == "" || over == ""); n++ {
		for _, re := range []string{fmt.Sprintf("a{%d}", n), fmt.Sprintf("a{%d}b", n)} {
			switch insts(re) {
			case MaxPatternInsts:
				at = re
			case MaxPatternInsts + 1:
				over = re
			}
		}
	}
	if at == "" || over == "" {
		t.Fatalf("no pattern of %d or %d instructions", MaxPatternInsts, MaxPatternInsts+1)
	}
	if _, err := CompileBounded(map[string]any{"pattern": at}, "p.json", nil); err != nil {
		t.Errorf("%s, %d instructions: %v", at, MaxPatternInsts, err)
	}
	if _, err := CompileBounded(map[string]any{"pattern": over}, "q.json", nil); !IsLimit(err) {
		t.Errorf("%s, %d instructions: %v, want a limit", over, MaxPatternInsts+1, err)
	}
	pattern := compileOK(t, map[string]any{"pattern": "^x*$"})
	if err := pattern.Validate(strings.Repeat("x", MaxPatternInput)); err != nil {
		t.Errorf("a string of exactly %d bytes: %v", MaxPatternInput, err)
	}
	long := strings.Repeat("x", MaxPatternInput+1)
	if err := pattern.Validate(long); !IsLimit(err) {
		t.Errorf("a string of %d bytes: %v, want a limit", MaxPatternInput+1, err)
	}
	if err := compileOK(t, map[string]any{"format": "regex"}).Validate(long); !IsLimit(err) {
		t.Errorf("format: regex: a string of %d bytes: %v, want a limit", MaxPatternInput+1, err)
	}
	if err := compileOK(t, map[string]any{"format": "email", "type": "string"}).Validate(long); IsLimit(err) {
		t.Errorf("format: email (no pattern): a long string is not checked: %v", err)
	}
}

// TestBoundedValueEdges: a value of exactly MaxInstanceValues values is
// checked, one more is not; the steps a check may take are the base plus
// eight per value, as its message says: a schema applying ten subschemas to
// each of 1,000 items fits, fifty do not.
func TestBoundedValueEdges(t *testing.T) {
	items := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = float64(i)
		}
		return out
	}
	s := compileOK(t, map[string]any{"type": "array"})
	if err := s.Validate(items(MaxInstanceValues - 1)); err != nil {
		t.Errorf("%d values: %v", MaxInstanceValues, err)
	}
	if err := s.Validate(items(MaxInstanceValues)); !IsLimit(err) {
		t.Errorf("%d values: %v, want a limit", MaxInstanceValues+1, err)
	}
	allOf := func(k int) map[string]any {
		var subs []any
		for range k {
			subs = append(subs, map[string]any{"items": map[string]any{"type": "number"}})
		}
		return map[string]any{"allOf": subs}
	}
	v := items(1000)
	if err := compileOK(t, allOf(10)).Validate(v); err != nil {
		t.Errorf("ten subschemas over 1,000 items: %v", err)
	}
	err := compileOK(t, allOf(50)).Validate(v)
	want := fmt.Sprintf("checking it took more than %d steps (%d + %d for each of its 1001 JSON values)", SchemaStepsBase+SchemaStepsPerValue*1001, SchemaStepsBase, SchemaStepsPerValue)
	if !IsLimit(err) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("fifty subschemas over 1,000 items: %v, want %q", err, want)
	}
}

// TestBoundedMessages: a failed enum of one value names it, of several
// lists them, of more than twenty lists twenty and the count; clipText
// leaves a string of its bound as it is and cuts a longer one to the bound.
func TestBoundedMessages(t *testing.T) {
	for _, tc := range []struct {
		values []any
		want   string
	}{
		{[]any{1.0}, "value must be 1"},
		{[]any{1.0, 2.0}, "value must be one of 1, 2"},
	} {
		if got := enumMessage(tc.values); got != tc.want {
			t.Errorf("enumMessage(%v) = %q, want %q", tc.values, got, tc.want)
		}
	}
	twenty := make([]any, 20)
	for i := range twenty {
		twenty[i] = float64(i)
	}
	if got := enumMessage(twenty); strings.Contains(got, "values)") {
		t.Errorf("twenty values: %q", got)
	}
	if got := enumMessage(append(twenty, 20.0)); !strings.HasSuffix(got, "19, ... (21 values)") {
		t.Errorf("twenty-one values: %q", got)
	}
	if got := clipText("abcdefghij", 10); got != "abcdefghij" {
		t.Errorf("clipText at its bound: %q", got)
	}
	if got := clipText("abcdefghijk", 10); got != "abcdefg..." {
		t.Errorf("clipText over its bound: %q", got)
	}
}
