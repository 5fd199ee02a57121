package engine

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// Recording is what the reader of one recording read of it, as `mcptest
// validate` reports it, so a user sees at once what a recording gives the
// gates and what it lost: a trace read without its calls, a log without
// its tokens.
type Recording struct {
	// File is the recording as the user named it, or as the suite names
	// it (relative to the working directory).
	File string `json:"file"`
	// Reader is the format it was read as (cassette.Format).
	Reader string `json:"reader"`
	Runs   int    `json:"runs"`
	Calls  int    `json:"calls"`
	// Results counts the calls whose result (or error) is recorded.
	Results int `json:"results"`
	// Tokens is the token usage the runs carry, nil when none does.
	Tokens *RecordingTokens `json:"tokens"`
	// Models are the models named, in order of first appearance.
	Models []string `json:"models"`
	// Answers counts the runs with a final response.
	Answers int `json:"answers"`
	// Agents are the agents named (the recording's, the calls',
	// delegations' ends), sorted.
	Agents []string `json:"agents"`
	// Warnings say what the reader had to guess (cassette.Cassette's).
	Warnings []string `json:"warnings"`
}

// RecordingTokens is the token usage of a recording: how many of its runs
// carry one, and their total.
type RecordingTokens struct {
	Runs  int   `json:"runs"`
	Total int64 `json:"total"`
}

// recordingTally accumulates a Recording from a cassette's runs.
type recordingTally struct {
	r      Recording
	agents map[string]bool
}

func newRecordingTally(file string) *recordingTally {
	return &recordingTally{r: Recording{File: file, Models: []string{}, Agents: []string{}}, agents: map[string]bool{}}
}

// cassette notes the provenance of c, seen with each run and once at the
// end.
func (t *recordingTally) cassette(c *cassette.Cassette) {
	if t.r.Reader == "" {
		t.r.Reader = string(c.Format)
	}
	// A label is cut as a case cuts it (maxLabelRunes): the report of a
	// recording is printed whole.
	if m := diag.Clip(c.Model, maxLabelRunes); m != "" && !contains(t.r.Models, m) {
		t.r.Models = append(t.r.Models, m)
	}
	t.agent(c.Agent)
}

func (t *recordingTally) agent(name string) {
	if name != "" {
		t.agents[diag.Clip(name, maxLabelRunes)] = true
	}
}

// run adds one run.
func (t *recordingTally) run(c *cassette.Cassette, r *cassette.Run) {
	t.cassette(c)
	t.r.Runs++
	for _, turn := range r.Turns {
		for _, call := range turn.Calls {
			t.r.Calls++
			if call.Result != nil || call.IsError {
				t.r.Results++
			}
			t.agent(call.Agent)
		}
	}
	if n := len(r.Turns); n > 0 && r.Turns[n-1].FinalResponse != "" {
		t.r.Answers++
	}
	for _, d := range r.Delegations {
		t.agent(d.From)
		t.agent(d.To)
	}
	if r.Tokens != nil {
		if t.r.Tokens == nil {
			t.r.Tokens = &RecordingTokens{}
		}
		t.r.Tokens.Runs++
		total := r.Tokens.Total
		if total == 0 {
			total = r.Tokens.Input + r.Tokens.Output
		}
		t.r.Tokens.Total += total
	}
}

// done returns the Recording, with the provenance of c, the cassette the
// reader returned.
func (t *recordingTally) done(c *cassette.Cassette) Recording {
	t.cassette(c)
	t.r.Warnings = append([]string{}, c.Warnings...)
	if t.r.Runs > 0 && t.r.Calls == 0 {
		t.r.Warnings = append(t.r.Warnings, NoCallsWarning)
	}
	for a := range t.agents {
		t.r.Agents = append(t.r.Agents, a)
	}
	sort.Strings(t.r.Agents)
	return t.r
}

// NoCallsWarning is the warning validate gives a recording whose runs
// hold no tool call: an agent test over it is inconclusive, not pass,
// unless the test says no_calls: true.
const NoCallsWarning = "no run holds a tool call: an agent test over this recording is inconclusive, not pass, " +
	"unless the test says `no_calls: true` (a recording read without its calls would pass every gate)"

// NoCalls reports whether r was read with runs and no tool call, and no
// test that reads it says no_calls: true.
func (r Recording) NoCalls() bool {
	for _, w := range r.Warnings {
		if w == NoCallsWarning {
			return true
		}
	}
	return false
}

// readRecording reads the recording data, named path, and returns what
// was read, or its problems.
func readRecording(path string, data []byte) (Recording, diag.List, error) {
	t := newRecordingTally(path)
	c, err := cassette.Tally(path, data, t.run)
	if err != nil {
		l, err := diagList(err)
		return Recording{}, l, err
	}
	return t.done(c), nil, nil
}

// suiteRecordings reads the recordings of the agent tests of s, each file
// once, in the order of the tests: a test whose recordings do not exist
// yet is passed over (validate checks a suite before it is recorded). The
// files are read on one worker per core, holding together no more bytes
// than one file of the largest size (readBudget), and their results are
// folded in the order of the tests, so the output is the same on any
// number of cores. text gives the suite's text, for the lines under the
// errors of the suite found on the way (s keeps none).
func suiteRecordings(s *Suite, text func() []byte) (diag.List, []Recording, error) {
	type job struct{ file, name string }
	var jobs []job
	seen := make(map[string]bool, len(s.Cases))
	for _, c := range s.Cases {
		if c.Kind != report.KindAgent && c.Kind != report.KindScenario {
			continue
		}
		files, err := caseFiles(s, c, "")
		if err != nil {
			continue
		}
		for _, f := range files {
			name := displayPath(f)
			if seen[name] {
				continue
			}
			seen[name] = true
			jobs = append(jobs, job{f, name})
		}
	}
	type result struct {
		unread diag.List // why the file could not be read
		rec    Recording
		l      diag.List // what is wrong in it
		err    error
	}
	results := make([]result, len(jobs))
	budget := newReadBudget(cassette.MaxSize)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// buf is the bytes of the last file this worker read, to read
			// the next into: a recording read without a problem keeps
			// nothing of them (a problem may: its source line). Only a
			// small file's (reuseMax), so a worker holds no large buffer
			// beyond the read budget.
			var buf []byte
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				j, r := jobs[i], &results[i]
				// The budget is taken with the size the open's own
				// stat gave (at most MaxSize), before the read.
				size := int64(-1)
				data, err := cassette.LoadInto(j.file, j.name, buf, func(n int64) {
					size = n
					budget.take(size)
				})
				buf = nil
				if err != nil {
					l, err := diagList(err)
					if err != nil {
						r.err = fmt.Errorf("read %s: %w", j.name, err)
					}
					r.unread = l
				} else {
					r.rec, r.l, r.err = readRecording(j.name, data)
					if r.l == nil && r.err == nil && cap(data) <= reuseMax {
						buf = data
					}
				}
				if size >= 0 {
					budget.give(size)
				}
			}
		}()
	}
	wg.Wait()
	recs := make([]Recording, 0, len(results))
	var all diag.List
	runs := make(map[string]int, len(results)) // a recording's runs, by display path
	noCalls := expectNoCalls(s)
	for i, r := range results {
		if r.err != nil {
			return nil, nil, r.err
		}
		if r.unread != nil {
			all = append(all, r.unread...)
			continue
		}
		all = append(all, r.l...)
		if r.l == nil {
			name := jobs[i].name
			if noCalls[name] {
				r.rec.Warnings = slices.DeleteFunc(r.rec.Warnings, func(w string) bool { return w == NoCallsWarning })
			}
			recs = append(recs, r.rec)
			runs[name] = r.rec.Runs
		}
	}
	if counts := joinCounts(s, runs); len(counts) > 0 {
		s.source = text()
		all = append(all, s.sourced(counts)...)
	}
	return all, recs, nil
}

// reuseMax is the largest buffer a worker of suiteRecordings reads its
// next file into.
const reuseMax = 1 << 20

// expectNoCalls is the set of recordings, by display path, that an agent
// test of s reads and says no_calls: true of.
func expectNoCalls(s *Suite) map[string]bool {
	names := map[string]bool{}
	for _, c := range s.Cases {
		if !c.NoCalls || c.Kind != report.KindAgent {
			continue
		}
		files, err := caseFiles(s, c, "")
		if err != nil {
			continue
		}
		for _, f := range files {
			names[displayPath(f)] = true
		}
	}
	return names
}

// Text is what validate prints of r: the reader and what it read, every
// figure the recording lacks said as such ("no tokens", "no answer").
// Names from the recording are quoted, escaped.
func (r Recording) Text() string {
	parts := []string{plural(r.Runs, "run"), plural(r.Calls, "call"), plural(r.Results, "result")}
	if r.Tokens == nil {
		parts = append(parts, "no tokens")
	} else {
		parts = append(parts, fmt.Sprintf("tokens in %d/%d runs (%d in all)", r.Tokens.Runs, r.Runs, r.Tokens.Total))
	}
	parts = append(parts, names("model", "models", r.Models))
	if r.Answers == 0 {
		parts = append(parts, "no answer")
	} else {
		parts = append(parts, fmt.Sprintf("an answer in %d/%d runs", r.Answers, r.Runs))
	}
	parts = append(parts, names("agent", "agents", r.Agents))
	return "read as " + r.Reader + ": " + strings.Join(parts, ", ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// names is "no models", `model "a"` or `models "a", "b"`.
func names(one, many string, xs []string) string {
	switch len(xs) {
	case 0:
		return "no " + many
	case 1:
		return one + " " + strconv.Quote(xs[0])
	}
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return many + " " + strings.Join(q, ", ")
}
