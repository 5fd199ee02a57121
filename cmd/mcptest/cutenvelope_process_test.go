package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// TestProcessCutEnvelopePlaced runs the built binary over the envelope
// of a real run cut short, as a download cut short leaves an artifact:
// `report` (the whole document), `report --compare` and `report merge`
// (the case stream) and `history` each exit 2 with the error placed at
// the line and column where the text ends. `report` and `history` named
// the file alone.
func TestProcessCutEnvelopePlaced(t *testing.T) {
	dir, env, doc := quickstartEnvelope(t)
	for _, cut := range []int{len(doc) / 3, len(doc) / 2, len(doc) - 3} {
		text := doc[:cut]
		if err := os.WriteFile(filepath.Join(dir, "cut.json"), text, 0o644); err != nil {
			t.Fatal(err)
		}
		line, col := diag.LineCol(text, int64(len(text)))
		want := fmt.Sprintf("mcptest: cut.json:%d:%d: not a run envelope: ", line, col)
		for _, args := range [][]string{
			{"report", "cut.json"},
			{"report", "cut.json", "--compare", "full.json"},
			{"report", "merge", "cut.json", "--output", "merged.json"},
			{"history", "cut.json"},
		} {
			u := runMeasured(t, dir, env, args...)
			if u.code != 2 || !strings.HasPrefix(u.out, want) {
				t.Errorf("%s, cut at %d: exit %d, want 2 and %q\n%.400s", strings.Join(args, " "), cut, u.code, want, u.out)
			}
		}
	}
	if bytes.Count(doc, []byte("\n")) < 10 {
		t.Fatalf("the run's envelope is %d lines: want one of several", bytes.Count(doc, []byte("\n")))
	}
}

// TestProcessBrokenEnvelopeSameError runs the built binary over the
// envelope of a real run broken within a case and within its head (a
// character replaced, a quote dropped, a byte put in), and, beside it, a
// name of two-byte characters on the same line: `report`, `report
// --compare` with it as the current run and as the baseline, `report
// merge` and `history` each exit 2 with one error, placed where
// encoding/json finds the text stops being JSON (columns in characters).
// On the same broken case `report` placed it at one column, `--compare`
// at the next with another message and `merge` not at all.
func TestProcessBrokenEnvelopeSameError(t *testing.T) {
	dir, env, doc := quickstartEnvelope(t)
	// a case's name in characters of two bytes, ahead of the breaks on
	// its line
	doc = bytes.Replace(doc, []byte(`"name": "`), []byte(`"name": "Größe `), 1)
	lastCase := bytes.LastIndex(doc, []byte(`"verdict": "`))
	for _, tc := range []struct{ what, from, to string }{
		{"a case's colon replaced", `"verdict": "`, `"verdict"} "`},
		{"a case's quote dropped", `"verdict": "`, `"verdict: "`},
		{"a byte put in before a case", `{"name"`, `0{"name"`},
		{"the head's value replaced", `"tool": {`, `"tool": x`},
	} {
		at := bytes.Index(doc, []byte(tc.from))
		if tc.from == `"verdict": "` {
			at = lastCase
		}
		if at < 0 {
			t.Fatalf("%s: %q is not in the envelope", tc.what, tc.from)
		}
		text := append(append(bytes.Clone(doc[:at]), tc.to...), doc[at+len(tc.from):]...)
		var se *json.SyntaxError
		if !errors.As(json.Unmarshal(text, new(any)), &se) {
			t.Fatalf("%s: the text is still JSON", tc.what)
		}
		if err := os.WriteFile(filepath.Join(dir, "bad.json"), text, 0o644); err != nil {
			t.Fatal(err)
		}
		line, col := diag.LineCol(text, se.Offset-1)
		want := fmt.Sprintf("mcptest: bad.json:%d:%d: not a run envelope: ", line, col)
		first := ""
		for _, args := range [][]string{
			{"report", "bad.json"},
			{"report", "bad.json", "--compare", "full.json"},
			{"report", "full.json", "--compare", "bad.json"},
			{"report", "merge", "bad.json", "--output", "merged.json"},
			{"history", "bad.json"},
		} {
			u := runMeasured(t, dir, env, args...)
			msg, _, _ := strings.Cut(u.out, "\n")
			switch {
			case u.code != 2 || !strings.HasPrefix(msg, want):
				t.Errorf("%s: %s: exit %d, want 2 and %q\n%.400s", tc.what, strings.Join(args, " "), u.code, want, u.out)
			case first == "":
				first = msg
			case msg != first:
				t.Errorf("%s: %s: %q, want the error of `report`: %q", tc.what, strings.Join(args, " "), msg, first)
			}
		}
	}
}

// quickstartEnvelope runs the quickstart example with the built binary
// into full.json of a new directory: the directory, the environment it
// ran with and the envelope's bytes.
func quickstartEnvelope(t *testing.T) (dir string, env []string, doc []byte) {
	t.Helper()
	dir = t.TempDir()
	full := filepath.Join(dir, "full.json")
	suite, err := filepath.Abs("../../examples/quickstart/suite.yml")
	if err != nil {
		t.Fatal(err)
	}
	env = []string{"CI=", "GITHUB_ACTIONS=", "MCPTEST_DIR=" + t.TempDir()}
	if u := runMeasured(t, dir, env, "run", "--config", suite, "--format", "json", "--output", full); u.code != 0 {
		t.Fatalf("run: exit %d\n%s", u.code, u.out)
	}
	doc, err = os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	return dir, env, doc
}
