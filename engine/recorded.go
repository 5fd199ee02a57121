package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

// RecordedEvidence reads again the evidence of a case whose envelope
// carries none (a passing case keeps only the reference to its
// recordings, report.CassetteSet), for the reports that show a case's
// runs. suitePath is the envelope's suite.path, which the cassette paths
// are relative to (its directory, from the working directory). The
// recordings are used only when they are the ones the case was computed
// from: the files the set lists, whose digest over their paths and
// contents is the set's; the runs are then rendered as the run renders a
// failing case's (at most maxEvidenceRuns runs, each text redacted and
// clipped), without the marks of the suite's gates, which the envelope
// does not hold. Otherwise note says, in one line, why there is no
// evidence to show, and the evidence is nil.
func RecordedEvidence(suitePath string, c *report.CaseResult) (evidence []report.RunEvidence, note string) {
	set := c.Cassettes
	switch {
	case set == nil:
		return nil, "no recordings are named for this case"
	case len(set.Paths) == 0:
		return nil, fmt.Sprintf("the envelope names %d recording(s) by digest only (sha256 %s), not by path", set.Files, set.SHA256)
	case len(set.Paths) != set.Files:
		return nil, "the envelope's list of recordings is not complete"
	}
	dir := filepath.Dir(suitePath)
	datas := make([][]byte, len(set.Paths))
	digest := sha256.New()
	for i, rel := range set.Paths {
		f := filepath.FromSlash(rel)
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		data, err := cassette.Load(f, filepath.ToSlash(f))
		if err != nil {
			return nil, fmt.Sprintf("recording %s is not at hand (%v)", rel, err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(digest, "%s\x00%s\n", rel, hex.EncodeToString(sum[:]))
		datas[i] = data
	}
	if got := hex.EncodeToString(digest.Sum(nil)); got != set.SHA256 {
		return nil, "the recordings at hand are not the ones of the run (their sha256 differs)"
	}
	n := 0
	for i, data := range datas {
		_, err := streamRecording(set.Paths[i], data, func(cas *cassette.Cassette, r *cassette.Run) {
			n++
			if len(evidence) < maxEvidenceRuns {
				evidence = append(evidence, runEvidence(n, cas.Model, r, evidenceMarker{}, nil))
			}
		})
		if err != nil {
			return nil, fmt.Sprintf("recording %s does not read (%v)", set.Paths[i], err)
		}
	}
	if len(evidence) == 0 {
		return nil, "the recordings hold no runs"
	}
	return evidence, ""
}
