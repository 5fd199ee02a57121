package envstream

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report/envgen"
)

// breakHead makes the envelope at path one that does not open (a head
// the merge refuses before its first case) in the way kind names.
func breakHead(t *testing.T, path string, kind int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch kind {
	case 0: // no such file
		err = os.Remove(path)
	case 1: // a directory
		if err = os.Remove(path); err == nil {
			err = os.Mkdir(path, 0o755)
		}
	case 2: // a shard that is not i/n
		err = os.WriteFile(path, bytes.Replace(data, []byte(`"shard": "`), []byte(`"shard": "x`), 1), 0o644)
	case 3: // a head cut short before its cases
		err = os.WriteFile(path, data[:bytes.Index(data, []byte(`"cases"`))], 0o644)
	case 4: // a misplaced character in the head
		err = os.WriteFile(path, bytes.Replace(data, []byte(`"suite": {`), []byte(`"suite": [`), 1), 0o644)
	case 5: // not JSON
		err = os.WriteFile(path, []byte("shard\n"), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestMergeOpenErrorIsFirstInOrder: the inputs are opened at once, each
// on its goroutine, yet over drawn runs of 1 to 70 shards with one to
// four of them broken before their first case (missing, a directory, a
// shard that is not i/n, a head cut short, a misplaced character, not
// JSON, a path through a file) at drawn places, the merge's error is the one the first broken
// input in the order given makes merged alone, whichever opens first,
// an input error (exit 2) however it was broken; Merge, written by
// rename or not, gives the same error and writes nothing.
func TestMergeOpenErrorIsFirstInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 64))
	rounds := 40
	if testing.Short() {
		rounds = 12
	}
	for round := range rounds {
		dir := filepath.Join(t.TempDir(), fmt.Sprint(round))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		shards := 1 + r.IntN(70)
		rel, err := envgen.WriteSuite(dir, shards*(1+r.IntN(20)), shards)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, p := range rel {
			paths = append(paths, filepath.Join(dir, p))
		}
		first, broken := len(paths), map[int]bool{}
		breaks := 1 + r.IntN(4)
		if round == 0 {
			breaks = 1 // a path through a file alone (below)
		}
		for k := range breaks {
			i := r.IntN(len(paths))
			if broken[i] {
				continue
			}
			broken[i] = true
			kind := r.IntN(7)
			if round == 0 && k == 0 {
				kind = 6
			}
			if kind == 6 { // a path through a file: the open fails (not a directory), no envelope read
				paths[i] = filepath.Join(paths[i], "shard.json")
			} else {
				breakHead(t, paths[i], kind)
			}
			first = min(first, i)
		}
		_, alone := MergeFiles(paths[first : first+1])
		if alone == nil {
			t.Fatalf("round %d: %s merged alone", round, paths[first])
		}
		for range 3 {
			m, err := MergeFiles(paths)
			if m != nil {
				m.Close()
			}
			if err == nil || err.Error() != alone.Error() {
				t.Fatalf("round %d, %d shards, input %d broken first: got %v, want %v", round, shards, first, err, alone)
			}
			if !errors.As(err, new(*diag.InputError)) {
				t.Fatalf("round %d: %T is not an input error", round, err)
			}
		}
		// Merge, written as it merges (by rename) or not, the same.
		for _, byRename := range []bool{true, false} {
			var o renameOut
			_, err := Merge(paths, "id", byRename, o.out)
			if err == nil || err.Error() != alone.Error() || !errors.As(err, new(*diag.InputError)) || o.got != nil {
				t.Fatalf("round %d: Merge (by rename %v): %T %v, want the input error %v, nothing written", round, byRename, err, err, alone)
			}
		}
	}
}

// TestMergeFirstUnopenedProcess runs the built binary's `report merge`
// over 64 shard envelopes, two of them broken before their first case:
// it exits 2 naming the first in the order given, then, that one mended,
// the other; given a path through a file (its open fails in the file
// system), it exits 2 naming it too; and it merges once all are mended.
func TestMergeFirstUnopenedProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	paths, err := envgen.WriteSuite(dir, 3200, 64)
	if err != nil {
		t.Fatal(err)
	}
	keep := map[string][]byte{}
	for _, p := range []string{paths[9], paths[40]} {
		if keep[p], err = os.ReadFile(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	breakHead(t, filepath.Join(dir, paths[9]), 2)
	breakHead(t, filepath.Join(dir, paths[40]), 0)
	args := paths
	run := func() (string, error) {
		cmd := exec.Command(bin, append([]string{"report", "merge", "--output", "m.json"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		return stderr.String(), err
	}
	for _, want := range []string{paths[9] + ": run.shard", paths[40] + ": no such file"} {
		for range 3 {
			stderr, err := run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr, want) {
				t.Fatalf("%v\n%s\nwant exit 2 and %q", err, stderr, want)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
			t.Fatal("a merge that failed wrote its output")
		}
		p := paths[9]
		if strings.HasPrefix(want, paths[40]) {
			p = paths[40]
		}
		if err := os.WriteFile(filepath.Join(dir, p), keep[p], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An input whose open fails in the file system (a path through a
	// file): an input error too, exit 2, nothing written.
	args = slices.Clone(paths)
	args[55] = filepath.Join(paths[55], "shard.json")
	stderr, err := run()
	if exit := (*exec.ExitError)(nil); !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr, args[55]+": not a directory") {
		t.Fatalf("a path through a file: %v\n%s\nwant exit 2 naming it", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
		t.Fatal("a merge that failed wrote its output")
	}
	args = paths
	if stderr, err := run(); err != nil || !strings.Contains(stderr, "64 envelopes merged") {
		t.Fatalf("mended: %v\n%s", err, stderr)
	}
}
