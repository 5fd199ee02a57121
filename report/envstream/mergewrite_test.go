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
	"regexp"
	"slices"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// renameOut is Merge's out for a file written by rename, in memory: fill
// writes a new buffer each call, which becomes the output only when fill
// succeeds. failAt > 0 fails the writer's writes past that many bytes.
type renameOut struct {
	got    []byte
	calls  int
	failAt int
}

func (o *renameOut) out(fill func(io.Writer) error) error {
	o.calls++
	var buf bytes.Buffer
	w := io.Writer(&buf)
	if o.failAt > 0 {
		w = &failWriter{w: &buf, left: o.failAt}
	}
	if err := fill(w); err != nil {
		return err
	}
	o.got = buf.Bytes()
	return nil
}

// failWriter writes through to w until left bytes were written, then
// fails with errDiskFull (the bytes that still fit written first).
type failWriter struct {
	w    io.Writer
	left int
}

var errDiskFull = errors.New("no space left on device")

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n, _ := f.w.Write(p[:f.left])
		f.left = 0
		return n, errDiskFull
	}
	f.left -= len(p)
	return f.w.Write(p)
}

// mergeFilesBytes is the envelope MergeFiles gives under run id id, or
// its error.
func mergeFilesBytes(paths []string, id string) ([]byte, error) {
	m, err := MergeFiles(paths)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	m.Env.Run.ID = id
	var b bytes.Buffer
	err = m.Write(&b)
	return b.Bytes(), err
}

// forge is one way a drawn merge's inputs are changed before it.
type forge int

const (
	honest       forge = iota
	totalsWrong        // a shard's head counts other totals than its cases
	verdictWrong       // a shard's head says another verdict
	floorFails         // every case passes, the suite floor fails the merged run
	casesFirst         // a shard puts its cases before its head
	suiteOther         // a shard of another suite
	givenTwice         // a shard given twice
	foreignCase        // a shard holding another shard's case
	unsorted           // a shard's cases out of suite order
	forges
)

var forgeNames = []string{"honest", "totals", "verdict", "floor", "cases first", "suite", "twice", "foreign", "unsorted"}

// rewritten is whether a merge of inputs so forged is written twice: its
// head is not the one its inputs' heads predict, or it is not in suite
// order (an input's head that does not merge is not predicted at all).
var rewritten = map[forge]bool{totalsWrong: true, verdictWrong: true, floorFails: true, casesFirst: true, suiteOther: true, unsorted: true}

// TestMergeWrittenIsMergeFiles draws suites, shard counts and a forge of
// their shards, and merges them with Merge writing as it merges (the
// output a file written by rename) and without (standard output), and
// with MergeFiles: the same bytes, or the same error word for word with
// nothing written; written twice (errRewrite) exactly when the head
// predicted from the shards' heads is not the merged one, never for the
// shards a run writes. A writer that fails, an output that does not open
// and one whose rename fails give "write merged envelope: " and their
// error, after the merge's own error if it has one.
func TestMergeWrittenIsMergeFiles(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 29))
	seen := map[forge]int{}
	for round := range 90 {
		f := forge(round % int(forges))
		paths, what := drawMerge(t, r, round, f)
		if paths == nil {
			continue
		}
		checkMergeWritten(t, r, paths, fmt.Sprintf("run-%d", round), what, f)
		seen[f]++
	}
	for f := range forges {
		if seen[f] == 0 {
			t.Errorf("no round of %s", forgeNames[f])
		}
	}
}

// drawMerge writes the shards of a drawn suite, forged as f says, and
// returns the paths to merge (none when the draw cannot be so forged).
func drawMerge(t *testing.T, r *rand.Rand, round int, f forge) (paths []string, what string) {
	t.Helper()
	n := 1 + r.IntN(160)
	if f == foreignCase || f == unsorted || f == givenTwice {
		n = 20 + r.IntN(140)
	}
	shards := 1 + r.IntN(6)
	if f == foreignCase {
		shards = 2 + r.IntN(5)
	}
	env := genEnvelope(r, n, fmt.Sprintf("round %d", round))
	if f == floorFails || f == verdictWrong {
		// No case fails: the floor alone decides the verdict, failing
		// (a case with a failed run) or passing (shard 0 then says
		// fail).
		for _, c := range env.Cases {
			c.Verdict = report.Pass
		}
		env.Cases[0].Counts["reliability.runs"], env.Cases[0].Counts["reliability.passed_runs"] = 4, 0
		env.Floors[0].Matcher = map[string]any{">=": map[forge]int{floorFails: 100, verdictWrong: 0}[f]}
		env.Summarize(expr.JudgeFloor)
		env.Tally()
	}
	dir := t.TempDir()
	sh := shardsOf(env, shards)
	if f == foreignCase {
		from := slices.IndexFunc(sh[1:], func(e *report.Envelope) bool { return len(e.Cases) > 0 }) + 1
		if from == 0 {
			return nil, ""
		}
		sh[0].Cases = append(sh[0].Cases, sh[from].Cases[0])
		sortCases(sh[0].Cases)
	}
	for i, e := range sh {
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		writeEnv(t, p, e)
		if i == 0 {
			forgeFile(t, r, p, f)
		}
		paths = append(paths, p)
	}
	if f == givenTwice {
		paths = append(paths, paths[0])
	}
	return paths, fmt.Sprintf("round %d (%s, %d cases, %d shards)", round, forgeNames[f], n, shards)
}

// checkMergeWritten merges paths with Merge by rename, not by rename and
// with a writer that fails, and holds each to MergeFiles.
func checkMergeWritten(t *testing.T, r *rand.Rand, paths []string, id, what string, f forge) {
	t.Helper()
	want, wantErr := mergeFilesBytes(paths, id)
	before := rewrites.Load()
	var o renameOut
	env, err := Merge(paths, id, true, o.out)
	again := rewrites.Load() > before
	switch {
	case wantErr != nil:
		if err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("%s: Merge: %v, MergeFiles: %v", what, err, wantErr)
		}
		if o.got != nil {
			t.Fatalf("%s: a merge that failed wrote %d bytes", what, len(o.got))
		}
	case err != nil:
		t.Fatalf("%s: %v", what, err)
	case !bytes.Equal(o.got, want):
		t.Fatalf("%s: written as it merges, %d bytes, not MergeFiles' %d", what, len(o.got), len(want))
	case env.Run.ID != id || env.Totals.Total != countCases(t, want):
		t.Fatalf("%s: head %+v", what, env.Run)
	case again != rewritten[f]:
		t.Fatalf("%s: written again %v, want %v", what, again, rewritten[f])
	case o.calls != writes(again, f):
		t.Fatalf("%s: out called %d times", what, o.calls)
	}
	var plain renameOut
	if _, err := Merge(paths, id, false, plain.out); fmt.Sprint(err) != fmt.Sprint(wantErr) || !bytes.Equal(plain.got, want) || plain.calls > 1 {
		t.Fatalf("%s: not by rename: %v, %d bytes, %d calls", what, err, len(plain.got), plain.calls)
	}
	// A writer that fails: the merge's own error first, else the write's.
	failing := renameOut{failAt: 1 + r.IntN(max(1, len(want)))}
	_, err = Merge(paths, id, true, failing.out)
	switch {
	case wantErr != nil && fmt.Sprint(err) != wantErr.Error():
		t.Fatalf("%s: a failing writer: %v, want %v", what, err, wantErr)
	case wantErr == nil && (err == nil || !errors.Is(err, errDiskFull) || !regexp.MustCompile(`^write merged envelope: `).MatchString(err.Error())):
		t.Fatalf("%s: a failing writer: %v", what, err)
	}
	checkMergeOutErrors(t, paths, id, what, wantErr)
}

// checkMergeOutErrors merges paths by rename with an output that does not
// open (fill never called) and one that fails once fill succeeded (its
// rename): the merge's own error first (wantErr), else "write merged
// envelope: " and the output's.
func checkMergeOutErrors(t *testing.T, paths []string, id, what string, wantErr error) {
	t.Helper()
	for _, o := range []struct {
		name string
		err  error
		fill bool
	}{{"an output that does not open", errNoOpen, false}, {"an output whose rename fails", errRename, true}} {
		_, err := Merge(paths, id, true, func(fill func(io.Writer) error) error {
			if o.fill {
				if err := fill(io.Discard); err != nil {
					return err
				}
			}
			return o.err
		})
		switch {
		case wantErr != nil && fmt.Sprint(err) != wantErr.Error():
			t.Fatalf("%s: %s: %v, want %v", what, o.name, err, wantErr)
		case wantErr == nil && (!errors.Is(err, o.err) || err.Error() != "write merged envelope: "+o.err.Error()):
			t.Fatalf("%s: %s: %v", what, o.name, err)
		}
	}
}

var (
	errNoOpen = errors.New("open merged.json: permission denied")
	errRename = errors.New("rename merged.json: no such file or directory")
)

// writes is how many times a merge that succeeds calls out: once, or
// twice when the head it predicted was not the merged one (a head that
// does not precede its cases predicts none, and the merge is written
// once, as MergeFiles writes it).
func writes(again bool, f forge) int {
	if again && f != casesFirst {
		return 2
	}
	return 1
}

// countCases is the number of cases of an envelope's JSON.
func countCases(t *testing.T, data []byte) int {
	t.Helper()
	env, err := report.Read(bytes.NewReader(data), "merged")
	if err != nil {
		t.Fatal(err)
	}
	return len(env.Cases)
}

func sortCases(cs []*report.CaseResult) {
	slices.SortStableFunc(cs, func(a, b *report.CaseResult) int {
		if positionLess(a.Position, b.Position) {
			return -1
		}
		if positionLess(b.Position, a.Position) {
			return 1
		}
		return 0
	})
}

// forgeFile changes the shard envelope at path as f says.
func forgeFile(t *testing.T, r *rand.Rand, path string, f forge) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch f {
	case totalsWrong:
		data = regexp.MustCompile(`"(total|passed|failed)": \d+`).ReplaceAllFunc(data, func(b []byte) []byte {
			return fmt.Appendf(nil, "%s %d", bytes.SplitN(b, []byte(" "), 2)[0], 1000+r.IntN(9))
		})
	case verdictWrong: // no case fails, and no floor
		data = bytes.Replace(data, []byte(`"verdict": "pass"`), []byte(`"verdict": "fail"`), 1)
	case casesFirst:
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if data, err = json.Marshal(m); err != nil { // keys sorted: "cases" before "run"
			t.Fatal(err)
		}
	case suiteOther:
		data = bytes.Replace(data, []byte(`"sha256": "abc"`), []byte(`"sha256": "abd"`), 1)
	case unsorted:
		var env report.Envelope
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatal(err)
		}
		if len(env.Cases) > 1 {
			slices.Reverse(env.Cases)
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&env); err != nil {
			t.Fatal(err)
		}
		data = b.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
