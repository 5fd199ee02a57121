package engine

import (
	"sync"

	"github.com/mcptest/mcptest/cli"
	"github.com/mcptest/mcptest/report"
)

// Progress is how far a run has come, handed to Options.Progress as it
// goes: after each cassette file read, as a live case starts and after each
// case is kept.
type Progress struct {
	// Cases is the number of cases finished (kept, in suite order) of
	// CasesTotal, the run's; Failed is how many of them failed.
	Cases, CasesTotal, Failed int
	// Files is the number of cassette files read of FilesTotal, the run's;
	// both 0 for a run that reads none (a live suite).
	Files, FilesTotal int
	// Case and Server are the live case being computed and the server it
	// talks to; "" when the run is replaying cassettes.
	Case, Server string
}

// tracker counts a run's progress for Options.Progress; safe from any
// goroutine, and it calls the callback with one caller at a time.
type tracker struct {
	mu sync.Mutex
	p  Progress
	f  func(Progress)
}

func newTracker(f func(Progress), cases, files int) *tracker {
	return &tracker{f: f, p: Progress{CasesTotal: cases, FilesTotal: files}}
}

// file counts a cassette file read.
func (t *tracker) file() {
	t.update(func(p *Progress) { p.Files++ })
}

// start names the live case being computed, of the plan p; a replayed
// case is not named.
func (t *tracker) start(p *casePlan) {
	if p.replayed() || p.c == nil {
		return
	}
	server := liveServer(p.c)
	t.update(func(pr *Progress) { pr.Case, pr.Server = p.c.Name, server })
}

// done counts a case kept.
func (t *tracker) done(res *report.CaseResult) {
	t.update(func(p *Progress) {
		p.Cases++
		if res.Verdict == report.Fail {
			p.Failed++
		}
		p.Case, p.Server = "", ""
	})
}

func (t *tracker) update(change func(*Progress)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	change(&t.p)
	if t.f != nil {
		t.f(t.p)
	}
}

// liveServer is the server a live case talks to, "" when it talks to
// none (a catalog file, a model case).
func liveServer(c *Case) string {
	switch {
	case c.ToolTest != nil:
		return c.ToolTest.Server
	case c.Compliance != nil:
		return c.Compliance.Server
	case c.Quality != nil && c.Quality.Catalog == "":
		return c.Quality.Server
	}
	return ""
}

// Status is p as the progress line shows it (cli.Progress): the cases
// done, the failures, the fraction of the work (cassette files read and
// cases kept) and the live case in flight.
func (p Progress) Status() cli.Status {
	f := float64(p.Files+p.Cases) / float64(max(1, p.FilesTotal+p.CasesTotal))
	return cli.Status{Done: p.Cases, Total: p.CasesTotal, Failed: p.Failed, Fraction: f, Case: p.Case, Server: p.Server}
}
