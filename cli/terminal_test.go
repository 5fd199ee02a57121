package cli

import (
	"bytes"
	"testing"
)

// TestColor: never with NO_COLOR set, never off a terminal.
func TestColor(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	if Color(env(""), &bytes.Buffer{}) || Color(env("1"), &bytes.Buffer{}) {
		t.Error("colour off a terminal")
	}
}

// TestUseColor is the precedence of the colour decision: NO_COLOR over
// everything, then --color always or never, then CLICOLOR_FORCE, CLICOLOR=0,
// a GitHub Actions log, and last the terminal check (a buffer is none).
func TestUseColor(t *testing.T) {
	for _, tc := range []struct {
		mode ColorMode
		env  map[string]string
		want bool
	}{
		{ColorAuto, nil, false},
		{ColorAlways, nil, true},
		{ColorNever, nil, false},
		{ColorAlways, map[string]string{"NO_COLOR": "1"}, false},
		{ColorAuto, map[string]string{"NO_COLOR": "1", "CLICOLOR_FORCE": "1"}, false},
		{ColorAuto, map[string]string{"NO_COLOR": "1", "GITHUB_ACTIONS": "true"}, false},
		{ColorAuto, map[string]string{"CLICOLOR_FORCE": "1"}, true},
		{ColorAuto, map[string]string{"CLICOLOR_FORCE": "0"}, false},
		{ColorNever, map[string]string{"CLICOLOR_FORCE": "1"}, false},
		{ColorAuto, map[string]string{"CLICOLOR_FORCE": "1", "CLICOLOR": "0"}, true},
		{ColorAuto, map[string]string{"CLICOLOR": "0", "GITHUB_ACTIONS": "true"}, false},
		{ColorAuto, map[string]string{"GITHUB_ACTIONS": "true"}, true},
		{ColorAuto, map[string]string{"GITHUB_ACTIONS": "false"}, false},
		{ColorNever, map[string]string{"GITHUB_ACTIONS": "true"}, false},
		{ColorAuto, map[string]string{"CI": "true"}, false},
	} {
		getenv := func(k string) string { return tc.env[k] }
		if got := UseColor(tc.mode, getenv, &bytes.Buffer{}); got != tc.want {
			t.Errorf("--color %s with %v: colour %v, want %v", tc.mode, tc.env, got, tc.want)
		}
	}
	var m ColorMode
	if m.String() != "auto" || m.Set("sometimes") == nil || m.Set("never") != nil || m != ColorNever {
		t.Errorf("--color: %q", m)
	}
}
