package expr_test

import (
	"fmt"

	"github.com/mcptest/mcptest/internal/expr"
)

func Example() {
	// A recorded run, decoded from JSON: every number is a float64.
	run := map[string]any{
		"tool_selection": map[string]any{"f1": 50.0},
		"result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": "status: degraded"}},
		},
	}

	target, err := expr.ParsePath("tool_selection.f1")
	if err != nil {
		panic(err)
	}
	// As a suite.yml would give it: `tool_selection.f1: { ">=": 80 }`.
	min80, err := expr.ParseMatcher(map[string]any{">=": 80.0})
	if err != nil {
		panic(err)
	}
	value, present := target.Lookup(run)
	passed, message := min80.Match(value, present)
	fmt.Println(target, min80, passed, message)

	target, _ = expr.ParsePath(`result.content[0]["text"]`)
	operational, _ := expr.ParseMatcher(map[string]any{"contains": "operational"})
	value, present = target.Lookup(run)
	passed, message = operational.Match(value, present)
	fmt.Println(target, operational, passed, message)

	_, err = expr.ParsePath("tool_selection.f1]")
	fmt.Println(err)
	_, err = expr.ParseMatcher(map[string]any{"exakt": 5.0})
	fmt.Println(err)

	// Output:
	// tool_selection.f1 {">=":80} false 50 is less than the minimum 80
	// result.content[0]["text"] {"contains":"operational"} false substring `operational` not found in "status: degraded"
	// unexpected "]" at column 18 in target "tool_selection.f1]": expected .field, [index], ["key"] or the end of the target
	// at /exakt: unknown matcher "exakt": expected one of "!=", "<", "<=", "==", ">", ">=", "contains", "exact", "not", "regex", "schema" (did you mean `exact`?)
}
