package engine

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/internal/prices"
	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/report"
)

// Options tune a run.
type Options struct {
	// Filter keeps the cases whose name equals one of the filters; a
	// filter that equals no name keeps the cases whose name contains it,
	// case-insensitively. Empty keeps every case.
	Filter []string
	// CassetteDir is where a test without `cassette:` is looked up by name;
	// "" means the `cassettes` directory beside the suite.
	CassetteDir string
	// Version is the mcptest version written into the envelope.
	Version string
	// Progress, when set, is told how far the run has come (see Progress)
	// after each cassette file is read, as each live case starts and after
	// each case is kept, by one caller at a time.
	Progress func(Progress)
	// Shard, when set, keeps only the cases of one shard (see Shard); the
	// envelope records it as run.shard.
	Shard report.Shard
	// Cache, when set, serves the result of an unchanged replayed case
	// instead of recomputing it (see CaseCache); Run.Cached counts the
	// cases it served.
	Cache CaseCache
	// CacheMinBytes is the smallest total size of a case's cassette files
	// for which Cache serves the case (mcptest run passes CacheMinBytes);
	// 0 or less serves every replayed case.
	CacheMinBytes int64
	// Warn, when set, is given one line for every cache entry that was
	// there but refused (see checkCached): the case is recomputed and the
	// entry rewritten; and, once per run, one line per model whose runs
	// needed a price the price table does not have.
	Warn func(msg string)
	// Prices prices the runs that recorded tokens but no cost (see package
	// prices); nil means the embedded table.
	Prices *prices.Table
	// Build identifies the program computing the run, for the cache key:
	// a result is served only to the build that computed it. "" means
	// Version, which is enough for a release; a development build passes
	// the digest of its executable.
	Build string
	// Emit, when set, is given each case's result as soon as it is
	// computed, in suite order, and Run keeps none of them: the envelope
	// it returns has no cases, and its totals, verdict, summary and price
	// table are counted from the results as they passed (report.Counter).
	// A run of any number of cases then holds one case result at a time;
	// the caller writes the envelope with the cases it was given (see
	// annotate.CaseSpool). An error from Emit stops the run and is
	// returned.
	Emit func(*report.CaseResult) error
	// Prepare, when set, is called on each case's result as soon as it is
	// computed, before Emit and on the goroutine that computed it: for
	// several cases at once when Run computes them on workers (see
	// caseRunner), so it must be safe for that. The caller may encode the
	// result there for Emit, off the order Emit keeps. An error from
	// Prepare stops the run and is returned, as one from Emit.
	Prepare func(*report.CaseResult) error
}

// Run replays the suite's cassettes and computes every gate. The envelope's
// run id, start time and duration are left for the caller to fill. Invalid
// input (a missing or malformed cassette) is returned as a diag.List naming
// every bad file at once; an I/O failure as a plain error.
func Run(s *Suite, opt Options) (*report.Envelope, error) {
	loaded := s.takeAhead(opt) // the cases its load computed (LoadSuiteAhead)
	defer loaded.drop()
	cases, err := selectCases(s.refs(), opt.Filter)
	if err != nil {
		return nil, err
	}
	if cases, err = selectShard(cases, opt.Shard); err != nil {
		return nil, err
	}
	plans, total, inputErrs := plan(s, cases, opt)
	if len(inputErrs) > 0 {
		return nil, s.sourced(inputErrs).Sorted()
	}
	if opt.Cache != nil && !cacheFits(plans) {
		opt.Cache = nil // more entries than the cache keeps: see CacheKeep
	}
	for i := range plans {
		if c := plans[i].c; c != nil && loaded != nil {
			plans[i].ahead = c.ahead
		}
	}
	env := &report.Envelope{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.ToolInfo{Name: "mcptest", Version: opt.Version},
		Run:           report.RunInfo{Mode: "replay", Shard: opt.Shard.String()},
		Suite:         report.SuiteInfo{Path: s.Path, SHA256: s.SHA256},
		Servers:       serverInfos(s.Servers),
		Cases:         make([]*report.CaseResult, 0, len(plans)),
		Floors:        suiteFloorsOf(s),
	}
	track := newTracker(opt.Progress, len(plans), total)
	if opt.Emit != nil {
		env.Cases = []*report.CaseResult{}
	}
	var counter report.Counter
	var catalogs report.CatalogTable
	priced := false              // a case priced a run with the price table
	unpriced := map[string]int{} // cases per model the table has no entry for
	keep := func(res *report.CaseResult) error {
		counter.Add(res)
		catalogs.Add(res.Offered)
		track.done(res)
		priced = priced || res.PricedRuns > 0
		for _, m := range res.UnpricedModels {
			unpriced[m]++
		}
		if opt.Emit != nil {
			return opt.Emit(res)
		}
		env.Cases = append(env.Cases, res)
		return nil
	}
	cached := 0
	pool := &livePool{}
	defer pool.close()
	for i := range plans {
		plans[i].live = pool
	}
	rebuilt := newRebuilder(s)
	defer rebuilt.close()
	runner := newCaseRunner(s, plans, opt, track, rebuilt, loaded)
	defer runner.close()
	for i := range plans {
		o := runner.next(i)
		p := &plans[i]
		if o.refused != nil && opt.Warn != nil {
			opt.Warn(fmt.Sprintf("%v; case %q was recomputed and its entry rewritten", o.refused, p.name()))
		}
		if o.cached {
			cached++
		} else if k := p.kind(); k == report.KindTool || k == report.KindCompliance {
			env.Run.Mode = "live"
		}
		p.release()
		inputErrs = append(inputErrs, o.errs...)
		if o.prepared != nil {
			return nil, o.prepared
		}
		if err := keep(o.res); err != nil {
			return nil, err
		}
		runner.kept(i)
	}
	if len(inputErrs) > 0 {
		return nil, s.sourced(inputErrs).Sorted()
	}
	for i := range env.Servers {
		env.Servers[i].Tools = pool.tools[env.Servers[i].Name]
	}
	catalogs.Fill(env)
	table := casePlan{prices: opt.Prices}.table
	env.Prices = pricesUsed(priced, table)
	warnUnpriced(opt.Warn, unpriced, table)
	env.Finish(&counter, expr.JudgeFloor)
	env.Run.Cached = cached
	return env, nil
}

// fromCache looks a case up in opt.Cache. key is the case's cache key, ""
// when the case is not cached; res is the cached result when an entry is
// there and checkCached accepts it for this case; refused is why an entry
// that was there was refused: the caller warns, recomputes the case and
// rewrites the entry.
func fromCache(s *Suite, p casePlan, opt Options) (key string, res *report.CaseResult, refused error) {
	if opt.Cache == nil {
		return "", nil, nil
	}
	key, set, ok := cacheKey(s, p, cmp.Or(opt.Build, opt.Version), opt.CacheMinBytes)
	if !ok {
		return "", nil, nil
	}
	res, err := opt.Cache.Get(key, func(r *report.CaseResult) error { return checkCached(r, p.c, set) })
	if err != nil {
		return key, nil, err
	}
	return key, res, nil
}

// SelectCases applies the --filter rules of Run to the suite's cases, for
// commands that read a suite without running it.
func SelectCases(s *Suite, filters []string) ([]*Case, error) {
	return selectCases(s.Cases, filters)
}

// selectCases applies the --filter rules.
func selectCases[T named](all []T, filters []string) ([]T, error) {
	if len(filters) == 0 {
		return all, nil
	}
	keep := make([]bool, len(all))
	for _, f := range filters {
		hit := false
		for i, c := range all {
			if c.caseName() == f {
				keep[i], hit = true, true
			}
		}
		if hit {
			continue
		}
		for i, c := range all {
			if strings.Contains(strings.ToLower(c.caseName()), strings.ToLower(f)) {
				keep[i], hit = true, true
			}
		}
		if !hit {
			var names []string
			for _, c := range all {
				names = append(names, c.caseName())
			}
			e := &diag.Error{Pos: diag.Pos{File: "--filter"}, Kind: "flag",
				Message: fmt.Sprintf("no case matches %q", f)}
			if s := diag.Suggest(f, names); s != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", s)
			}
			return nil, diag.List{e}
		}
	}
	var out []T
	for i, c := range all {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

// casePlan is a case with the cassette files it will read.
type casePlan struct {
	c     *Case
	files []string
	// live holds the run's open server sessions (tools: cases share one
	// per server).
	live *livePool
	// prices prices the runs that recorded tokens but no cost; nil means
	// the embedded table (see table).
	prices *prices.Table
	// budget bounds the cassette bytes the run's workers hold at once; nil
	// when the case is computed alone.
	budget *readBudget
	// dropped is the test the suite dropped (LoadSuiteForRun) that the
	// plan is of, nil for a case the suite keeps; c and files are then
	// nil until the run builds the test again (load), and again once its
	// result is kept (release). errs are the problems of building it again.
	dropped *droppedTest
	errs    diag.List
	// ahead gives the case's outcome when the suite's load computed it
	// (loadAhead), nil otherwise.
	ahead chan caseOutcome
}

// name is the name of the plan's case.
func (p *casePlan) name() string {
	if p.dropped != nil {
		return p.dropped.name
	}
	return p.c.Name
}

// kind is the kind of the plan's case: a dropped test is an agent test.
func (p *casePlan) kind() report.Kind {
	if p.dropped != nil {
		return report.KindAgent
	}
	return p.c.Kind
}

// load builds the dropped test of the plan again with r, with the files
// plan would have given it; a plan of a case the suite keeps is ready.
func (p *casePlan) load(s *Suite, r *rebuilder) {
	if p.dropped == nil || p.c != nil || p.errs != nil {
		return
	}
	p.c, p.errs = r.test(s, p.dropped)
	if p.c != nil {
		p.files = p.c.cassetteFiles
	}
}

// release drops a dropped test built again once its result is kept.
func (p *casePlan) release() {
	if p.dropped != nil {
		p.c, p.files = nil, nil
	}
}

// table is the price table of the case's runs: p.prices, else the
// embedded table, decoded the first time a run needs it rather than at
// every run (most recordings carry their cost or no tokens). nil when the
// embedded table cannot be read, which its package's tests rule out.
func (p casePlan) table() *prices.Table {
	if p.prices != nil {
		return p.prices
	}
	t, _ := embeddedPrices()
	return t
}

// embeddedPrices is prices.Embedded, which decodes the embedded table the
// first time it is called: 30 to 40 ms of one core, so it is called only
// when a run needs a price (a test counts the calls).
var embeddedPrices = prices.Embedded

// plan lists the cassette files each case reads, the total of them, and
// the problems of finding them. A test the suite dropped is planned from
// what it kept of it: its files were found when it was loaded.
func plan(s *Suite, cases []caseRef, opt Options) ([]casePlan, int, diag.List) {
	var errs diag.List
	plans := make([]casePlan, 0, len(cases))
	total := 0
	for _, r := range cases {
		if r.d != nil {
			plans = append(plans, casePlan{dropped: r.d, prices: opt.Prices})
			total += int(r.d.files)
			continue
		}
		c := r.c
		p := casePlan{c: c, prices: opt.Prices}
		if c.Kind == report.KindAgent || c.Kind == report.KindScenario {
			files, err := caseFiles(s, c, opt.CassetteDir)
			var l diag.List
			if errors.As(err, &l) {
				errs = append(errs, l...)
			} else if err != nil {
				pos := c.CassettePos
				if c.Cassette == "" {
					pos = c.Pos
				}
				errs = append(errs, &diag.Error{Pos: pos, Kind: "cassette", Message: err.Error()})
			}
			p.files = files
			total += len(files)
		}
		plans = append(plans, p)
	}
	return plans, total, errs
}

// caseFiles finds an agent test's cassette files: those of its sources:
// (joinFiles), its `cassette:` value, or a file or directory named after
// the test in the cassette directory.
func caseFiles(s *Suite, c *Case, dir string) ([]string, error) {
	if len(c.Sources) > 0 {
		files, errs := joinFiles(s, c)
		if len(errs) > 0 {
			return nil, errs
		}
		return files, nil
	}
	if c.Cassette != "" && c.cassetteFiles != nil {
		return c.cassetteFiles, nil
	}
	if c.Cassette != "" {
		return resolveCassettes(s.Dir, c.Cassette)
	}
	if dir == "" {
		dir = filepath.Join(s.Dir, "cassettes")
	}
	var tried []string
	for _, name := range []string{c.Name, Slug(c.Name)} {
		for _, cand := range []string{name + ".json", name} {
			p := filepath.Join(dir, cand)
			tried = append(tried, filepath.ToSlash(p))
			if _, err := os.Stat(p); err == nil {
				return resolveCassettes("", p)
			}
		}
	}
	return nil, fmt.Errorf("no cassette for test %q: set `cassette:` or record one at %s", c.Name, strings.Join(dedupe(tried), " or "))
}

// Slug turns a test name into the file name the runner looks for: lower
// case, runs of anything but letters and digits replaced by one '-'.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func dedupe(xs []string) []string {
	var out []string
	for i, x := range xs {
		if i == 0 || !contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// runCase computes one case.
func runCase(s *Suite, p casePlan, progress func()) (*report.CaseResult, diag.List) {
	res, errs := computeCase(s, p, progress)
	if res != nil {
		boundFindings(res)
	}
	return res, errs
}

// computeCase is runCase before its findings are bounded.
func computeCase(s *Suite, p casePlan, progress func()) (*report.CaseResult, diag.List) {
	c := p.c
	res := &report.CaseResult{
		Name: c.Name, Kind: c.Kind, Position: c.Pos, DefinitionSHA256: c.DefinitionSHA256,
		RunsDeclared: c.Runs,
		Targets:      map[string]float64{}, Counts: map[string]int64{},
		Assertions: []report.AssertionResult{}, Floors: []report.Floor{}, Findings: []report.Finding{},
	}
	switch c.Kind {
	case report.KindAgent:
		return runAgent(s, p, res, progress)
	case report.KindScenario:
		return runScenario(s, p, res, progress)
	case report.KindToolQuality:
		return runToolQuality(s, p, res)
	case report.KindTool:
		return runToolTest(s, p, res)
	case report.KindCompliance:
		return runCompliance(s, p, res)
	case report.KindRedteam, report.KindEval:
		return runModelCase(p, res)
	}
	// The loader makes no other kind; a case of one is reported, not run.
	res.Verdict = report.Inconclusive
	res.Findings = append(res.Findings, report.Finding{Level: "warning", Message: fmt.Sprintf("mcptest cannot compute a case of kind %q", c.Kind)})
	return res, nil
}

// addGate adds a gate's result to a case. A finding that states the same
// fact as one already there (same level, run and words, from another block
// over the same classes: equal_function_sets: and token_efficiency:) is
// not repeated: one finding per fact.
//
// The first gate's figures are taken as they are, not copied: each
// gate.Result is a fresh map its gate keeps no hold of, and a case of one
// gate copied both of its maps (a fiftieth of what a run of small
// transcripts allocated).
func addGate(res *report.CaseResult, g gate.Result) {
	if len(res.Targets) == 0 && g.Targets != nil {
		res.Targets = g.Targets
	} else {
		for k, v := range g.Targets {
			res.Targets[k] = v
		}
	}
	if len(res.Counts) == 0 && g.Counts != nil {
		res.Counts = g.Counts
	} else {
		for k, v := range g.Counts {
			res.Counts[k] = v
		}
	}
	for k, v := range g.Labels {
		if res.Labels == nil {
			res.Labels = map[string]string{}
		}
		res.Labels[k] = v
	}
	if len(g.Findings) == 0 {
		return
	}
	// A few findings are compared one by one (most cases: no set to
	// make); many through a set, so that each is compared once.
	var seen map[factKey]bool
	if len(res.Findings)+len(g.Findings) > manyFindings {
		seen = make(map[factKey]bool, len(res.Findings)+len(g.Findings))
		for _, e := range res.Findings {
			seen[factKey{e.Level, e.Run, e.Message}] = true
		}
	}
	for _, f := range g.Findings {
		nf := report.Finding{Level: f.Level, Gate: f.Gate, Message: redact.String(f.Message), Run: f.Run, Position: f.Position}
		k := factKey{nf.Level, nf.Run, nf.Message}
		if seen != nil {
			if seen[k] {
				continue
			}
			seen[k] = true
		} else if slices.ContainsFunc(res.Findings, func(e report.Finding) bool { return factKey{e.Level, e.Run, e.Message} == k }) {
			continue
		}
		res.Findings = append(res.Findings, nf)
	}
}

// manyFindings is the count of findings from which addGate finds the
// ones said twice through a set.
const manyFindings = 32

// factKey is what makes two findings the same fact (addGate).
type factKey struct {
	level string
	run   int
	msg   string
}

// sortAssertions puts results back in the order the assertions were
// declared.
func sortAssertions(rs []report.AssertionResult, order []*Assertion) {
	rank := map[string]int{}
	for i, a := range order {
		rank[assertionKey(a.Block, a.Index, a.Default)] = i
	}
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rank[assertionKey(rs[j].Block, rs[j].Index, rs[j].Default)] < rank[assertionKey(rs[j-1].Block, rs[j-1].Index, rs[j-1].Default)]; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

func assertionKey(block string, index int, def bool) string {
	return fmt.Sprintf("%s#%d#%v", block, index, def)
}

// suiteRelative names a cassette relative to the suite's directory, so a
// case's cassette digest does not depend on where mcptest was started.
func suiteRelative(s *Suite, f string) string {
	if rel, err := filepath.Rel(s.Dir, f); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(f)
}

// displayPath renders a cassette path as reports show it: as reached from
// the working directory, with forward slashes.
func displayPath(f string) string {
	return filepath.ToSlash(f)
}

// asDiag turns a cassette reader's error into positioned errors.
func asDiag(file string, err error) diag.List {
	var l diag.List
	if errors.As(err, &l) {
		return l
	}
	var e *diag.Error
	if errors.As(err, &e) {
		return diag.List{e}
	}
	return diag.List{{Pos: diag.Pos{File: file}, Kind: "cassette", Message: err.Error()}}
}

// warnUnpriced says once per run, in one line, which named models recorded
// tokens and no cost and are absent from the price table, in how many
// cases each. Runs that name no model are not priced and not warned
// about: there is no model to look up, and no table could price them.
// table is asked only when a model is missing, so a run that needed no
// price does not decode the table at its end.
func warnUnpriced(warn func(string), unpriced map[string]int, table func() *prices.Table) {
	if warn == nil || len(unpriced) == 0 {
		return
	}
	t := table()
	if t == nil {
		return
	}
	var models []string
	for _, m := range slices.Sorted(maps.Keys(unpriced)) {
		if m == "" {
			continue
		}
		hint := ""
		if s := t.Suggest(m); s != "" && len(m) >= 6 {
			hint = fmt.Sprintf(", did you mean %q?", s)
		}
		models = append(models, fmt.Sprintf("model %s (%d case(s)%s)", strconv.Quote(clipName(m)), unpriced[m], hint))
	}
	if len(models) == 0 {
		return
	}
	warn(fmt.Sprintf("the price table (%s) has no entry for %s: their runs recorded tokens and no cost and are not priced (see `mcptest prices`, or give a table with --prices FILE)",
		t.Source, strings.Join(models, ", ")))
}

// clipName cuts a recorded model name to 120 bytes for a warning line.
func clipName(s string) string {
	if len(s) > 120 {
		return strings.ToValidUTF8(s[:120], "") + "…"
	}
	return s
}

// pricesUsed names the price table in the envelope when some case's cost
// was computed from it (priced), so a reader knows those costs are not
// recorded; table is asked only then.
func pricesUsed(priced bool, table func() *prices.Table) *report.PriceTable {
	if !priced {
		return nil
	}
	t := table()
	return &report.PriceTable{Source: t.Source, SHA256: t.SHA256}
}
