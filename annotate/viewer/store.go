package viewer

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// MaxHistoryRuns bounds how many stored runs the viewer reads for a run
// list or a case's history, newest first.
const MaxHistoryRuns = 200

// runIDPattern is the shape of a run id (stamp.NewRunID): 26 Crockford
// base32 characters, so a run id never names a path outside the store.
var runIDPattern = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)

// Store is the workspace store as the viewer reads it: the envelope of
// every run at <runs>/<run id>.json, run ids sorting by time.
type Store struct {
	// Runs returns the store's runs directory. It is asked on each use, so
	// a run stored while the viewer is open shows up; an error means the
	// store cannot be used (it is a symbolic link, say).
	Runs func() (string, error)
	// Recorded reads a case's timelines again from its recordings for
	// every page and the snapshot (engine.RecordedEvidence); nil shows
	// what the envelopes hold.
	Recorded annotate.Recorded
}

// Pick returns the envelope view serves and a note saying which it is
// when the user did not name it: the one file of args (RUN.json), the
// stored run id, else the newest stored run. Two choices at once, a
// malformed id, an id that is not stored and an empty store are a
// *diag.InputError.
func (s Store) Pick(args []string, latest bool, id string) (path, note string, err error) {
	picked := 0
	for _, set := range []bool{len(args) > 0, latest, id != ""} {
		if set {
			picked++
		}
	}
	switch {
	case len(args) > 1:
		return "", "", input("view takes one run envelope (the file `mcptest run --reporter json` wrote), got %d arguments", len(args))
	case picked > 1:
		return "", "", input("give one of RUN.json, --latest and --run ID")
	case len(args) == 1:
		return args[0], "", nil
	case id != "" && !runIDPattern.MatchString(id):
		return "", "", input("--run %q: expected a run id (26 characters, as list_runs shows)", id)
	}
	dir, err := s.dir()
	if err != nil {
		return "", "", err
	}
	if id != "" {
		p := filepath.Join(dir, id+".json")
		if _, err := os.Stat(p); err != nil {
			return "", "", input("--run %s: no such run in %s", id, dir)
		}
		return p, "", nil
	}
	entries, _ := os.ReadDir(dir)
	for i := len(entries) - 1; i >= 0; i-- {
		if id, ok := storedID(entries[i]); ok {
			return filepath.Join(dir, entries[i].Name()), "the newest stored run, " + id, nil
		}
	}
	return "", "", input("no stored run in %s: run `mcptest run` first, or give RUN.json", dir)
}

// dir is the store's runs directory; a Store without Runs has none.
func (s Store) dir() (string, error) {
	if s.Runs == nil {
		return "", errors.New("no workspace store")
	}
	return s.Runs()
}

func input(format string, args ...any) error {
	return &diag.InputError{Err: fmt.Errorf(format, args...)}
}

// storedID is the run id of a stored envelope's directory entry, false
// for an entry that is not a regular file named <run id>.json.
func storedID(e os.DirEntry) (string, bool) {
	id, ok := strings.CutSuffix(e.Name(), ".json")
	return id, ok && e.Type().IsRegular() && runIDPattern.MatchString(id)
}

// Pages serves the viewer's pages over the store: /runs (the stored runs,
// newest first, with a picker comparing any two), /run/ID (a stored run's
// report), /compare?base=ID&head=ID (the head's report against the base)
// and /case?name=NAME (the case's history across the stored runs). The
// store is read on each request.
func (s Store) Pages() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/runs", func(w http.ResponseWriter, r *http.Request) {
		var runs []annotate.ViewerRun
		s.eachRun(func(env *report.Envelope) { runs = append(runs, annotate.ViewerRunOf(env)) })
		servePage(w, func(b *bytes.Buffer) error { return annotate.RunList(b, runs) })
	})
	mux.HandleFunc("/run/{id}", func(w http.ResponseWriter, r *http.Request) {
		env := s.run(r.PathValue("id"))
		if env == nil {
			http.NotFound(w, r)
			return
		}
		servePage(w, func(b *bytes.Buffer) error { return annotate.HTML{Viewer: "/", Recorded: s.Recorded}.Report(b, env) })
	})
	mux.HandleFunc("/compare", func(w http.ResponseWriter, r *http.Request) {
		base, head := s.run(r.URL.Query().Get("base")), s.run(r.URL.Query().Get("head"))
		if base == nil || head == nil {
			http.Error(w, "compare: give two stored run ids, base= and head= (see /runs)", http.StatusNotFound)
			return
		}
		cmp := baseline.Compare(base, head, baseline.Options{FailOn: baseline.FailOnRegressions})
		servePage(w, func(b *bytes.Buffer) error {
			return annotate.HTML{Viewer: "/", Comparison: cmp, Recorded: s.Recorded}.Report(b, head)
		})
	})
	mux.HandleFunc("/case", func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("name")
		if name == "" {
			http.Error(w, "case: give the case's name, name=", http.StatusNotFound)
			return
		}
		var runs []annotate.CaseInRun
		s.eachRun(func(env *report.Envelope) { runs = append(runs, caseIn(env, name)) })
		servePage(w, func(b *bytes.Buffer) error { return annotate.CaseHistory(b, name, runs) })
	})
	return mux
}

// caseIn is the case called name in the run env, its Case nil when the
// run does not have it.
func caseIn(env *report.Envelope, name string) annotate.CaseInRun {
	in := annotate.CaseInRun{Run: annotate.ViewerRunOf(env)}
	for _, cr := range env.Cases {
		if cr.Name == name {
			in.Case = cr
			break
		}
	}
	return in
}

// servePage renders a page and serves it, or answers 500 when it does not
// render.
func servePage(w http.ResponseWriter, render func(*bytes.Buffer) error) {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// runIDs lists the ids of the stored runs, newest first (run ids sort by
// time), at most MaxHistoryRuns.
func (s Store) runIDs() (dir string, ids []string) {
	dir, err := s.dir()
	if err != nil {
		return "", nil
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if id, ok := storedID(e); ok {
			ids = append(ids, id)
		}
	}
	slices.Reverse(ids)
	return dir, ids[:min(len(ids), MaxHistoryRuns)]
}

// eachRun reads the stored runs one at a time, newest first, and hands
// each to use; a run that does not read as an envelope is left out. Only
// what use keeps of a run stays in memory.
func (s Store) eachRun(use func(*report.Envelope)) {
	dir, ids := s.runIDs()
	for _, id := range ids {
		if env := read(filepath.Join(dir, id+".json")); env != nil {
			use(env)
		}
	}
}

// run reads the stored run id; nil when id is not a run id or no such run
// is stored.
func (s Store) run(id string) *report.Envelope {
	if !runIDPattern.MatchString(id) {
		return nil
	}
	dir, err := s.dir()
	if err != nil {
		return nil
	}
	return read(filepath.Join(dir, id+".json"))
}

// read reads a stored envelope, bounded; nil when it does not read.
func read(path string) *report.Envelope {
	env, err := baseline.ReadFile(path, "", report.Read)
	if err != nil {
		return nil
	}
	return env
}
