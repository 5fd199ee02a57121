package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/engine/report"
)

// maxHistoryRuns bounds how many stored runs the viewer reads for a run
// list or a case's history, newest first (the store keeps keepRuns).
const maxHistoryRuns = 200

// storePages serves the viewer's pages over the workspace store: /runs
// (the stored runs, newest first, with a picker comparing any two),
// /run/ID (a stored run's report), /compare?base=ID&head=ID (the head's
// report against the base) and /case?name=NAME (the case's history across
// the stored runs). The store is read on each request, so a run stored
// while the viewer is open shows up.
func (c *Command) storePages() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/runs", func(w http.ResponseWriter, r *http.Request) {
		var runs []annotate.ViewerRun
		c.eachStoredRun(func(env *report.Envelope) { runs = append(runs, annotate.ViewerRunOf(env)) })
		c.servePage(w, func(b *bytes.Buffer) error { return annotate.RunList(b, runs) })
	})
	mux.HandleFunc("/run/{id}", func(w http.ResponseWriter, r *http.Request) {
		env := c.storedRun(r.PathValue("id"))
		if env == nil {
			http.NotFound(w, r)
			return
		}
		c.servePage(w, func(b *bytes.Buffer) error { return annotate.HTML{Viewer: "/"}.Report(b, env) })
	})
	mux.HandleFunc("/compare", func(w http.ResponseWriter, r *http.Request) {
		base, head := c.storedRun(r.URL.Query().Get("base")), c.storedRun(r.URL.Query().Get("head"))
		if base == nil || head == nil {
			http.Error(w, "compare: give two stored run ids, base= and head= (see /runs)", http.StatusNotFound)
			return
		}
		cmp := baseline.Compare(base, head, baseline.Options{FailOn: baseline.FailOnRegressions})
		c.servePage(w, func(b *bytes.Buffer) error { return annotate.HTML{Viewer: "/", Comparison: cmp}.Report(b, head) })
	})
	mux.HandleFunc("/case", func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("name")
		if name == "" {
			http.Error(w, "case: give the case's name, name=", http.StatusNotFound)
			return
		}
		var runs []annotate.CaseInRun
		c.eachStoredRun(func(env *report.Envelope) {
			in := annotate.CaseInRun{Run: annotate.ViewerRunOf(env)}
			for _, cr := range env.Cases {
				if cr.Name == name {
					in.Case = cr
					break
				}
			}
			runs = append(runs, in)
		})
		c.servePage(w, func(b *bytes.Buffer) error { return annotate.CaseHistory(b, name, runs) })
	})
	return mux
}

// servePage renders a page and serves it, or answers 500 when it does not
// render.
func (c *Command) servePage(w http.ResponseWriter, render func(*bytes.Buffer) error) {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// storedRunIDs lists the ids of the stored runs, newest first (run ids
// sort by time), at most maxHistoryRuns.
func (c *Command) storedRunIDs() (dir string, ids []string) {
	dir, err := c.storeDir("runs")
	if err != nil {
		return "", nil
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && e.Type().IsRegular() && runIDPattern.MatchString(id) {
			ids = append(ids, id)
		}
	}
	slices.Reverse(ids)
	return dir, ids[:min(len(ids), maxHistoryRuns)]
}

// eachStoredRun reads the stored runs one at a time, newest first, and
// hands each to use; a run that does not read as an envelope is left
// out. Only what use keeps of a run stays in memory.
func (c *Command) eachStoredRun(use func(*report.Envelope)) {
	dir, ids := c.storedRunIDs()
	for _, id := range ids {
		if env := c.readStored(filepath.Join(dir, id+".json")); env != nil {
			use(env)
		}
	}
}

// storedRun reads the stored run id; nil when id is not a run id or no
// such run is stored.
func (c *Command) storedRun(id string) *report.Envelope {
	if !runIDPattern.MatchString(id) {
		return nil
	}
	dir, err := c.storeDir("runs")
	if err != nil {
		return nil
	}
	return c.readStored(filepath.Join(dir, id+".json"))
}

func (c *Command) readStored(path string) *report.Envelope {
	env, err := c.readRun(path)
	if err != nil {
		return nil
	}
	return env
}
