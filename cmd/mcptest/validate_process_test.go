package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/internal/diag"
)

// TestProcessValidateReadsWhatReadReads runs the built binary's `validate
// --format json` over drawn suites of generated transcripts (OpenAI and
// v1) and holds what it says of each recording to an oracle that reads
// the file whole with cassette.Read, the reader a run uses: the same
// reader, runs, calls, results, answers and tokens for a recording read
// clean, and the same errors, at the same places, for recordings cut short
// at a drawn byte or with a control character put into a string. Validate
// reads a suite lighter than a run (no digests, its text unpacked, the
// recordings counted without keeping a call's arguments, one stat a file,
// each worker reading into the last file's bytes, a JSON check of its
// own): none of that may change what it reports. Each suite is validated
// at GOMAXPROCS 1 and 2, to the same bytes.
func TestProcessValidateReadsWhatReadReads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcptest")
	}
	r := rand.New(rand.NewPCG(40, 2))
	for draw := range 4 {
		format := []string{gen.OpenAI, gen.V1}[draw%2]
		n := 5 + r.IntN(40)
		dir := t.TempDir()
		paths, err := gen.WriteTranscripts(dir, n, r.Uint64(), format)
		if err != nil {
			t.Fatal(err)
		}
		broken := 0
		if draw >= 2 {
			for _, p := range paths {
				if r.IntN(6) != 0 {
					continue
				}
				breakFile(t, r, p)
				broken++
			}
		}
		want := validateOracle(t, dir, paths)
		var outs []string
		for _, procs := range []string{"1", "2"} {
			stdout, stderr, code := runBinIn(t, dir, []string{"GOMAXPROCS=" + procs}, "validate", "--format", "json")
			if wantCode := map[bool]int{true: 0, false: 2}[want.Valid]; code != wantCode {
				t.Fatalf("draw %d (%s, %d transcripts, %d broken), GOMAXPROCS=%s: exit %d, want %d\n%s", draw, format, n, broken, procs, code, wantCode, stderr)
			}
			outs = append(outs, stdout)
		}
		if outs[0] != outs[1] {
			t.Fatalf("draw %d: validate says other things on 1 and 2 cores:\n%s\n%s", draw, outs[0], outs[1])
		}
		var got engine.ValidationDoc
		if err := json.Unmarshal([]byte(outs[0]), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			g, _ := json.MarshalIndent(got, "", " ")
			w, _ := json.MarshalIndent(want, "", " ")
			t.Fatalf("draw %d (%s, %d transcripts, %d broken): validate said\n%s\nreading each file whole says\n%s", draw, format, n, broken, g, w)
		}
	}
}

// breakFile cuts the recording at path short at a drawn byte, or puts a
// control character into its first string.
func breakFile(t *testing.T, r *rand.Rand, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.IntN(2) == 0 {
		data = data[:1+r.IntN(len(data)-1)]
	} else {
		for i, c := range data {
			if c == '"' {
				data = append(data[:i+1:i+1], append([]byte{0x01}, data[i+1:]...)...)
				break
			}
		}
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// validateOracle is the validation document of the suite in dir over the
// recordings at paths (in the suite's order), each read whole by
// cassette.Read.
func validateOracle(t *testing.T, dir string, paths []string) engine.ValidationDoc {
	t.Helper()
	doc := engine.ValidationDoc{Valid: true, Errors: []engine.ValidationError{}}
	for _, p := range paths {
		name, err := filepath.Rel(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cassette.Read(filepath.ToSlash(name), data)
		if err != nil {
			var l diag.List
			var d *diag.Error
			switch {
			case errors.As(err, &l):
			case errors.As(err, &d):
				l = diag.List{d}
			default:
				t.Fatal(err)
			}
			doc.Valid = false
			for _, e := range l {
				ve := engine.ValidationError{Path: e.Pointer, Message: e.Message}
				if e.Pos.Line > 0 {
					ve.Message = fmt.Sprintf("%s (at %s)", e.Message, e.Pos)
				}
				if e.Hint != "" {
					h := e.Hint
					ve.Hint = &h
				}
				doc.Errors = append(doc.Errors, ve)
			}
			continue
		}
		doc.Recordings = append(doc.Recordings, recordingOf(filepath.ToSlash(name), c))
	}
	return doc
}

// recordingOf is what validate reports of a recording c read clean.
func recordingOf(name string, c *cassette.Cassette) engine.Recording {
	rec := engine.Recording{File: name, Reader: string(c.Format), Models: []string{}, Agents: []string{}, Warnings: append([]string{}, c.Warnings...)}
	if c.Model != "" {
		rec.Models = append(rec.Models, c.Model)
	}
	if c.Agent != "" {
		rec.Agents = append(rec.Agents, c.Agent)
	}
	for _, run := range c.Runs {
		rec.Runs++
		for _, turn := range run.Turns {
			for _, call := range turn.Calls {
				rec.Calls++
				if call.Result != nil || call.IsError {
					rec.Results++
				}
			}
		}
		if k := len(run.Turns); k > 0 && run.Turns[k-1].FinalResponse != "" {
			rec.Answers++
		}
		if run.Tokens != nil {
			if rec.Tokens == nil {
				rec.Tokens = &engine.RecordingTokens{}
			}
			rec.Tokens.Runs++
			total := run.Tokens.Total
			if total == 0 {
				total = run.Tokens.Input + run.Tokens.Output
			}
			rec.Tokens.Total += total
		}
	}
	if rec.Runs > 0 && rec.Calls == 0 {
		rec.Warnings = append(rec.Warnings, engine.NoCallsWarning)
	}
	return rec
}
