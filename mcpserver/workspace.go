package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/internal/safefile"
)

// The workspace store is the directory mcptest run writes to and the
// mcp-server front door reads (list_runs, get_run): .mcptest/ in the
// working directory, or the directory MCPTEST_DIR names. Its layout:
//
//	.mcptest/runs/<run_id>.json   the envelope of every mcptest run (run ids sort by time)
//	.mcptest/cache/<key>.json     cached case results (see engine.DirCache)
//
// Every file is written to a temporary file in the same directory and
// renamed, so a run killed half way leaves no truncated file. The store is
// bounded: after each run it keeps the newest keepRuns envelopes and
// keepCache cache entries, so a workspace that runs mcptest on every save
// does not grow without end, and it removes what its readers could not use
// (a file that is not whole JSON, a link, a FIFO).
const StoreEnv = "MCPTEST_DIR"

// The store's default bounds (Store.KeepRuns, Store.KeepCache).
const (
	DefaultKeepRuns  = 200
	DefaultKeepCache = engine.CacheKeep
)

// Store is the workspace store as mcptest run writes it, in the working
// directory (or where MCPTEST_DIR says); the front door reads the same
// layout from its workspace root.
type Store struct {
	// Getenv reads MCPTEST_DIR.
	Getenv func(string) string
	// KeepRuns and KeepCache bound the store after each run; 0 is the
	// default.
	KeepRuns, KeepCache int
	// pruned is closed once the runs were bounded ahead of the run's save
	// (PruneAhead); nil when the save bounds them after its write.
	pruned chan struct{}
}

// runReadLimit bounds the read of a stored envelope when pruning checks
// that it is whole; a larger file is kept unread (mcptest may have written
// it) and counted like any other.
const runReadLimit = 64 << 20

// Dir returns a directory of the workspace store (runs, cache, reports). It
// refuses one whose path passes through a symbolic link inside the default
// .mcptest/: a repository can commit .mcptest/cache as a link to any
// directory, and the store writes and prunes where it points. A store that
// MCPTEST_DIR names is taken as named; its subdirectories are checked.
func (s Store) Dir(name string) (string, error) {
	root := s.Getenv(StoreEnv)
	var check []string
	if root == "" {
		root = ".mcptest"
		check = append(check, root)
	}
	dir := filepath.Join(root, name)
	for _, p := range append(check, dir) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symbolic link: the workspace store keeps its files in a directory of its own (set %s to put the store elsewhere)", p, StoreEnv)
		}
	}
	return dir, nil
}

// SaveRun writes the envelope of run id, as write produces it, to
// .mcptest/runs/<id>.json, by rename, then bounds the store. Its error
// says why the run was not stored; a caller warns of it (a store that
// cannot be written costs a warning, never the run's verdict).
func (s Store) SaveRun(id string, write func(io.Writer) error) error {
	return s.saveRun(id, write)
}

// SaveRunAhead is SaveRun on a goroutine of its own, beside the caller's
// own writes (a run's report), and returns what waits for it; a store
// that cannot be written is a warning on warn, never the run's verdict.
func (s Store) SaveRunAhead(id string, write func(io.Writer) error, warn io.Writer) (wait func()) {
	done := make(chan error, 1)
	go func() { done <- s.saveRun(id, write) }()
	return func() {
		if err := <-done; err != nil {
			fmt.Fprintf(warn, "mcptest: warning: the run was not stored in the workspace: %v\n", err)
		}
	}
}

// PruneAhead bounds the stored runs for a run that will be saved with the
// Store it returns (SaveRunAhead), beside the run rather than after it:
// on a goroutine of its own, from now on, it keeps the newest KeepRuns - 1
// whole envelopes (pruneRuns), so the run's own makes KeepRuns, as a
// prune after the save leaves them. The save waits for it and does not
// prune the runs again; Settle waits for it when no save follows (a run
// that failed). Reading each kept envelope's ends and removing the oldest
// took 6 to 9 ms after a run of 2,000 transcripts with 200 runs stored,
// on one goroutine, after the run.
func (s Store) PruneAhead() Store {
	s.pruned = make(chan struct{})
	go func() {
		defer close(s.pruned)
		if dir, err := s.Dir("runs"); err == nil {
			pruneRuns(dir, s.keepRuns()-1)
		}
	}()
	return s
}

// Settle waits for the prune PruneAhead started, if any.
func (s Store) Settle() {
	if s.pruned != nil {
		<-s.pruned
	}
}

// keepRuns is how many runs the store keeps.
func (s Store) keepRuns() int {
	if s.KeepRuns <= 0 {
		return DefaultKeepRuns
	}
	return s.KeepRuns
}

func (s Store) saveRun(id string, write func(io.Writer) error) error {
	keepCache := s.KeepCache
	if keepCache <= 0 {
		keepCache = DefaultKeepCache
	}
	s.Settle() // the runs bounded ahead first: this run is never pruned
	dir, err := s.Dir("runs")
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = safefile.Write(filepath.Join(dir, id+".json"), 0o644, write)
	}
	if dir != "" && s.pruned == nil {
		pruneRuns(dir, s.keepRuns())
	}
	if cache, err := s.Dir("cache"); err == nil {
		pruneCache(cache, keepCache)
	}
	return err
}

// pruneRuns keeps the newest keep whole envelopes of dir (run ids sort by
// time) and removes the rest: older envelopes, and any .json file that is
// not a whole envelope (a run file an older mcptest was killed while
// writing; see wholeEnvelope) or not a regular file.
func pruneRuns(dir string, keep int) {
	files := storeFiles(dir)
	sort.Slice(files, func(i, j int) bool { return files[i].Name() > files[j].Name() })
	kept := 0
	for _, e := range files {
		p := filepath.Join(dir, e.Name())
		if kept < keep && wholeEnvelope(p) {
			kept++
			continue
		}
		os.Remove(p)
	}
}

// wholeEnvelope reports whether the stored file at p is a whole envelope.
// It is judged by its ends first: a file that opens with "{" and closes
// with a "}" on a line of its own (the top-level object's: every inner
// line of an envelope mcptest writes is indented) is whole, which a file
// cut short while being written is not (TestWholeEnvelopeDrawn), and only
// those bytes are read. Any other file of up to wholeCheckBytes is read
// and must be one JSON document (a compact envelope); a larger one is not
// whole. Pruning used to decode every kept envelope: after 200 runs of a
// 2,000-case suite, 600 MB read and parsed on every run, five times the
// run itself; after 200 runs of the quickstart, 200 files (3.5 MB), a
// third of its CPU. A file over runReadLimit is not judged. A file
// planted with those ends and other bytes between is kept: the store's
// readers (mcp-server's list_runs and get_run) decode every file bounded
// and pass over one that is not an envelope.
func wholeEnvelope(p string) bool {
	f, _, err := safefile.OpenOwn(p, runReadLimit)
	var tl *safefile.TooLargeError
	if errors.As(err, &tl) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	var head [1]byte
	var tail [3]byte
	if fi.Size() >= int64(len(head)+len(tail)) {
		_, err1 := f.ReadAt(head[:], 0)
		_, err2 := f.ReadAt(tail[:], fi.Size()-int64(len(tail)))
		if err1 == nil && err2 == nil && head[0] == '{' && string(tail[:]) == "\n}\n" {
			return true
		}
	}
	if fi.Size() > wholeCheckBytes {
		return false
	}
	data, err := safefile.ReadAll(p, f, wholeCheckBytes)
	return err == nil && json.Valid(data)
}

// wholeCheckBytes is the size up to which pruning decodes a stored
// envelope to judge it whole.
const wholeCheckBytes = 64 << 10

// pruneCache keeps the keep most recently written entries of the cache
// directory and removes the rest. An entry that is not whole is not read
// here: the cache refuses it when it is looked up and rewrites it.
func pruneCache(dir string, keep int) {
	files := storeFiles(dir)
	if len(files) <= keep {
		return
	}
	// Each entry's time is read once: reading it in the comparison was
	// two stat calls a comparison, 3.6 million for 110,000 entries.
	type entry struct {
		name string
		mod  time.Time
		ok   bool
	}
	es := make([]entry, len(files))
	for i, f := range files {
		es[i].name = f.Name()
		if info, err := f.Info(); err == nil {
			es[i].mod, es[i].ok = info.ModTime(), true
		}
	}
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if !a.ok || !b.ok || a.mod.Equal(b.mod) {
			return a.name < b.name
		}
		return a.mod.After(b.mod)
	})
	for _, e := range es[keep:] {
		os.Remove(filepath.Join(dir, e.name))
	}
}

// storeFiles lists the regular .json files of a store directory. On the
// way it removes what does not belong there: a .json entry that is not a
// regular file (a link, a FIFO, a device) and any temporary file a killed
// writer left behind more than an hour ago. Pruning is best effort: a file
// that cannot be removed stays.
func storeFiles(dir string) []os.DirEntry {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var files []os.DirEntry
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
		case strings.HasSuffix(name, ".json") && e.Type().IsRegular():
			files = append(files, e)
		case strings.HasSuffix(name, ".json"):
			os.Remove(filepath.Join(dir, name))
		case safefile.IsTemp(name) || strings.HasSuffix(name, ".tmp"):
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
				os.Remove(filepath.Join(dir, name))
			}
		}
	}
	return files
}
