package envgen

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"

	"github.com/mcptest/mcptest/report"
)

// Side is one case as one run holds it: whether the run has it, whether
// it fails, and its tool_selection.f1.
type Side struct {
	In, Fail bool
	F1       int
}

// A case is in both runs unless it was added by the pull request
// (k%1009 == 1) or is gone from it (k%1013 == 2); the pull request's run
// fails every 997th case (its regressions, where the baseline passed),
// fixes every 1999th (failing in the baseline, k%1999 == 5), and moves
// the figures of every 101st (k%101 == 3: a tool_selection.f1 of 75 in
// the baseline, 67 now, the same verdict).

// PRCase is case k in the pull request's run.
func PRCase(k int) Side {
	return Side{In: k%1013 != 2, Fail: k%997 == 0, F1: 67}
}

// BaseCase is case k in the baseline.
func BaseCase(k int) Side {
	f1 := 67
	if k%101 == 3 {
		f1 = 75
	}
	return Side{In: k%1009 != 1, Fail: k%1999 == 5, F1: f1}
}

// Name is case k's name.
func Name(k int) string {
	return fmt.Sprintf("generated case %07d", k)
}

// WriteCase writes case k as the JSON reporter writes a case, one line of
// compact JSON: a lean passing case (figures, counts, the reference to its
// recording, reliability over two runs), or a failing one (flaky: one of
// its two runs failed).
func WriteCase(w *bufio.Writer, k int, side Side) {
	verdict, passed, ok := "pass", 2, "true"
	if side.Fail {
		verdict, passed, ok = "fail", 1, "false"
	}
	class := "stable_pass"
	if passed == 1 {
		class = "flaky"
	}
	fmt.Fprintf(w, `{"name":"generated case %07d","kind":"agent","verdict":%q,"position":{"file":"suite.yml","line":%d,"col":5},"definition_sha256":"%064x","runs":2,"cassettes":{"files":1,"sha256":"%064x","paths":["cassettes/cassette-%07d.json"]},"targets":{"reliability.pass_rate":%d,"tool_selection.f1":%d},"counts":{"reliability.passed_runs":%d,"reliability.runs":2,"tool_selection.fp":0,"tool_selection.tp":%d},"assertions":[{"index":0,"target":"tool_selection.f1","matcher":{">=":50},"actual":%d,"passed":%s,"message":"assertion #0 (`+"`tool_selection.f1`"+`)","position":{"file":"suite.yml","line":%d,"col":11}}],"floors":[],"findings":[],"labels":{"reliability.class":%q}}`, k, verdict, 3+4*k, k, k*7, k, 50*passed, side.F1, passed, k%5, side.F1, ok, 5+4*k, class)
}

// Envelope is one envelope being written, a case at a time.
type Envelope struct {
	f     *os.File
	w     *bufio.Writer
	empty bool
}

// Totals are an envelope's cases counted: its head's totals and verdict
// (fail when a case fails), as a run writes them before its cases.
type Totals struct {
	Passed, Failed int
}

// add counts one case.
func (t *Totals) add(side Side) {
	if side.Fail {
		t.Failed++
	} else {
		t.Passed++
	}
}

// Create starts the envelope at path: its head, naming shard ("i/n") when
// shard is not empty, with the totals and verdict of the cases t counts,
// up to its cases.
func Create(path, shard string, t Totals) (*Envelope, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	e := &Envelope{f: f, w: bufio.NewWriterSize(f, 256<<10), empty: true}
	verdict := "pass"
	if t.Failed > 0 {
		verdict = "fail"
	}
	shardField := ""
	if shard != "" {
		shardField = fmt.Sprintf(",\n    \"shard\": %q", shard)
	}
	fmt.Fprintf(e.w, `{
  "schema_version": 1,
  "tool": {
    "name": "mcptest",
    "version": "test"
  },
  "run": {
    "id": "run",
    "mode": "replay",
    "started_at": "2026-01-01T00:00:00Z",
    "duration_ms": 1%s
  },
  "suite": {
    "path": "suite.yml",
    "sha256": "abc"
  },
  "verdict": %q,
  "totals": {
    "total": %d,
    "passed": %d,
    "failed": %d,
    "inconclusive": 0
  },
  "cases": [`, shardField, verdict, t.Passed+t.Failed, t.Passed, t.Failed)
	return e, nil
}

// Add writes case k.
func (e *Envelope) Add(k int, side Side) {
	if !e.empty {
		e.w.WriteByte(',')
	}
	e.empty = false
	e.w.WriteString("\n    ")
	WriteCase(e.w, k, side)
}

// Close ends the envelope and closes its file.
func (e *Envelope) Close() error {
	if !e.empty {
		e.w.WriteString("\n  ")
	}
	e.w.WriteString("]\n}\n")
	return errors.Join(e.w.Flush(), e.f.Close())
}

// WriteRun writes at path the pull request's run of cases 0 to n-1 (those
// PRCase has), unsharded, its totals counted.
func WriteRun(path string, n int) error {
	var t Totals
	for k := range n {
		if side := PRCase(k); side.In {
			t.add(side)
		}
	}
	e, err := Create(path, "", t)
	if err != nil {
		return err
	}
	for k := range n {
		if side := PRCase(k); side.In {
			e.Add(k, side)
		}
	}
	return e.Close()
}

// ShardOf is the shard of shards that case k belongs to, numbered from 1
// (report.Shard.Holds: the FNV-1a hash of the name).
func ShardOf(k, shards int) int {
	h := fnv.New32a()
	h.Write(fmt.Appendf(nil, "generated case %07d", k))
	return int(h.Sum32()%uint32(shards)) + 1
}

// WriteSuite writes the pull request's run of the n-case suite as shards
// shard envelopes (shard-01.json ...) and its baseline (baseline.json) in
// dir, each case written once, in one pass, and returns the shards'
// paths, relative to dir.
func WriteSuite(dir string, n, shards int) (paths []string, err error) {
	if shards < 1 {
		return nil, fmt.Errorf("envgen: %d shards", shards)
	}
	files := make([]*Envelope, 0, shards+1)
	defer func() {
		for _, e := range files {
			if cerr := e.Close(); err == nil {
				err = cerr
			}
		}
	}()
	width := len(fmt.Sprint(shards))
	if width < 2 {
		width = 2
	}
	// The cases counted first, so each head says what its cases hold, as
	// a run's does.
	of := make([]int32, n)
	counts := make([]Totals, shards)
	var baseTotals Totals
	for k := range n {
		of[k] = int32(ShardOf(k, shards) - 1)
		if side := PRCase(k); side.In {
			counts[of[k]].add(side)
		}
		if side := BaseCase(k); side.In {
			baseTotals.add(side)
		}
	}
	for i := range shards {
		p := fmt.Sprintf("shard-%0*d.json", width, i+1)
		e, err := Create(filepath.Join(dir, p), fmt.Sprintf("%d/%d", i+1, shards), counts[i])
		if err != nil {
			return nil, err
		}
		files = append(files, e)
		paths = append(paths, p)
	}
	base, err := Create(filepath.Join(dir, "baseline.json"), "", baseTotals)
	if err != nil {
		return nil, err
	}
	files = append(files, base)
	for k := range n {
		if side := PRCase(k); side.In {
			files[of[k]].Add(k, side)
		}
		if side := BaseCase(k); side.In {
			base.Add(k, side)
		}
	}
	return paths, nil
}

// ReadStream reads the envelope r holds through the case stream
// (report.CaseReader), every case decoded and checked, then its head: the
// first error, nil for none. The tests that hold every reader of an
// envelope to one answer read the stream with it.
func ReadStream(r io.Reader, name string) error {
	cr, err := report.NewCaseReader(r, name)
	if err != nil {
		return err
	}
	for {
		if _, err := cr.Next(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return err
		}
	}
	_, err = cr.Envelope()
	return err
}
