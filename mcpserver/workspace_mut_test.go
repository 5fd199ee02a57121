package mcpserver

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStoreDefaultBounds: a Store's bounds of 0 or less are the defaults,
// so a save keeps every run and cache entry under them, its own run
// included.
func TestStoreDefaultBounds(t *testing.T) {
	for _, keep := range []int{-1, 0, 1, 7} {
		want := keep
		if keep <= 0 {
			want = DefaultKeepRuns
		}
		if got := (Store{KeepRuns: keep}).keepRuns(); got != want {
			t.Errorf("KeepRuns %d: keeps %d runs, want %d", keep, got, want)
		}
	}
	store := t.TempDir()
	cache := filepath.Join(store, "cache")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(cache, fmt.Sprintf("%064d.json", i)), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := Store{Getenv: func(k string) string { return map[string]string{StoreEnv: store}[k] }}
	for i := range 3 {
		id := fmt.Sprintf("01C%023d", i)
		if err := st.SaveRun(id, func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }); err != nil {
			t.Fatal(err)
		}
	}
	for dir, want := range map[string]int{"runs": 3, "cache": 3} {
		if entries, _ := os.ReadDir(filepath.Join(store, dir)); len(entries) != want {
			t.Errorf("%s: %d entries kept, want %d", dir, len(entries), want)
		}
	}
}

// TestSaveRunAheadWarns: the wait SaveRunAhead returns warns when the run
// could not be stored, and says nothing when it was.
func TestSaveRunAheadWarns(t *testing.T) {
	good := t.TempDir()
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, warns := range map[string]bool{good: false, blocked: true} {
		var warn strings.Builder
		st := Store{Getenv: func(k string) string { return map[string]string{StoreEnv: dir}[k] }}
		st.SaveRunAhead("01D00000000000000000000000", func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }, &warn)()
		if got := strings.Contains(warn.String(), "mcptest: warning: the run was not stored in the workspace"); got != warns {
			t.Errorf("store %s: warned %q, want a warning %v", dir, warn.String(), warns)
		}
	}
}

// TestWholeEnvelopeAtTheCheckBound: a compact envelope (no "}" on a line
// of its own at its end) of exactly wholeCheckBytes is decoded and judged
// whole; one byte more is not whole, unread.
func TestWholeEnvelopeAtTheCheckBound(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		size  int
		whole bool
	}{{wholeCheckBytes - 1, true}, {wholeCheckBytes, true}, {wholeCheckBytes + 1, false}} {
		head := `{"schema_version":1,"pad":"`
		text := head + strings.Repeat("x", c.size-len(head)-2) + `"}`
		p := filepath.Join(dir, fmt.Sprintf("%d.json", c.size))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := wholeEnvelope(p); got != c.whole || len(text) != c.size {
			t.Errorf("a compact envelope of %d bytes: whole %v, want %v", len(text), got, c.whole)
		}
	}
}

// TestPruneCacheGenerated draws cache directories whose entries share
// write times now and then and holds pruneCache to its rule: it keeps the
// keep most recently written entries, the first names first among those
// written at the same time, and removes the others.
func TestPruneCacheGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 249))
	base := time.Now().Add(-24 * time.Hour).Truncate(time.Second)
	for round := range 60 {
		dir := t.TempDir()
		type entry struct {
			name string
			mod  time.Time
		}
		var es []entry
		for i := range r.IntN(12) {
			e := entry{fmt.Sprintf("%02d%c.json", r.IntN(100), 'a'+rune(i)), base.Add(time.Duration(r.IntN(3)) * time.Minute)}
			p := filepath.Join(dir, e.name)
			if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, e.mod, e.mod); err != nil {
				t.Fatal(err)
			}
			es = append(es, e)
		}
		keep := r.IntN(len(es) + 2)
		slices.SortFunc(es, func(a, b entry) int {
			if c := b.mod.Compare(a.mod); c != 0 {
				return c
			}
			return strings.Compare(a.name, b.name)
		})
		var want []string
		for _, e := range es[:min(keep, len(es))] {
			want = append(want, e.name)
		}
		slices.Sort(want)
		pruneCache(dir, keep)
		var got []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			got = append(got, e.Name())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: keep %d of %v: kept %v, want %v", round, keep, es, got, want)
		}
	}
}

// TestStoreFilesLeavesFreshTemps: listing a store directory removes the
// temporary files of writers killed over an hour ago and keeps those of a
// writer that may still be writing, whichever way they are named.
func TestStoreFilesLeavesFreshTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	for _, name := range []string{".01A.json.tmp-fresh", ".01A.json.tmp-old", "x.tmp", "old.tmp"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(name, "old") {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "01B.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := storeFiles(dir)
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if len(files) != 1 || files[0].Name() != "01B.json" || strings.Join(left, " ") != ".01A.json.tmp-fresh 01B.json x.tmp" {
		t.Errorf("listed %v, left %v", files, left)
	}
}
