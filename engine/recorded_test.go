package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/report"
)

// TestLeanEnvelopeRereadsRecordings: over generated cassettes, a passing
// case carries no evidence and lists its recording, whose runs
// RecordedEvidence reads again while the file is the one of the run, and
// names why not once it changed or went away; a failing case carries
// evidence within maxEvidenceJSON.
func TestLeanEnvelopeRereadsRecordings(t *testing.T) {
	dir := t.TempDir()
	_, err := gen.Write(dir, 40, gen.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuite(filepath.Join(dir, gen.CaseSuiteFile))
	if err != nil {
		t.Fatal(err)
	}
	env := run(t, s, Options{})
	var passing *report.CaseResult
	for _, c := range env.Cases {
		data, _ := json.Marshal(c.Evidence)
		switch {
		case c.Verdict == report.Pass && (c.Evidence != nil || c.EvidenceOmitted != 0):
			t.Errorf("passing case %q carries evidence", c.Name)
		case c.Verdict != report.Pass && len(data) > maxEvidenceJSON:
			t.Errorf("case %q carries %d bytes of evidence", c.Name, len(data))
		case c.Cassettes == nil || len(c.Cassettes.Paths) != c.Cassettes.Files:
			t.Errorf("case %q lists its recordings %+v", c.Name, c.Cassettes)
		}
		if c.Verdict == report.Pass && passing == nil {
			passing = c
		}
	}
	if passing == nil {
		t.Fatal("no passing case")
	}
	ev, note := RecordedEvidence(env.Suite.Path, passing)
	if note != "" || len(ev) != passing.Runs || len(ev[0].Turns) == 0 {
		t.Fatalf("read again: %d runs, note %q; want %d runs", len(ev), note, passing.Runs)
	}
	file := filepath.Join(dir, filepath.FromSlash(passing.Cassettes.Paths[0]))
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if ev, note := RecordedEvidence(env.Suite.Path, passing); ev != nil || !strings.Contains(note, "sha256 differs") {
		t.Errorf("a changed recording: %d runs, note %q", len(ev), note)
	}
	os.Remove(file)
	if ev, note := RecordedEvidence(env.Suite.Path, passing); ev != nil || !strings.Contains(note, "not at hand") {
		t.Errorf("a missing recording: %d runs, note %q", len(ev), note)
	}
}
