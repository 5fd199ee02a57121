package quality

import (
	"strings"
	"testing"
)

// TestHasVerbInflections: a common verb counts in any inflection (s, es,
// ed, d, ing, ies), wherever it stands in the text; other words do not,
// even one that is a verb less its final e ("writ") or ends in "ies"
// ("series").
func TestHasVerbInflections(t *testing.T) {
	for text, want := range map[string]bool{
		"Searches the book": true, "searched": true, "searching": true, "Creates": true, "created": true,
		"copies the file": true, "Copy it": true, "the results": false, "a thing": false, "ed": false, "s": false,
		"the tool searches the book": true, "a writ": false, "a series": false,
	} {
		if got := hasVerb(text); got != want {
			t.Errorf("hasVerb(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestDescBounds: the description rules at their bounds: exactly 500
// characters is not verbose, 501 is; an argument described at exactly the
// tool's length is not longer; an empty examples list is none; an
// annotations object, even empty, is declared, a null one is not.
func TestDescBounds(t *testing.T) {
	desc := func(n int) string { return strings.Repeat("a", n) }
	for _, tc := range []struct {
		rule, js string
		fires    bool
	}{
		{"DESC-002", `{"name": "x", "description": "` + desc(500) + `"}`, false},
		{"DESC-002", `{"name": "x", "description": "` + desc(501) + `"}`, true},
		{"DESC-008", `{"name": "x", "description": "` + desc(30) + `", "inputSchema": {"type": "object", "properties": {"p": {"type": "string", "description": "` + desc(30) + `"}}}}`, false},
		{"DESC-008", `{"name": "x", "description": "` + desc(30) + `", "inputSchema": {"type": "object", "properties": {"p": {"type": "string", "description": "` + desc(31) + `"}}}}`, true},
		{"DESC-009", `{"name": "x", "examples": [], "inputSchema": {"type": "object", "properties": {"p": {"type": "number"}}}}`, true},
		{"DESC-009", `{"name": "x", "examples": [{}], "inputSchema": {"type": "object", "properties": {"p": {"type": "number"}}}}`, false},
		{"DESC-009", `{"name": "x", "inputSchema": {"type": "object", "examples": [], "properties": {"p": {"type": "number"}}}}`, true},
		{"DESC-009", `{"name": "x", "inputSchema": {"type": "object", "examples": [{}], "properties": {"p": {"type": "number"}}}}`, false},
		{"DESC-012", `{"name": "x", "annotations": {}}`, false},
		{"DESC-012", `{"name": "x", "annotations": null}`, true},
		{"DESC-012", `{"name": "x"}`, true},
		{"DESC-007", `{"name": "x", "inputSchema": {"type": "object", "properties": {"p": {"enum": [], "description": "a mode"}}}}`, false},
		{"DESC-007", `{"name": "x", "inputSchema": {"type": "object", "properties": {"p": {"enum": ["fast"], "description": ""}}}}`, false},
		{"DESC-007", `{"name": "x", "inputSchema": {"type": "object", "properties": {"p": {"enum": ["fast"], "description": "a mode"}}}}`, true},
		{"DESC-007", `{"name": "x", "inputSchema": {"type": "object", "properties": {"p": {"enum": ["fast"], "description": "fast or not"}}}}`, false},
	} {
		if got := contains(firedRules(Lint(tool(t, tc.js))), tc.rule); got != tc.fires {
			t.Errorf("%s on %.80s: fired %v, want %v", tc.rule, tc.js, got, tc.fires)
		}
	}
}
