package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/mcptest/mcptest/internal/expr"
	"hash"
	"slices"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// A test with sources: reads several recordings of the same runs: one
// source gives the calls (and delegations and catalog), the others what
// they `use:` for (tokens, model, answer), joined run by run, by order or
// by a key every source names. The other sources are read first, keeping
// of each run only what it gives; the calls source then streams as a
// single cassette: does, each run joined as it passes (cassetteUse.adapt).
// A test's aliases: rename its calls and catalog entries the same way.

// joinFiles lists the files of a test's sources in the order a run reads
// them: the other sources in list order, then the calls source. An error
// is a source whose recordings are not found, at its cassette: value.
func joinFiles(s *Suite, c *Case) ([]string, diag.List) {
	var files, calls []string
	var errs diag.List
	for _, src := range c.Sources {
		fs, err := sourceFiles(s, src)
		if err != nil {
			errs = append(errs, &diag.Error{Pos: src.Pos, Kind: "cassette", Message: err.Error()})
			continue
		}
		if src.gives(useCalls) {
			calls = fs
		} else {
			files = append(files, fs...)
		}
	}
	return append(files, calls...), errs
}

// sourceFiles are the files a source names: those found when the suite
// was loaded, else looked up now.
func sourceFiles(s *Suite, src *Source) ([]string, error) {
	if src.files != nil {
		return src.files, nil
	}
	return resolveCassettes(s.Dir, src.Cassette)
}

// joinPart is what one run of a source other than the calls source gives
// its joined run: only the fields the source's use: names are kept.
type joinPart struct {
	key             string
	model, provider string
	tokens          *cassette.Tokens
	cost            *int64
	answers         []string
}

// side is a source other than the calls source, read.
type side struct {
	src   *Source
	runs  []joinPart
	byKey map[string]int // key -> index in runs
	used  []bool
}

// joiner joins a case's runs with its other sources and applies its
// aliases (see cassetteUse.adapt).
type joiner struct {
	c     *Case
	calls *Source // nil without sources:
	sides []*side
	// from names the side that gives each of useTokens, useModel,
	// useAnswer; one not there comes with the calls.
	from map[string]*side
	// files are the calls source's files, digest the case's cassette
	// digest with the other sources' files in it.
	files  []string
	digest hash.Hash
	n      int // runs of the calls source joined so far
	errs   diag.List
	// viewOf and viewAs memoize the last cassette view made.
	viewOf *cassette.Cassette
	viewAs *joinPart
	view   *cassette.Cassette
}

// newJoiner reads the case's other sources, if any, for its calls source
// to be joined with as it streams.
func newJoiner(s *Suite, p casePlan, res *report.CaseResult, progress func()) (*joiner, diag.List) {
	j := &joiner{c: p.c, from: map[string]*side{}}
	if len(p.c.Sources) == 0 {
		return j, nil
	}
	j.digest = sha256.New()
	var errs diag.List
	for _, src := range p.c.Sources {
		files, err := sourceFiles(s, src)
		if err != nil {
			errs = append(errs, &diag.Error{Pos: src.Pos, Kind: "cassette", Message: err.Error()})
			continue
		}
		if src.gives(useCalls) {
			j.calls, j.files = src, files
			continue
		}
		sd := &side{src: src, byKey: map[string]int{}}
		for _, f := range files {
			errs = append(errs, j.readSide(s, p, sd, f, res)...)
			progress()
		}
		j.sides = append(j.sides, sd)
		for _, u := range src.Use {
			j.from[u] = sd
		}
	}
	// A side whose keys are missing or repeated joins nothing: its errors
	// are the case's, not the mismatches they would cause.
	return j, append(errs, j.errs...)
}

// readSide reads one file of a side source into its parts.
func (j *joiner) readSide(s *Suite, p casePlan, sd *side, f string, res *report.CaseResult) diag.List {
	name := displayPath(f)
	sized, release := p.budget.onOpen()
	defer release()
	data, err := cassette.LoadInto(f, name, nil, sized)
	if err != nil {
		return asDiag(name, err)
	}
	sum := sha256.Sum256(data)
	fmt.Fprintf(j.digest, "%s\x00%s\n", suiteRelative(s, f), hex.EncodeToString(sum[:]))
	first := true
	_, err = streamRecording(name, data, func(cas *cassette.Cassette, r *cassette.Run) {
		if first {
			for _, w := range cas.Warnings {
				res.Findings = append(res.Findings, report.Finding{Level: "warning", Message: w, Position: &diag.Pos{File: name}})
			}
			first = false
		}
		j.addPart(sd, cas, r)
	})
	if err != nil {
		return asDiag(name, err)
	}
	return nil
}

// addPart keeps what a run of a side source gives.
func (j *joiner) addPart(sd *side, cas *cassette.Cassette, r *cassette.Run) {
	n := len(sd.runs) + 1
	var part joinPart
	if sd.src.gives(useModel) {
		part.model, part.provider = cas.Model, cas.Provider
	}
	if sd.src.gives(useTokens) {
		part.tokens, part.cost = r.Tokens, r.CostMicros
	}
	if sd.src.gives(useAnswer) {
		part.answers = make([]string, len(r.Turns))
		for i, t := range r.Turns {
			part.answers[i] = t.FinalResponse
		}
	}
	if sd.src.Key != "" {
		key, ok := j.runKey(sd.src, n, cas, r)
		if first, dup := sd.byKey[key]; ok && dup {
			j.errorf(sd.src.KeyPos, "runs %d and %d of %s both have the key %s: a key names one run", first+1, n, sd.src.Cassette, quoteKey(key))
		} else if ok {
			sd.byKey[key] = n - 1
		}
		part.key = key
	}
	sd.runs = append(sd.runs, part)
	sd.used = append(sd.used, false)
}

// runKey is the value of src's key on run n: a string as it is, any other
// value as compact JSON. A run without one is an error.
func (j *joiner) runKey(src *Source, n int, cas *cassette.Cassette, r *cassette.Run) (string, bool) {
	v, ok := src.key.Lookup(runDoc(n, cas, r, allCalls))
	if !ok || v == nil {
		j.errorf(src.KeyPos, "run %d of %s has no value at its key `%s`: every run of a source joined by key needs one", n, src.Cassette, src.Key)
		return "", false
	}
	if s, isString := v.(string); isString {
		return s, true
	}
	// A key over the calls or turns is written whole: built here.
	return compactJSON(expr.Materialize(v)), true
}

func (j *joiner) errorf(pos diag.Pos, format string, args ...any) {
	j.errs = append(j.errs, &diag.Error{Pos: pos, Kind: "suite", Message: fmt.Sprintf(format, args...)})
}

// quoteKey quotes a join key for a message, escaped and cut to 80 bytes.
func quoteKey(key string) string {
	if len(key) > 80 {
		key = key[:80] + "…"
	}
	return fmt.Sprintf("%q", key)
}

// adapt is the cassetteUse.adapt of a joined or aliased case: run r of the
// calls source, with the other sources' parts of the same run and the
// aliases applied, and the cassette as that run reads it.
func (j *joiner) adapt(cas *cassette.Cassette, r *cassette.Run) (*cassette.Cassette, *cassette.Run) {
	if r == nil {
		var model *joinPart
		if sd := j.from[useModel]; sd != nil && len(sd.runs) > 0 {
			model = &sd.runs[0]
		}
		return j.cassetteView(cas, model), nil
	}
	j.n++
	parts := j.parts(cas, r)
	out := *r
	if p := parts[useTokens]; p != nil {
		out.Tokens, out.CostMicros = p.tokens, p.cost
	}
	if p := parts[useAnswer]; p != nil {
		out.Turns = withAnswers(out.Turns, p.answers)
	}
	out.Turns = renameCalls(out.Turns, j.c.Aliases)
	return j.cassetteView(cas, parts[useModel]), &out
}

// parts finds the run of each side that joins run j.n of the calls
// source: the same run by order, or the run of the same key; nil for a
// side that has none (the join reports it).
func (j *joiner) parts(cas *cassette.Cassette, r *cassette.Run) map[string]*joinPart {
	if len(j.sides) == 0 {
		return nil
	}
	key, keyed := "", j.calls.Key != ""
	if keyed {
		var ok bool
		if key, ok = j.runKey(j.calls, j.n, cas, r); !ok {
			return nil
		}
	}
	out := map[string]*joinPart{}
	for _, sd := range j.sides {
		i := j.n - 1
		if keyed {
			var found bool
			if i, found = sd.byKey[key]; !found {
				j.errorf(j.calls.KeyPos, "run %d of %s has the key %s, which none of the %d runs of %s has", j.n, j.calls.Cassette, quoteKey(key), len(sd.runs), sd.src.Cassette)
				continue
			}
		}
		if i >= len(sd.runs) {
			continue // finish reports the counts
		}
		sd.used[i] = true
		for _, u := range sd.src.Use {
			out[u] = &sd.runs[i]
		}
	}
	return out
}

// finish reports what the join left unmatched once every run of the
// calls source passed: a source of another run count (by order), or runs
// whose key the calls source has no run of (by key). An error names both
// recordings and their runs, at the suite's sources: key or the key:.
func (j *joiner) finish() diag.List {
	if j.calls == nil {
		return nil
	}
	for _, sd := range j.sides {
		if j.calls.Key == "" {
			if len(sd.runs) != j.n {
				j.errs = append(j.errs, orderMismatch(j.c, j.calls, j.n, sd.src, len(sd.runs)))
			}
			continue
		}
		unmatched, first := 0, -1
		for i, used := range sd.used {
			if !used && sd.runs[i].key != "" {
				unmatched++
				if first < 0 {
					first = i
				}
			}
		}
		if unmatched > 0 {
			j.errorf(sd.src.KeyPos, "run %d of %s has the key %s, which none of the %s of %s has (%d of its %s unmatched)",
				first+1, sd.src.Cassette, quoteKey(sd.runs[first].key), plural(j.n, "run"), j.calls.Cassette, unmatched, plural(len(sd.runs), "run"))
		}
	}
	return j.errs
}

// cassetteView is cas as a joined run reads it: with the model and
// provider of the model source's run, and its catalog's tools renamed by
// the aliases.
func (j *joiner) cassetteView(cas *cassette.Cassette, model *joinPart) *cassette.Cassette {
	if model == nil && len(j.c.Aliases) == 0 {
		return cas
	}
	if cas == j.viewOf && model == j.viewAs {
		return j.view
	}
	v := *cas
	if model != nil {
		v.Model, v.Provider = model.model, model.provider
	}
	if cas == j.viewOf {
		v.Catalog = j.view.Catalog
	} else {
		v.Catalog = renameCatalog(cas.Catalog, j.c.Aliases)
	}
	j.viewOf, j.viewAs, j.view = cas, model, &v
	return j.view
}

// withAnswers gives turns the final responses of the answer source's run,
// turn by turn: a turn past the answers has none, an answer past the
// turns is a turn of no calls.
func withAnswers(turns []cassette.Turn, answers []string) []cassette.Turn {
	out := make([]cassette.Turn, max(len(turns), len(answers)))
	copy(out, turns)
	for i := range out {
		out[i].FinalResponse = ""
		if i < len(answers) {
			out[i].FinalResponse = answers[i]
		}
	}
	return out
}

// renameCalls gives every call recorded under an alias the tool's name,
// keeping the recorded one in RecordedAs; turns is returned as it is when
// no call is renamed.
func renameCalls(turns []cassette.Turn, aliases map[string]string) []cassette.Turn {
	if len(aliases) == 0 || !slices.ContainsFunc(turns, func(t cassette.Turn) bool {
		return slices.ContainsFunc(t.Calls, func(c cassette.Call) bool { return aliases[c.Tool] != "" })
	}) {
		return turns
	}
	out := slices.Clone(turns)
	for i := range out {
		out[i].Calls = slices.Clone(out[i].Calls)
		for k, c := range out[i].Calls {
			if tool := aliases[c.Tool]; tool != "" {
				out[i].Calls[k].Tool, out[i].Calls[k].RecordedAs = tool, c.Tool
			}
		}
	}
	return out
}

// renameCatalog is a catalog with its tools listed under an alias named
// as the suite names them; the catalog itself when none is.
func renameCatalog(cat []cassette.ServerCatalog, aliases map[string]string) []cassette.ServerCatalog {
	if len(aliases) == 0 {
		return cat
	}
	var out []cassette.ServerCatalog
	for i, sc := range cat {
		for k, t := range sc.Tools {
			tool := aliases[t.Name]
			if tool == "" {
				continue
			}
			if out == nil {
				out = slices.Clone(cat)
			}
			if &out[i].Tools[0] == &cat[i].Tools[0] {
				out[i].Tools = slices.Clone(sc.Tools)
			}
			out[i].Tools[k].Name = tool
		}
	}
	if out == nil {
		return cat
	}
	return out
}

// orderMismatch is the error of a join by order whose calls source holds
// n runs and another source m.
func orderMismatch(c *Case, calls *Source, n int, other *Source, m int) *diag.Error {
	return &diag.Error{Pos: c.SourcesPos, Kind: "suite", Message: fmt.Sprintf(
		"sources of test %q: runs are joined by order, and %s holds %s while %s holds %s: record the same runs in both, or join them by `key:`",
		c.Name, calls, plural(n, "run"), other, plural(m, "run"))}
}

// joinCounts checks, before a run, the joins by order of the suite's
// tests against runs, the run count of each recording read (by display
// path): a source of another run count than its test's calls source is
// the error the run would stop at. Sources not read are passed over.
func joinCounts(s *Suite, runs map[string]int) diag.List {
	var errs diag.List
	for _, c := range s.Cases {
		var calls *Source
		counts := make([]int, len(c.Sources))
		read := true
		for i, src := range c.Sources {
			files, err := sourceFiles(s, src)
			for _, f := range files {
				n, ok := runs[displayPath(f)]
				read = read && ok
				counts[i] += n
			}
			read = read && err == nil
			if src.gives(useCalls) {
				calls = src
			}
		}
		if calls == nil || calls.Key != "" || !read {
			continue
		}
		n := counts[slices.Index(c.Sources, calls)]
		for i, src := range c.Sources {
			if src != calls && counts[i] != n {
				errs = append(errs, orderMismatch(c, calls, n, src, counts[i]))
			}
		}
	}
	return errs
}
