package envstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/report"
)

// drawnNames are pieces of the drawn cases' names: characters JSON
// escapes, HTML's, a line separator, and a URL with a password (a secret
// the mask of every output hides).
var drawnNames = []string{"a", " ", "\"", "\\", "<b>", "&", "\n", "\t", "\u2028", "é", "日", "http://u:pw-secret-1234@h/x", "?token=tok-5678"}

// drawPair draws a baseline and a current run: cases the same, new,
// removed, not comparable (another definition or number of runs),
// flipped, names given twice on either side (among the compared and
// among the new ones), names with characters to escape and secrets.
func drawPair(r *rand.Rand) (base, cur *report.Envelope) {
	n := 1 + r.IntN(60)
	base = genEnvelope(r, n, "g")
	cur = genEnvelope(r, n, "g")
	for i := range cur.Cases {
		if r.IntN(3) > 0 {
			cur.Cases[i] = base.Cases[i]
		}
	}
	name := func() string {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(drawnNames[r.IntN(len(drawnNames))])
		}
		return b.String()
	}
	for i := range cur.Cases {
		switch r.IntN(8) {
		case 0: // flipped
			c := *cur.Cases[i]
			if c.Verdict == report.Pass {
				c.Verdict = report.Fail
			} else {
				c.Verdict = report.Pass
			}
			cur.Cases[i] = &c
		case 1: // not comparable
			c := *cur.Cases[i]
			c.DefinitionSHA256 = fmt.Sprintf("%064x", 1<<40+i)
			cur.Cases[i] = &c
		case 2: // renamed: new here, removed there
			c := *cur.Cases[i]
			c.Name = name()
			cur.Cases[i] = &c
		}
	}
	for range r.IntN(6) { // new
		cur.Cases = append(cur.Cases, genCase(r, n+r.IntN(40), name()))
	}
	for range r.IntN(4) { // removed
		i := r.IntN(len(cur.Cases))
		cur.Cases = append(cur.Cases[:i], cur.Cases[i+1:]...)
	}
	for range r.IntN(3) { // given twice
		if len(cur.Cases) > 0 {
			cur.Cases = append(cur.Cases, cur.Cases[r.IntN(len(cur.Cases))])
		}
		base.Cases = append(base.Cases, base.Cases[r.IntN(len(base.Cases))])
	}
	cur.Tally()
	base.Tally()
	return base, cur
}

// TestCompareJSONDecodesToCompare: over drawn pairs of runs (drawPair),
// the comparison written as it is computed (CompareJSON), decoded, is
// baseline.Compare's comparison of the two, its bytes are
// baseline.Comparison.WriteJSON's (the rendering in memory), every case
// is one line holding one JSON value, in the order of the comparison's
// cases, and through the mask of the outputs the bytes are the mask of
// the whole text, no secret in them.
func TestCompareJSONDecodesToCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 4040))
	dir := t.TempDir()
	bp, cp := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
	seen := map[baseline.Status]int{}
	warned, flips := 0, 0
	for round := range 60 {
		base, cur := drawPair(r)
		writeEnv(t, bp, base)
		writeEnv(t, cp, cur)
		policy := []string{"regressions", "failures", "none", "flips"}[round%4]
		got, head, err := compareJSONBytes(bp, cp, policy)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		readCur, err := baseline.ReadFile(cp, "", report.Read)
		if err != nil {
			t.Fatal(err)
		}
		want, err := baseline.CompareFile(bp, "--compare", readCur, policy)
		if err != nil {
			t.Fatal(err)
		}
		var decoded baseline.Comparison
		if err := json.Unmarshal(got, &decoded); err != nil {
			t.Fatalf("round %d: the comparison does not decode: %v\n%s", round, err, clip(string(got)))
		}
		if !reflect.DeepEqual(&decoded, want) {
			t.Fatalf("round %d: decoded, the comparison is not baseline.Compare's:\n%+v\nwant:\n%+v", round, decoded, *want)
		}
		if !reflect.DeepEqual(head.Gate, want.Gate) || head.Summary != want.Summary || len(head.Cases) != 0 {
			t.Fatalf("round %d: CompareJSON returned gate %+v summary %+v and %d cases; want %+v %+v and none", round, head.Gate, head.Summary, len(head.Cases), want.Gate, want.Summary)
		}
		var whole bytes.Buffer
		if err := want.WriteJSON(&whole); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, whole.Bytes()) {
			t.Fatalf("round %d: the streamed bytes are not WriteJSON's:\n%s\nwant:\n%s", round, clip(string(got)), clip(whole.String()))
		}
		checkCaseLines(t, round, got, want.Cases)
		checkMasked(t, round, bp, cp, policy, got)
		for _, d := range want.Cases {
			seen[d.Status]++
			flips += len(d.Flips)
		}
		if len(want.Warnings) > 0 {
			warned++
		}
	}
	for _, s := range []baseline.Status{baseline.Same, baseline.New, baseline.Removed, baseline.NotComparable} {
		if seen[s] == 0 {
			t.Errorf("no drawn case is %s: %v", s, seen)
		}
	}
	if warned == 0 || flips == 0 {
		t.Errorf("%d comparisons with warnings, %d flips: the drawing misses them", warned, flips)
	}
}

// checkCaseLines holds the comparison's JSON to its layout: the lines
// between the cases' brackets are the cases, each one JSON value
// (compact, at an indent of four, a comma after all but the last) that
// decodes to the comparison's case of its place.
func checkCaseLines(t *testing.T, round int, data []byte, cases []baseline.CaseDelta) {
	t.Helper()
	text := string(data)
	start := strings.Index(text, "\n  \"cases\": [")
	if start < 0 {
		t.Fatalf("round %d: no cases key", round)
	}
	rest := text[start+len("\n  \"cases\": ["):]
	if len(cases) == 0 {
		if !strings.HasPrefix(rest, "],\n") {
			t.Fatalf("round %d: no case, and the cases are not []: %.80s", round, rest)
		}
		return
	}
	end := strings.Index(rest, "\n  ],\n")
	if end < 0 {
		t.Fatalf("round %d: the cases' closing bracket is not on a line of its own", round)
	}
	lines := strings.Split(strings.TrimPrefix(rest[:end], "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("round %d: %d case lines, %d cases", round, len(lines), len(cases))
	}
	for i, l := range lines {
		body, ok := strings.CutPrefix(l, "    {")
		if !ok {
			t.Fatalf("round %d: case line %d does not open an object at an indent of four: %.80q", round, i, l)
		}
		body = "{" + body
		if i < len(lines)-1 {
			if body, ok = strings.CutSuffix(body, ","); !ok {
				t.Fatalf("round %d: case line %d ends without a comma", round, i)
			}
		}
		var d baseline.CaseDelta
		dec := json.NewDecoder(strings.NewReader(body))
		if err := dec.Decode(&d); err != nil || dec.More() || dec.InputOffset() != int64(len(body)) {
			t.Fatalf("round %d: case line %d is not one JSON value (%v): %.200s", round, i, err, body)
		}
		if !reflect.DeepEqual(d, cases[i]) {
			t.Fatalf("round %d: case line %d decodes to %+v, want %+v", round, i, d, cases[i])
		}
	}
}

// checkMasked writes the comparison through the mask of every output
// (redact.NewKnownWriter, the secrets of the drawn names known) and
// holds it to the mask of the whole text.
func checkMasked(t *testing.T, round int, bp, cp, policy string, plain []byte) {
	t.Helper()
	k := &redact.Known{}
	k.Add("tok-5678")
	var buf bytes.Buffer
	out := func(fill func(io.Writer) error) error { return redact.ThroughKnown(k, fill)(&buf) }
	if _, err := CompareJSON(out, false, bp, "--compare", cp, policy); err != nil {
		t.Fatalf("round %d: masked: %v", round, err)
	}
	if want := k.Mask(string(plain)); buf.String() != want {
		t.Fatalf("round %d: through the mask the comparison is not its text masked:\n%s\nwant:\n%s", round, clip(buf.String()), clip(want))
	}
	for _, secret := range []string{"pw-secret-1234", "tok-5678"} {
		if strings.Contains(buf.String(), secret) {
			t.Fatalf("round %d: %s came out", round, secret)
		}
	}
}

// TestCompareJSONHeadAfterCases: a current run that gives a member of
// its head only after its cases is compared in memory before anything
// is written; one that gives a member again after its cases is compared
// again in memory where the output can start over, and refused where it
// cannot (stdout), with an input error that says what to do.
func TestCompareJSONHeadAfterCases(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 41))
	dir := t.TempDir()
	base, cur := drawPair(r)
	bp, cp := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
	writeEnv(t, bp, base)
	writeEnv(t, cp, cur)
	data, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	// The totals given again at the end, other than before the cases.
	again := bytes.Replace(data, []byte("\n}"), []byte(",\n  \"totals\": {\"total\": 999, \"passed\": 999, \"failed\": 0, \"inconclusive\": 0}\n}"), 1)
	// The verdict given after the cases only.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	late := bytes.Replace(data, []byte(`"verdict": `+string(m["verdict"])+",\n"), nil, 1)
	late = bytes.Replace(late, []byte("\n}"), []byte(",\n  \"verdict\": "+string(m["verdict"])+"\n}"), 1)
	if bytes.Equal(late, data) || bytes.Equal(again, data) {
		t.Fatal("the edits found nothing to edit")
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		stdout bool // refused where the output cannot start over
	}{{"a member again after the cases", again, true}, {"a member after the cases only", late, false}} {
		if err := os.WriteFile(cp, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		readCur, err := baseline.ReadFile(cp, "", report.Read)
		if err != nil {
			t.Fatal(err)
		}
		want, err := baseline.CompareFile(bp, "--compare", readCur, "none")
		if err != nil {
			t.Fatal(err)
		}
		var w bytes.Buffer
		if err := annotate.RenderComparison(&w, "json", want, annotate.Options{}); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		starts := 0
		out := func(fill func(io.Writer) error) error { starts++; buf.Reset(); return fill(&buf) }
		if _, err := CompareJSON(out, true, bp, "--compare", cp, "none"); err != nil || !bytes.Equal(buf.Bytes(), w.Bytes()) {
			t.Fatalf("%s (%d starts, %v): the output is not the comparison in memory:\n%s\nwant:\n%s", tc.name, starts, err, clip(buf.String()), clip(w.String()))
		}
		if wantStarts := map[bool]int{true: 2, false: 1}[tc.stdout]; starts != wantStarts {
			t.Errorf("%s: the output was started %d times, want %d", tc.name, starts, wantStarts)
		}
		got, _, err := compareJSONBytes(bp, cp, "none")
		if tc.stdout {
			if err == nil || !strings.Contains(err.Error(), "--output FILE") || json.Valid(got) {
				t.Errorf("%s, stdout: %v, a whole document %v; want an error naming --output", tc.name, err, json.Valid(got))
			}
		} else if err != nil || !bytes.Equal(got, w.Bytes()) {
			t.Errorf("%s, stdout: %v:\n%s", tc.name, err, clip(string(got)))
		}
	}
}

// TestCompareJSONWriteError: an output that fails part of the way (drawn
// places, in the head, the cases or the tail) is an error writing the
// comparison ("write comparison", the writer's error wrapped), not an
// input error, on the streamed way and on the one in memory.
func TestCompareJSONWriteError(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 42))
	dir := t.TempDir()
	bp, cp := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
	base, cur := drawPair(r)
	writeEnv(t, bp, base)
	writeEnv(t, cp, cur)
	whole, _, err := compareJSONBytes(bp, cp, "none")
	if err != nil {
		t.Fatal(err)
	}
	// A current run whose head stands after its cases is compared in
	// memory.
	data, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	cases := env["cases"]
	delete(env, "cases")
	head, _ := json.Marshal(env)
	late := filepath.Join(dir, "late.json")
	if err := os.WriteFile(late, append(append([]byte(`{"cases":`), cases...), append([]byte(","), head[1:]...)...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{cp, late} {
		for range 20 {
			fw := &failWriter{w: io.Discard, left: r.IntN(len(whole))}
			out := func(fill func(io.Writer) error) error { return fill(fw) }
			_, err := CompareJSON(out, false, bp, "--compare", path, "none")
			var in *diag.InputError
			if !errors.Is(err, errDiskFull) || errors.As(err, &in) || !strings.HasPrefix(err.Error(), "write comparison: ") {
				t.Fatalf("%s: a failing output: %T %v; want write comparison: disk full, not an input error", path, err, err)
			}
		}
	}
}
