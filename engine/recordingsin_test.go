package engine

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"syscall"
	"testing"
)

// TestRecordingsInIsTheGlobs: a cassette directory is listed from one read
// (recordingsIn), and must list exactly what the three globs it replaced
// listed (dir/*.json, dir/*.jsonl, dir/*.eval, together, sorted). Drawn
// directories (their own names with glob metacharacters, which the globs
// escaped) hold drawn entries: the three suffixes, near misses (.JSON,
// .json.bak, .jsonlx, json without its dot, .eva), hidden names, names
// that are only the suffix, names with spaces, brackets, stars and
// non-ASCII letters, and subdirectories whose names end in a suffix.
func TestRecordingsInIsTheGlobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 31))
	stems := []string{"a", "run 1", "[x]", "*", "q?", "é", ".hidden", "", "b-2", "{c}"}
	ends := []string{".json", ".jsonl", ".eval", ".JSON", ".json.bak", ".jsonlx", "json", ".eva", ".yml", ""}
	dirs := []string{"cassettes", "with [brackets]", "star*dir", "q?mark", "plain"}
	for d := range 40 {
		root := t.TempDir()
		dir := filepath.Join(root, dirs[rng.IntN(len(dirs))])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for range rng.IntN(60) {
			name := stems[rng.IntN(len(stems))] + ends[rng.IntN(len(ends))]
			if name == "" || name == "." {
				continue
			}
			path := filepath.Join(dir, name)
			var err error
			if rng.IntN(8) == 0 {
				err = os.MkdirAll(path, 0o755)
			} else {
				err = os.WriteFile(path, []byte("{}"), 0o644)
			}
			if err != nil && !os.IsExist(err) && !errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, syscall.EISDIR) {
				t.Fatal(err) // a name drawn twice, once a file and once a directory, keeps the first
			}
		}
		var want []string
		for _, pat := range []string{"*.json", "*.jsonl", "*.eval"} {
			m, err := filepath.Glob(filepath.Join(globEscape(dir), pat))
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, m...)
		}
		sort.Strings(want)
		if got := recordingsIn(dir); !reflect.DeepEqual(got, want) {
			t.Fatalf("directory %d (%q): one read lists\n%q\nthe globs\n%q", d, dir, got, want)
		}
	}
	if got := recordingsIn(filepath.Join(t.TempDir(), "absent")); got != nil {
		t.Errorf("a directory that cannot be read lists %q", got)
	}
}
