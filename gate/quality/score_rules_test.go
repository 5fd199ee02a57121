package quality

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestConcisenessBounds: conciseness loses half for a description over
// 500 characters (exactly 500 keeps it) and half for an argument described
// at more length than the tool (exactly the tool's length keeps it); the
// length score is 1 up to 500 characters, 0.5 up to 1000, 0.25 past it.
func TestConcisenessBounds(t *testing.T) {
	desc := func(n int) string { return "Return " + strings.Repeat("a", n-7) }
	withArg := func(d string, argLen int) string {
		return `{"name": "x", "description": "` + d + `", "inputSchema": {"type": "object", "properties": {"p": {"type": "string", "description": "` +
			strings.Repeat("b", argLen) + `"}}}}`
	}
	for _, tc := range []struct {
		name, js            string
		length, conciseness float64
	}{
		{"description of 500", `{"name": "x", "description": "` + desc(500) + `"}`, 1, 1},
		{"description of 501", `{"name": "x", "description": "` + desc(501) + `"}`, 0.5, 0.5},
		{"description of 1000", `{"name": "x", "description": "` + desc(1000) + `"}`, 0.5, 0.5},
		{"description of 1001", `{"name": "x", "description": "` + desc(1001) + `"}`, 0.25, 0.5},
		{"argument as long as the tool", withArg(desc(40), 40), 1, 1},
		{"argument one longer than the tool", withArg(desc(40), 41), 1, 0.5},
		{"both too long", withArg(desc(501), 502), 0.5, 0},
	} {
		s := Scores(tool(t, tc.js))
		if s[1] != tc.length || s[3] != tc.conciseness {
			t.Errorf("%s: length %v, conciseness %v; want %v, %v", tc.name, s[1], s[3], tc.length, tc.conciseness)
		}
	}
}

// TestDESC008NeedsDescription: an argument described at more length than
// a tool with no description at all is DESC-001's finding, not DESC-008's.
func TestDESC008NeedsDescription(t *testing.T) {
	for _, tc := range []struct {
		desc  string
		fires bool
	}{
		{"", false},
		{"R", true},
	} {
		js := `{"name": "x", "description": "` + tc.desc + `", "inputSchema": {"type": "object", "properties": {"p": {"type": "string", "description": "the id"}}}}`
		if got := contains(firedRules(Lint(tool(t, js))), "DESC-008"); got != tc.fires {
			t.Errorf("description %q: DESC-008 fired %v, want %v", tc.desc, got, tc.fires)
		}
	}
}

// TestSchemaDepthBound: the SCH rules read nested object properties to a
// depth of 8: a property inside eight nested objects is checked, one
// inside nine is not.
func TestSchemaDepthBound(t *testing.T) {
	for _, tc := range []struct {
		depth int
		fires bool
	}{
		{7, true},
		{8, true},
		{9, false},
	} {
		// leaf is unconstrained (SCH-002) and sits depth objects down.
		var props any = map[string]any{"leaf": map[string]any{}}
		for i := 0; i < tc.depth; i++ {
			props = map[string]any{"o": map[string]any{"type": "object", "properties": props}}
		}
		js, err := json.Marshal(map[string]any{"name": "x", "inputSchema": map[string]any{"type": "object", "properties": props}})
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Repeat("o.", tc.depth) + "leaf"
		fired := false
		for _, f := range LintSchema(tool(t, string(js))) {
			if f.Rule == "SCH-002" && strings.Contains(f.Message, "`"+want+"`") {
				fired = true
			}
		}
		if fired != tc.fires {
			t.Errorf("a property %d objects down: SCH-002 fired %v, want %v (%v)", tc.depth, fired, tc.fires, LintSchema(tool(t, string(js))))
		}
	}
}

// TestAnnotationsScoreNull: an annotations key holding null declares no
// annotations: it scores 0, as a missing key does; an empty object scores 1.
func TestAnnotationsScoreNull(t *testing.T) {
	for js, want := range map[string]float64{
		`{"name": "x", "annotations": null}`:                    0,
		`{"name": "x"}`:                                         0,
		`{"name": "x", "annotations": {}}`:                      1,
		`{"name": "x", "annotations": {"readOnlyHint": "yes"}}`: 0.5,
	} {
		if got := Scores(tool(t, js))[5]; got != want {
			t.Errorf("%s: annotations score %v, want %v", js, got, want)
		}
	}
}

// TestDESC013Stringish: DESC-013 reads an argument as a string when it
// declares the one type "string" or no type at all; an integer is not one
// even when its description lists values.
func TestDESC013Stringish(t *testing.T) {
	for _, tc := range []struct {
		typ   string
		fires bool
	}{
		{`"type": "string", `, true},
		{``, true},
		{`"type": "integer", `, false},
	} {
		js := `{"name": "x", "description": "Set a level.", "inputSchema": {"type": "object", "properties": {"level": {` + tc.typ + `"description": "The level, one of 1, 2 or 3."}}}}`
		if got := contains(firedRules(Lint(tool(t, js))), "DESC-013"); got != tc.fires {
			t.Errorf("type {%s}: DESC-013 fired %v, want %v", tc.typ, got, tc.fires)
		}
	}
}
