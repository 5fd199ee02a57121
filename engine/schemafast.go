package engine

import (
	"github.com/mcptest/mcptest/engine/schema"
)

// The suite schema's validator allocates several values for every value it
// checks: a third of the time to load a suite of thousands of agent tests,
// and most of the garbage. validSuite accepts the common shape of such a
// suite without it: the agent tests of `tests:` are checked here, key by
// key, against exactly the constraints the schema states for the keys
// they use (see $defs/test, agentTest, expectList, assertion, matcher and
// equalFunctionSets in schema/suite.v1.json). A test that uses any other
// key, and the rest of the root, go to schemaCheck (schemacheck.go), which
// reads the schema's own keywords; what neither knows valid goes to the
// validator, which then checks the whole document and words every error.
// Both only ever say "valid", for documents the validator finds valid
// too (FuzzValidSuite, TestSchemaCheckAgrees).

// validSuite reports whether root is valid against the suite schema,
// judged without the validator: each test of `tests:` by fastTest, else by
// schemaCheck, and the rest of the root by schemaCheck. False means "not
// known valid": the caller validates the whole document.
func validSuite(root any) bool {
	m, ok := root.(map[string]any)
	if !ok {
		return false
	}
	if list, ok := m["tests"].([]any); ok {
		for _, t := range list {
			if !fastTest(t) && !suiteCheck().validItem("tests", t) {
				return false
			}
		}
		return validRest(m, "tests")
	}
	return suiteCheck().check(m)
}

// validRest reports whether the root mapping m is valid against the
// suite schema but for its key skip, which is not checked. The root's
// schema states no constraint across its keys (type object,
// additionalProperties false and one schema per property), so the root
// is valid when skip and the other keys are: checked by schemaCheck, and
// by the validator when schemaCheck does not know them valid (the empty
// object, a suite of tests: alone, is valid: TestValidSuiteFastPath).
func validRest(m map[string]any, skip string) bool {
	if _, has := m[skip]; has && len(m) == 1 {
		return true
	}
	rest := make(map[string]any, len(m))
	for k, v := range m {
		if k != skip {
			rest[k] = v
		}
	}
	return suiteCheck().check(rest) || schema.Suite().Validate(rest) == nil
}

// validItem reports whether v is valid against the suite schema as an
// item of the section key, judged by fastTest for a test of tests:, else
// by schemaCheck, else by the validator, over a suite of that one item
// (the items of a section are each checked on their own: the schema
// states no constraint across them).
func validItem(key string, v any) bool {
	return key == "tests" && fastTest(v) || suiteCheck().validItem(key, v) ||
		schema.Suite().Validate(map[string]any{key: []any{v}}) == nil
}

// fastTest reports whether v is an agent test the schema accepts, using
// only the keys checked here; false for anything else.
func fastTest(v any) bool {
	t, ok := v.(map[string]any)
	return ok && nonEmptyString(t["name"]) && t["type"] == "agent" && fastObject(t, fastTestKey)
}

// fastObject reports whether v is a mapping each of whose keys, with its
// value, key accepts.
func fastObject(v any, key func(k string, v any) bool) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, val := range m {
		if !key(k, val) {
			return false
		}
	}
	return true
}

func fastTestKey(k string, v any) bool {
	switch k {
	case "name", "cassette":
		return nonEmptyString(v)
	case "type":
		return v == "agent"
	case "description", "agent", "prompt":
		_, ok := v.(string)
		return ok
	case "servers":
		return nonEmptyStrings(v, 0)
	case "expect":
		return fastExpectList(v)
	case "equal_function_sets":
		return fastEqualFunctionSets(v)
	case "tool_edges":
		return fastToolEdges(v)
	}
	return false
}

func nonEmptyString(v any) bool {
	s, ok := v.(string)
	return ok && s != ""
}

// nonEmptyStrings reports whether v is a list of at least min non-empty
// strings.
func nonEmptyStrings(v any, min int) bool {
	l, ok := v.([]any)
	if !ok || len(l) < min {
		return false
	}
	for _, s := range l {
		if !nonEmptyString(s) {
			return false
		}
	}
	return true
}

func fastExpectList(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, a := range l {
		if !fastAssertion(a) {
			return false
		}
	}
	return true
}

// fastAssertion is $defs/assertion: {target, matcher[, message]}, or the
// shorthand of one key whose value, when a mapping, is a matcher.
func fastAssertion(v any) bool {
	a, ok := v.(map[string]any)
	if !ok || len(a) == 0 {
		return false
	}
	if _, long := a["target"]; long {
		return fastLongAssertion(a)
	}
	if len(a) != 1 {
		return false
	}
	for _, m := range a {
		if _, isMap := m.(map[string]any); isMap {
			return fastMatcher(m)
		}
	}
	return true
}

func fastLongAssertion(a map[string]any) bool {
	if !nonEmptyString(a["target"]) {
		return false
	}
	if _, ok := a["matcher"]; !ok || !fastMatcher(a["matcher"]) {
		return false
	}
	for k, v := range a {
		switch k {
		case "target", "matcher":
		case "message":
			if _, ok := v.(string); !ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// fastMatcher is $defs/matcher: one key, of the known operators, with a
// value of the operator's type.
func fastMatcher(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return false
	}
	for op, arg := range m {
		return fastOperand(op, arg)
	}
	return false
}

func fastOperand(op string, arg any) bool {
	switch op {
	case "exact", "contains", "==", "!=":
		return true
	case "regex":
		_, ok := arg.(string)
		return ok
	case ">=", ">", "<=", "<":
		_, ok := arg.(float64)
		return ok
	case "not":
		return fastMatcher(arg)
	}
	return false
}

// fastEqualFunctionSets is $defs/equalFunctionSets.
func fastEqualFunctionSets(v any) bool {
	e, ok := v.(map[string]any)
	_, has := e["classes"]
	return ok && has && fastObject(e, fastEqualFunctionSetsKey)
}

func fastEqualFunctionSetsKey(k string, v any) bool {
	switch k {
	case "classes":
		return fastClasses(v)
	case "count":
		return v == "calls" || v == "distinct"
	case "expect":
		return fastExpectList(v)
	}
	return false
}

// fastClasses is $defs/classes: a list of {name, members}.
func fastClasses(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, c := range l {
		m, ok := c.(map[string]any)
		if !ok || len(m) != 2 || !nonEmptyString(m["name"]) || !nonEmptyStrings(m["members"], 1) {
			return false
		}
	}
	return true
}

// fastToolEdges is $defs/toolEdges: {allowed, restricted, delegation,
// expect}, each optional. Checked here, a suite of such a test (the one
// test over a directory of cassettes that `.ci/bench` runs) needs no
// compiled schema: compiling it took about 7 ms of the load's one
// goroutine before the first file was read.
func fastToolEdges(v any) bool {
	return fastObject(v, fastToolEdgesKey)
}

func fastToolEdgesKey(k string, v any) bool {
	switch k {
	case "allowed", "restricted":
		return nonEmptyStrings(v, 0)
	case "delegation":
		return fastDelegation(v)
	case "expect":
		return fastExpectList(v)
	}
	return false
}

// fastDelegation is toolEdges' delegation: a list of {from, to}, both
// non-empty strings, no other key.
func fastDelegation(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, d := range l {
		m, ok := d.(map[string]any)
		if !ok || len(m) != 2 || !nonEmptyString(m["from"]) || !nonEmptyString(m["to"]) {
			return false
		}
	}
	return true
}
