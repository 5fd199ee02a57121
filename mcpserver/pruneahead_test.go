package mcpserver

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestPruneAheadIsSaveRun draws 300 stores (0 to 12 runs, some of them not
// whole envelopes, some not regular files, a bound of 1 to 8) and saves a
// new run into two copies of each: bounded ahead of the save
// (PruneAhead, then SaveRunAhead) and after it (SaveRun). The stores are
// left the same, file for file; and a run that bounds ahead and fails
// (Settle, no save) leaves the store's newest KeepRuns - 1 runs.
func TestPruneAheadIsSaveRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 7))
	for n := range 300 {
		keep := 1 + rng.IntN(8)
		var files []string
		var contents []string
		for i := range rng.IntN(13) {
			files = append(files, fmt.Sprintf("01A%023d.json", i))
			switch rng.IntN(5) {
			case 0:
				contents = append(contents, `{"run":`) // cut short
			case 1:
				contents = append(contents, "") // a directory named .json
			default:
				contents = append(contents, `{"schema_version":1}`)
			}
		}
		fill := func() (Store, string) {
			root := t.TempDir()
			runs := filepath.Join(root, "runs")
			if err := os.MkdirAll(runs, 0o755); err != nil {
				t.Fatal(err)
			}
			for i, f := range files {
				if contents[i] == "" {
					os.Mkdir(filepath.Join(runs, f), 0o755)
					continue
				}
				os.WriteFile(filepath.Join(runs, f), []byte(contents[i]), 0o644)
			}
			return Store{Getenv: func(k string) string { return map[string]string{StoreEnv: root}[k] }, KeepRuns: keep}, runs
		}
		names := func(dir string) []string {
			entries, _ := os.ReadDir(dir)
			var out []string
			for _, e := range entries {
				out = append(out, e.Name())
			}
			return out
		}
		env := &report.Envelope{SchemaVersion: report.SchemaVersion, Run: report.RunInfo{ID: "01B00000000000000000000000"}}
		write := func(w io.Writer) error { return json.NewEncoder(w).Encode(env) }

		after, afterDir := fill()
		if err := after.SaveRun(env.Run.ID, write); err != nil {
			t.Fatal(err)
		}
		ahead, aheadDir := fill()
		st := ahead.PruneAhead()
		st.SaveRunAhead(env.Run.ID, write, io.Discard)()
		st.Settle()
		if got, want := names(aheadDir), names(afterDir); !slices.Equal(got, want) {
			t.Fatalf("store %d (keep %d, %d files): bounded ahead %v, after the save %v", n, keep, len(files), got, want)
		}
		if !slices.Contains(names(aheadDir), env.Run.ID+".json") {
			t.Fatalf("store %d: the run saved is not kept", n)
		}

		failed, failedDir := fill()
		failed.PruneAhead().Settle()
		var got []string // the run files left (a directory is never pruned)
		for _, f := range names(failedDir) {
			if fi, err := os.Stat(filepath.Join(failedDir, f)); err == nil && fi.Mode().IsRegular() {
				got = append(got, f)
			}
		}
		if len(got) > keep-1 {
			t.Fatalf("store %d: %d runs left by a run that bounded ahead and failed, want at most %d: %s", n, len(got), keep-1, strings.Join(got, " "))
		}
	}
}
