package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
)

// cacheFormat numbers the shape of a cache entry and of the key it is
// stored under; it changes whenever either does (2: cases record their
// tools; 3: an entry repeats its key and is checked against its case
// before it is served; 4: runs have verdicts and cases reliability; 5:
// cases keep the evidence of their runs; 6: only a case that does not
// pass keeps evidence, and its cassettes are listed by path; 7: a case
// names the catalog it was offered, which the entry holds beside it).
const cacheFormat = 7

// CacheKeep is how many entries the workspace cache keeps (the store prunes
// the rest after every run). A run with more cacheable cases than that
// does not use the cache: the entries it wrote would be pruned before the
// next run could read them, so writing them is pure cost (110,000 cases
// took 120 s cached against 7.8 s without).
const CacheKeep = 4096

// CacheMinBytes is the smallest total size of a case's cassette files for
// which mcptest run's cache serves the case (Options.CacheMinBytes). Below it, reading the entry back (open,
// read, decode, check) costs as much as computing the case from its
// cassettes: on 2,000 transcripts of about 4 KB a warm run was slower than
// one without the cache. See docs/benchmarks.md for the measure.
const CacheMinBytes = 16 << 10

// CacheMinEnv overrides CacheMinBytes for mcptest run; 0 caches every
// case.
const CacheMinEnv = "MCPTEST_CACHE_MIN_BYTES"

// CacheMinFromEnv reads CacheMinEnv's value v for Options.CacheMinBytes:
// CacheMinBytes when unset; 0 (every case) is -1.
func CacheMinFromEnv(v string) (int64, error) {
	if v == "" {
		return CacheMinBytes, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, diag.Input("%s=%q: want a number of bytes, 0 or more", CacheMinEnv, v)
	}
	if n == 0 {
		return -1, nil
	}
	return n, nil
}

// CacheEntryLimit is the largest cache entry DirCache reads back, in bytes;
// a larger file is refused from its size, before it is read.
const CacheEntryLimit = 64 << 20

// CaseCache stores computed case results by key (see Options.Cache). A
// cache saves time, never decides a result: Run hands Get a check that
// binds the entry to the case being run (see checkCached), and recomputes
// the case when there is no entry or the entry is refused.
type CaseCache interface {
	// Get returns the result stored under key once check accepts it: nil
	// and no error when there is no entry; an error naming the entry when
	// one is there but cannot be read back whole, is bound to another key
	// or is refused by check.
	Get(key string, check func(*report.CaseResult) error) (*report.CaseResult, error)
	// Put stores res under key, replacing any entry. It may fail silently:
	// the next run recomputes the case.
	Put(key string, res *report.CaseResult)
}

// cacheEntry is the JSON document of one DirCache entry: the key it is
// stored under, repeated so an entry copied to another key's file is
// refused, and the case result.
type cacheEntry struct {
	Format int                `json:"format"`
	Key    string             `json:"key"`
	Case   *report.CaseResult `json:"case"`
	// Catalog is the catalog the case names (CaseResult.Offered), absent
	// when it names none.
	Catalog *report.Catalog `json:"catalog,omitempty"`
}

// DirCache is a CaseCache of one JSON file per case result in Dir
// (mcptest run uses .mcptest/cache/).
type DirCache struct {
	Dir string
}

func (d DirCache) path(key string) string {
	return filepath.Join(d.Dir, key+".json")
}

// Get implements CaseCache. An entry is read only when it is a regular file
// (a symbolic link, a FIFO or a device is refused without blocking) of at
// most CacheEntryLimit bytes.
func (d DirCache) Get(key string, check func(*report.CaseResult) error) (*report.CaseResult, error) {
	path := d.path(key)
	data, err := safefile.ReadOwnFile(path, CacheEntryLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache entry %w", err)
	}
	res, err := decodeEntry(key, data)
	if err == nil {
		err = check(res)
	}
	if err != nil {
		return nil, fmt.Errorf("cache entry %s: %w", path, err)
	}
	return res, nil
}

// decodeEntry reads a cache entry stored under key: a JSON object of this
// format that repeats key and holds a case.
func decodeEntry(key string, data []byte) (*report.CaseResult, error) {
	var e cacheEntry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("not a cache entry: %v", err)
	}
	if dec.More() {
		return nil, errors.New("not a cache entry: data after the JSON object")
	}
	switch {
	case e.Format != cacheFormat:
		return nil, fmt.Errorf("not a cache entry of this mcptest: format %d, want %d", e.Format, cacheFormat)
	case e.Key != key:
		return nil, fmt.Errorf("the entry is bound to key %.12s…, it is stored under %.12s…", e.Key, key)
	case e.Case == nil:
		return nil, errors.New("the entry holds no case")
	case e.Catalog == nil && e.Case.Catalog != "" || e.Catalog != nil && e.Catalog.SHA256 != e.Case.Catalog:
		return nil, errors.New("the entry's catalog is not the one its case names")
	}
	if e.Catalog != nil {
		// The digest is checked against the servers as an envelope's is.
		env := report.Envelope{Catalogs: []report.Catalog{*e.Catalog}}
		if err := env.CheckCatalogs(); err != nil {
			return nil, err
		}
	}
	e.Case.Offered = e.Catalog
	return e.Case, nil
}

// Put implements CaseCache. It writes through a temporary file and a
// rename, so a concurrent reader never sees half a result.
func (d DirCache) Put(key string, res *report.CaseResult) {
	data, err := json.Marshal(cacheEntry{Format: cacheFormat, Key: key, Case: res, Catalog: res.Offered})
	if err != nil {
		return
	}
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return
	}
	_ = safefile.WriteFile(d.path(key), data, 0o644)
}

// cacheKey digests everything a replayed case's result depends on: the
// mcptest version, the suite's path, the case's parsed definition with every
// position in it, and the path and content of each of its cassette files,
// behind the cache format number. It also returns the CassetteSet the case
// will record, so a cached result can be checked against the cassettes on
// disk.
// Only agent and scenario cases are cached (they read recordings alone); a
// case that talks to a live server is always recomputed, and so is a case
// whose cassettes total less than minBytes (see Options.CacheMinBytes). ok is false when the case
// is not cached.
func cacheKey(s *Suite, p casePlan, version string, minBytes int64) (key string, set report.CassetteSet, ok bool) {
	if p.c.Kind != report.KindAgent && p.c.Kind != report.KindScenario {
		return "", set, false
	}
	if !worthCaching(p.files, minBytes) {
		return "", set, false
	}
	def, err := json.Marshal(p.c)
	if err != nil {
		return "", set, false
	}
	h, digest := sha256.New(), sha256.New()
	fmt.Fprintf(h, "mcptest case cache %d\x00%s\x00%s\x00%s\x00", cacheFormat, version, s.Path, p.c.DefinitionSHA256)
	h.Write(def)
	if t := p.table(); t != nil {
		// The price table decides the cost of runs that recorded none.
		fmt.Fprintf(h, "\x00prices\x00%s", t.SHA256)
	}
	for _, f := range p.files {
		sum, err := cassetteSHA256(f)
		if err != nil {
			return "", set, false
		}
		fmt.Fprintf(h, "\x00%s\x00%x", f, sum)
		fmt.Fprintf(digest, "%s\x00%x\n", suiteRelative(s, f), sum)
	}
	set = report.CassetteSet{Files: len(p.files), SHA256: hex.EncodeToString(digest.Sum(nil)), Paths: cassettePaths(s, p.c, p.files)}
	return hex.EncodeToString(h.Sum(nil)), set, true
}

// worthCaching reports whether a case reading files is served from the
// cache: whether they total minBytes or more (any files when minBytes is
// 0 or less). A file that cannot be examined counts as large: cacheKey
// then decides, as before.
func worthCaching(files []string, minBytes int64) bool {
	if minBytes <= 0 {
		return true
	}
	var total int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return true
		}
		if total += fi.Size(); total >= minBytes {
			return true
		}
	}
	return false
}

// cacheFits reports whether the cache keeps an entry for every plan it
// may serve: a run of more is computed without the cache (see CacheKeep).
func cacheFits(plans []casePlan) bool { return cacheable(plans) <= CacheKeep }

// cacheable counts the plans the cache may serve: agent and scenario
// cases, a test the suite dropped (not built yet) among them.
func cacheable(plans []casePlan) int {
	n := 0
	for i := range plans {
		if k := plans[i].kind(); k == report.KindAgent || k == report.KindScenario {
			n++
		}
	}
	return n
}

// checkCached binds a cached result to the case it is served for: the same
// name, kind, position, definition digest and declared runs, the digest of
// the cassettes on disk (set), the assertions the case declares in their
// order, and the verdict caseVerdict gives from the result's own
// assertions, floors and findings. An error says what differs.
func checkCached(res *report.CaseResult, c *Case, set report.CassetteSet) error {
	switch {
	case res.Name != c.Name:
		return fmt.Errorf("it is the result of case %q, not of %q", res.Name, c.Name)
	case res.Kind != c.Kind:
		return fmt.Errorf("its kind is %q, the case is %q", res.Kind, c.Kind)
	case res.Position != c.Pos:
		return fmt.Errorf("it is for a case at %s, the case is at %s", res.Position, c.Pos)
	case res.DefinitionSHA256 != c.DefinitionSHA256:
		return errors.New("its definition digest is not the case's")
	case res.RunsDeclared != c.Runs:
		return fmt.Errorf("it declares %d runs, the case %d", res.RunsDeclared, c.Runs)
	case res.Cassettes == nil || !res.Cassettes.Equal(set):
		return errors.New("its cassette digest is not the one of the case's cassettes")
	case res.Targets == nil || res.Counts == nil || res.Assertions == nil || res.Floors == nil || res.Findings == nil:
		return errors.New("it lacks targets, counts, assertions, floors or findings")
	}
	if err := res.Check("case"); err != nil {
		return err
	}
	if err := checkAssertions(res, c); err != nil {
		return err
	}
	if v := caseVerdict(res, c.Reliability != nil); res.Verdict != v {
		return fmt.Errorf("its verdict is %q, its own assertions, floors and findings give %q", res.Verdict, v)
	}
	return nil
}

// checkAssertions checks that a cached result holds one result per
// assertion the case computes, in declaration order, and that a case-level
// assertion (on a gate target) passes exactly when evaluating it on the
// result's targets passes.
func checkAssertions(res *report.CaseResult, c *Case) error {
	want := c.Expect
	if len(res.Assertions) != len(want) {
		return fmt.Errorf("it has %d assertion results, the case computes %d", len(res.Assertions), len(want))
	}
	for i, a := range want {
		r := res.Assertions[i]
		if r.Index != a.Index || r.Block != a.Block || r.Default != a.Default || r.Target != a.Target.String() || r.Position != a.Pos {
			return fmt.Errorf("assertions[%d] is not the case's assertion at %s", i, a.Pos)
		}
		if _, gate := targetBlock(r.Target); !gate || c.Kind != report.KindAgent {
			continue
		}
		v, ok := res.Targets[r.Target]
		var actual any
		if ok {
			actual = v
		}
		if evaluate(a, actual, ok).Passed != r.Passed {
			return fmt.Errorf("assertions[%d] says passed=%v, its target %s in the same result gives %v", i, r.Passed, r.Target, !r.Passed)
		}
	}
	return nil
}

// cassetteSHA256 digests the cassette file at path as it streams through,
// within the cassette limits: a FIFO, a device or a file over
// cassette.MaxSize is an error (the case is left uncached, for the reader
// to refuse), and the file is never held whole, so the run does not hold
// a second copy of its largest cassette.
func cassetteSHA256(path string) ([]byte, error) {
	f, r, err := safefile.Open(path, cassette.MaxSize)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return nil, err
	}
	if n > cassette.MaxSize {
		return nil, &safefile.TooLargeError{Path: path, Size: n, Limit: cassette.MaxSize}
	}
	return h.Sum(nil), nil
}
