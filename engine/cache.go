package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// CaseCache stores computed case results by key (see Options.Cache). Get
// misses on anything it cannot read back whole; Put may fail silently: a
// cache never changes a result, only whether it is recomputed.
type CaseCache interface {
	Get(key string) (*CaseResult, bool)
	Put(key string, res *CaseResult)
}

// DirCache is a CaseCache of one JSON file per case result in Dir
// (mcptest run uses .mcptest/cache/).
type DirCache struct {
	Dir string
}

// Get implements CaseCache.
func (d DirCache) Get(key string) (*CaseResult, bool) {
	data, err := os.ReadFile(filepath.Join(d.Dir, key+".json"))
	if err != nil {
		return nil, false
	}
	var res CaseResult
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&res); err != nil || res.Name == "" {
		return nil, false
	}
	return &res, true
}

// Put implements CaseCache. It writes through a temporary file and a
// rename, so a concurrent reader never sees half a result.
func (d DirCache) Put(key string, res *CaseResult) {
	data, err := json.Marshal(res)
	if err != nil {
		return
	}
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(d.Dir, key+".*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(d.Dir, key+".json")) != nil {
		os.Remove(tmp.Name())
	}
}

// cacheKey digests everything a replayed case's result depends on: the
// mcptest version, the suite's path, the case's parsed definition with every
// position in it, and the path and content of each of its cassette files,
// behind a format number that changes whenever a cached result's shape
// does (2: cases record their tools; 3: runs have verdicts).
// Only agent and scenario cases are cached (they read recordings alone); a
// case that talks to a live server is always recomputed. ok is false when
// the case cannot be keyed.
func cacheKey(s *Suite, p casePlan, version string) (string, bool) {
	if p.c.Kind != KindAgent && p.c.Kind != KindScenario {
		return "", false
	}
	def, err := json.Marshal(p.c)
	if err != nil {
		return "", false
	}
	h := sha256.New()
	fmt.Fprintf(h, "mcptest case cache 3\x00%s\x00%s\x00%s\x00", version, s.Path, p.c.DefinitionSHA256)
	h.Write(def)
	for _, f := range p.files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", false
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "\x00%s\x00%s", f, hex.EncodeToString(sum[:]))
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
