package main

import (
	"bytes"
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
	dir := t.TempDir()
	full := filepath.Join(dir, "full.json")
	suite, err := filepath.Abs("../../examples/quickstart/suite.yml")
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"CI=", "GITHUB_ACTIONS=", "MCPTEST_DIR=" + t.TempDir()}
	if u := runMeasured(t, dir, env, "run", "--config", suite, "--format", "json", "--output", full); u.code != 0 {
		t.Fatalf("run: exit %d\n%s", u.code, u.out)
	}
	doc, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
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
