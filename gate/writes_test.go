package gate

import (
	"slices"
	"testing"
)

// TestMayWriteRules: with annotations the hints decide, by the MCP
// defaults (not read-only unless readOnlyHint is the boolean true; a
// read-only tool annotated destructive writes); without, the name's verb.
func TestMayWriteRules(t *testing.T) {
	for _, tc := range []struct {
		name        string
		tool        string
		annotations any
		want        bool
	}{
		{"read-only", "delete_user", map[string]any{"readOnlyHint": true}, false},
		{"read-only, not destructive", "get_user", map[string]any{"readOnlyHint": true, "destructiveHint": false}, false},
		{"read-only and destructive", "get_user", map[string]any{"readOnlyHint": true, "destructiveHint": true}, true},
		{"not read-only", "get_user", map[string]any{"readOnlyHint": false}, true},
		{"no readOnlyHint", "get_user", map[string]any{}, true},
		{"a readOnlyHint that is not a boolean", "get_user", map[string]any{"readOnlyHint": "true"}, true},
		{"no annotations, a read verb", "get_user", nil, false},
		{"no annotations, a write verb", "create_issue", nil, true},
		{"no annotations, a destructive verb", "DeleteUser", nil, true},
		{"no annotations, no verb", "weather", nil, false},
		{"annotations not an object", "create_issue", "readOnly", true},
		{"annotations not an object, a read verb", "get_user", []any{true}, false},
	} {
		if got := MayWrite(tc.tool, tc.annotations); got != tc.want {
			t.Errorf("%s: MayWrite(%q, %v) = %v, want %v", tc.name, tc.tool, tc.annotations, got, tc.want)
		}
	}
}

// TestNameVerbRules: a destructive verb anywhere in the name wins; else
// the first read or write verb decides; else none.
func TestNameVerbRules(t *testing.T) {
	for name, want := range map[string]string{
		"slack_delete_message": VerbDestructive,
		"get_then_purge":       VerbDestructive,
		"list_then_create":     VerbRead,
		"create_then_list":     VerbWrite,
		"HTTPSendRequest":      VerbWrite,
		"getUser":              VerbRead,
		"weather":              "",
		"":                     "",
	} {
		if got := NameVerb(name); got != want {
			t.Errorf("NameVerb(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestNameWords: a name splits at every character that is not a letter or
// digit (runs of them give no empty word) and at camelCase boundaries: a
// lower-case letter or a digit before an upper-case one, and the last
// capital of an acronym before a lower-case letter.
func TestNameWords(t *testing.T) {
	for name, want := range map[string][]string{
		"HTTPSendRequest": {"http", "send", "request"},
		"getID":           {"get", "id"},
		"user2Name":       {"user2", "name"},
		"ABc":             {"a", "bc"},
		"_a..b-c.":        {"a", "b", "c"},
		"Delete":          {"delete"},
		"":                nil,
	} {
		if got := nameWords(name); !slices.Equal(got, want) {
			t.Errorf("nameWords(%q) = %q, want %q", name, got, want)
		}
	}
}
