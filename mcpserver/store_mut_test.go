package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// storedEnvelope is a run envelope with the id and start time given.
func storedEnvelope(id, started string) string {
	return `{"schema_version":1,"run":{"id":"` + id + `","started_at":"` + started + `"},"verdict":"pass","cases":[]}`
}

// TestStoreRunsGenerated draws stores of run envelopes (in .mcptest/ or
// where MCPTEST_DIR says, relative or absolute; start times that tie now
// and then, files at any depth, a run copied now and then) among files
// that are not runs (an envelope under a name that does not end in .json,
// a directory named x.json, a member of the wrong type, no runs directory
// at all) and holds the artifact readers to their rules: list_runs gives
// every run and only them, newest first then by id (copies of one run in
// the order of their paths), each by its path from the workspace root, at
// most its limit (20 when none is given); get_run of each id gives that
// run and needs an id; the latest run is the first listed; an unknown
// id's error names the five latest at most.
func TestStoreRunsGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 42))
	for round := range 60 {
		root := t.TempDir()
		dirEnv, ids, paths := drawStore(t, r, root)
		_, s := newServer(Options{Root: root, Getenv: func(k string) string { return map[string]string{StoreEnv: dirEnv}[k] }})
		checkListRuns(t, round, s, r.IntN(len(ids)+2), ids, paths)
		env, err := s.findRun("")
		if len(ids) == 0 {
			if err == nil || !strings.Contains(err.Error(), "no runs in .mcptest/runs yet") {
				t.Fatalf("round %d: the latest of no runs: %v", round, err)
			}
		} else if err != nil || env.Run.ID != ids[0] {
			t.Fatalf("round %d: the latest run: %v, want %s", round, err, ids[0])
		}
		for _, id := range ids {
			got, err := s.getRun(context.Background(), runIn{RunID: id})
			if env, ok := got.(*report.Envelope); err != nil || !ok || env.Run.ID != id {
				t.Fatalf("round %d: get_run %s: %v", round, id, err)
			}
		}
		if _, err := s.getRun(context.Background(), runIn{}); err == nil || !strings.Contains(err.Error(), "run_id is required") {
			t.Fatalf("round %d: get_run without an id: %v", round, err)
		}
		latest := ids[:min(5, len(ids))]
		if _, err := s.findRun("01NONE"); err == nil || !strings.HasSuffix(err.Error(), "(latest: "+strings.Join(latest, ", ")+")") {
			t.Fatalf("round %d: an unknown run: %v, want the latest %v", round, err, latest)
		}
	}
}

// drawStore writes a drawn store of runs in the workspace root for
// TestStoreRunsGenerated and returns MCPTEST_DIR ("" for .mcptest/), the
// ids of its runs in the order list_runs gives them, and their paths from
// the root.
func drawStore(t *testing.T, r *rand.Rand, root string) (string, []string, []string) {
	t.Helper()
	store, dirEnv := filepath.Join(root, ".mcptest"), ""
	switch r.IntN(4) {
	case 0:
		dirEnv = "elsewhere/store"
		store = filepath.Join(root, dirEnv)
	case 1:
		dirEnv = t.TempDir()
		store = dirEnv
	}
	runs := filepath.Join(store, "runs")
	if err := os.MkdirAll(filepath.Join(store, "cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(rel, text string) {
		p := filepath.Join(runs, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type run struct{ id, started, path string }
	var want []run
	if r.IntN(8) > 0 {
		for i := range r.IntN(25) {
			id := fmt.Sprintf("01R%03d%c", r.IntN(1000), 'A'+rune(i))
			started := fmt.Sprintf("2026-11-30T00:00:%02dZ", r.IntN(6))
			dir := []string{"", "a", "a/b"}[r.IntN(3)]
			copies := []string{dir}
			if r.IntN(4) == 0 {
				// The same run copied: listed in the order of the paths.
				copies = append(copies, "c")
			}
			for _, dir := range copies {
				write(filepath.Join(dir, id+".json"), storedEnvelope(id, started))
				rel, _ := filepath.Rel(root, filepath.Join(runs, dir, id+".json"))
				want = append(want, run{id, started, filepath.ToSlash(rel)})
			}
		}
		write("pending.json.tmp", storedEnvelope("01TMP", "2026-11-30T00:00:09Z"))
		write("typed.json", `{"schema_version":1,"run":{"id":"01TYPED","started_at":"2026-11-30T00:00:09Z","duration_ms":"x"},"verdict":"pass","cases":[]}`)
		if err := os.MkdirAll(filepath.Join(runs, "dir.json"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(want, func(a, b run) int {
		if a.started != b.started {
			return strings.Compare(b.started, a.started)
		}
		if a.id != b.id {
			return strings.Compare(b.id, a.id)
		}
		return strings.Compare(a.path, b.path)
	})
	var ids, paths []string
	for _, w := range want {
		ids, paths = append(ids, w.id), append(paths, w.path)
	}
	return dirEnv, ids, paths
}

// checkListRuns holds list_runs with limit to the runs of ids, at their
// paths.
func checkListRuns(t *testing.T, round int, s *server, limit int, ids, paths []string) {
	t.Helper()
	got, _ := s.listRuns(context.Background(), listRunsIn{Limit: limit})
	var listed struct {
		Runs []struct {
			RunID string `json:"run_id"`
			Path  string
		}
		Total int
	}
	b, _ := json.Marshal(got)
	if err := json.Unmarshal(b, &listed); err != nil {
		t.Fatal(err)
	}
	if limit == 0 {
		limit = 20
	}
	shown := min(len(ids), limit)
	var gotIDs, gotPaths []string
	for _, x := range listed.Runs {
		gotIDs, gotPaths = append(gotIDs, x.RunID), append(gotPaths, x.Path)
	}
	if listed.Total != len(ids) || !slices.Equal(gotIDs, ids[:shown]) || !slices.Equal(gotPaths, paths[:shown]) {
		t.Fatalf("round %d: list_runs limit %d: %d %v %v, want %d %v %v", round, limit, listed.Total, gotIDs, gotPaths, len(ids), ids[:shown], paths[:shown])
	}
}

// TestCoverageKindsGenerated draws runs of cases of drawn kinds and
// verdicts and holds get_coverage's kinds to them: one entry a kind, in
// the order the kinds first appear, with its total and its passed,
// failed and inconclusive counts.
func TestCoverageKindsGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 168))
	kinds := []string{"tool", "agent", "scenario", "compliance"}
	verdicts := []string{"pass", "fail", "inconclusive"}
	type count struct {
		Kind                                string
		Total, Passed, Failed, Inconclusive int
	}
	for round := range 40 {
		root := t.TempDir()
		var cases []string
		var want []count
		at := map[string]int{}
		for i := range r.IntN(12) {
			k, v := kinds[r.IntN(len(kinds))], r.IntN(3)
			cases = append(cases, fmt.Sprintf(`{"name":"c%d","kind":%q,"verdict":%q}`, i, k, verdicts[v]))
			j, ok := at[k]
			if !ok {
				j, at[k] = len(want), len(want)
				want = append(want, count{Kind: k})
			}
			want[j].Total++
			*[]*int{&want[j].Passed, &want[j].Failed, &want[j].Inconclusive}[v]++
		}
		runs := filepath.Join(root, ".mcptest", "runs")
		text := `{"schema_version":1,"run":{"id":"01COV","started_at":"2026-11-30T00:00:00Z"},"verdict":"pass","cases":[` + strings.Join(cases, ",") + `]}`
		if err := os.MkdirAll(runs, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(runs, "01COV.json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, s := newServer(Options{Root: root, Getenv: func(string) string { return "" }})
		got, err := s.getCoverage(context.Background(), coverageIn{})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		var out struct{ Kinds []count }
		b, _ := json.Marshal(got)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = []count{}
		}
		if !slices.Equal(out.Kinds, want) {
			t.Fatalf("round %d: kinds %+v, want %+v", round, out.Kinds, want)
		}
	}
}

// TestListCassettesGenerated draws workspaces of cassettes among other
// JSON files (a recording in another format, which cassette.Read takes
// but is not a cassette of mcptest's own) at drawn places, some in the
// directories the walk never enters (.git, node_modules, vendor and the
// store's runs), and holds list_cassettes to them: every cassette outside
// those, by its path, and nothing else.
func TestListCassettesGenerated(t *testing.T) {
	cassetteText, err := os.ReadFile("../cassette/testdata/ok/v1_minimal.json")
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile("../cassette/testdata/ok/anthropic_message_response.json")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(40, 217))
	dirs := []string{"", "a", "a/b", ".git", "a/node_modules", "vendor", ".mcptest/runs", ".mcptest", "runs", "x/.mcptest/runs", "x/runs"}
	skipped := map[string]bool{".git": true, "a/node_modules": true, "vendor": true, ".mcptest/runs": true, "x/.mcptest/runs": true}
	for round := range 40 {
		root := t.TempDir()
		var want []string
		for i := range 1 + r.IntN(8) {
			dir := dirs[r.IntN(len(dirs))]
			name := path.Join(dir, fmt.Sprintf("c%d.json", i))
			text := cassetteText
			if r.IntN(3) == 0 {
				text = other
			} else if !skipped[dir] {
				want = append(want, name)
			}
			if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(dir)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), text, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(want)
		_, s := newServer(Options{Root: root, Getenv: func(string) string { return "" }})
		got, err := s.listCassettes(context.Background(), struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range got.(struct {
			Cassettes []cassetteSummary `json:"cassettes"`
			Notes     []string          `json:"notes"`
		}).Cassettes {
			names = append(names, c.Name)
		}
		slices.Sort(names)
		if !slices.Equal(names, want) {
			t.Fatalf("round %d: listed %v, want %v", round, names, want)
		}
	}
}

// TestListCassettesStopsAtItsBound: the walk reads at most 5,000 JSON
// files: a workspace of exactly that many lists its last cassette with no
// note, one more file stops it before the last with a note.
func TestListCassettesStopsAtItsBound(t *testing.T) {
	cassetteText, err := os.ReadFile("../cassette/testdata/ok/v1_minimal.json")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for i := range 4999 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%04d.json", i)), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "z.json"), cassetteText, 0o644); err != nil {
		t.Fatal(err)
	}
	_, s := newServer(Options{Root: root, Getenv: func(string) string { return "" }})
	for _, extra := range []bool{false, true} {
		if extra {
			if err := os.WriteFile(filepath.Join(root, "a.json"), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := s.listCassettes(context.Background(), struct{}{})
		b, _ := json.Marshal(got)
		want := `{"cassettes":[{"name":"z.json","runs":0,"bytes":` + fmt.Sprint(len(cassetteText)) + `}],"notes":[]}`
		if extra {
			want = `{"cassettes":[],"notes":["stopped after 5000 JSON files"]}`
		}
		if string(b) != want {
			t.Errorf("5000 JSON files, one more %v: %s, want %s", extra, b, want)
		}
	}
}
