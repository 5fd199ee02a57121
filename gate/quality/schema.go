package quality

import (
	"fmt"
	"sort"
)

// SchemaRule is one strict input-schema rule (SCH-NNN).
type SchemaRule struct {
	ID       string
	Severity Severity
	Summary  string
}

// SchemaRules documents the SCH rules, in ID order:
//
//   - SCH-001 (critical): the inputSchema is missing or is not an object
//     schema (`"type": "object"`); MCP requires one.
//   - SCH-002 (warning): a property declares neither `type` nor `enum`
//     (nor const, $ref, anyOf, oneOf or allOf), so any value validates.
//   - SCH-003 (critical): `required` names a property `properties` does not
//     declare, so no call can satisfy it.
//   - SCH-004 (warning): an array property declares no `items`.
//   - SCH-005 (critical): a `type` is not one of the JSON Schema type names.
//   - SCH-006 (warning): an `enum` is empty or repeats a value.
//
// Nested object properties are checked the same way, to a depth of 8.
var SchemaRules = []SchemaRule{
	{"SCH-001", Critical, "inputSchema is missing or not an object schema"},
	{"SCH-002", Warning, "a property declares no type and no enum"},
	{"SCH-003", Critical, "required names an undeclared property"},
	{"SCH-004", Warning, "an array property declares no items"},
	{"SCH-005", Critical, "a type is not a JSON Schema type name"},
	{"SCH-006", Warning, "an enum is empty or repeats a value"},
}

var jsonTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true}

// LintSchema runs the SCH rules over a tool's inputSchema.
func LintSchema(t Tool) []Finding {
	var out []Finding
	add := func(id, format string, args ...any) {
		sev := Warning
		for _, r := range SchemaRules {
			if r.ID == id {
				sev = r.Severity
			}
		}
		out = append(out, Finding{Tool: t.Name, Rule: id, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	s, ok := t.InputSchema.(map[string]any)
	if !ok || s["type"] != "object" {
		add("SCH-001", "inputSchema is missing or is not an object schema (`\"type\": \"object\"`)")
		if !ok {
			return out
		}
	}
	lintObject(s, "", 0, add)
	return out
}

// lintObject lints the properties of the object schema s, whose property
// paths are prefixed with at, descending into object properties up to 8
// levels deep.
func lintObject(s map[string]any, at string, depth int, add func(id, format string, args ...any)) {
	if depth > 8 {
		return
	}
	props, _ := s["properties"].(map[string]any)
	lintRequired(s, props, at, add)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		path := at + n
		if p == nil {
			add("SCH-002", "property `%s` is not a schema object", path)
			continue
		}
		lintProperty(p, path, depth, add)
	}
}

// lintRequired reports each `required` name that props does not declare
// (SCH-003).
func lintRequired(s, props map[string]any, at string, add func(id, format string, args ...any)) {
	req, _ := s["required"].([]any)
	for _, r := range req {
		if n, ok := r.(string); ok {
			if _, declared := props[n]; !declared {
				add("SCH-003", "`required` names `%s%s`, which `properties` does not declare", at, n)
			}
		}
	}
}

// lintProperty lints one property schema p at path: its constraint
// (SCH-002), its types (SCH-004, SCH-005, and an object's own properties)
// and its enum (SCH-006).
func lintProperty(p map[string]any, path string, depth int, add func(id, format string, args ...any)) {
	if !constrained(p) {
		add("SCH-002", "property `%s` declares no `type` and no `enum`, so any value validates", path)
	}
	for _, ty := range schemaTypes(p["type"]) {
		if !jsonTypes[ty] {
			add("SCH-005", "property `%s` has type %q, which is not a JSON Schema type", path, ty)
		}
		if ty == "array" && p["items"] == nil {
			add("SCH-004", "array property `%s` declares no `items`", path)
		}
		if ty == "object" {
			lintObject(p, path+".", depth+1, add)
		}
	}
	if e, ok := p["enum"]; ok && badEnum(e) {
		add("SCH-006", "property `%s` has an empty enum or one that repeats a value", path)
	}
}

// constrained reports whether the property schema p limits its values: a
// `type`, or any of enum, const, $ref, anyOf, oneOf, allOf.
func constrained(p map[string]any) bool {
	for _, k := range []string{"type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf"} {
		if _, ok := p[k]; ok {
			return true
		}
	}
	return false
}

// schemaTypes returns the type names a `type` keyword holds: one string,
// a list of them (a non-string element as ""), or another value printed.
func schemaTypes(t any) []string {
	switch v := t.(type) {
	case string:
		return []string{v}
	case []any:
		types := make([]string, 0, len(v))
		for _, x := range v {
			s, _ := x.(string)
			types = append(types, s)
		}
		return types
	case nil:
		return nil
	default:
		return []string{fmt.Sprint(v)}
	}
}

// badEnum reports whether an enum is empty, not a list, or repeats a value.
func badEnum(e any) bool {
	arr, _ := e.([]any)
	seen := map[string]bool{}
	for _, v := range arr {
		k := fmt.Sprintf("%T:%v", v, v)
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return len(arr) == 0
}
