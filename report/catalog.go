package report

import (
	"container/heap"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Catalog is the tool surface one case's recordings offered the agent:
// every tool of their catalogs, by server. Cases over the same catalog
// are many (every recording of one agent against one set of servers), so
// the envelope stores each catalog once (Envelope.Catalogs) and a case
// names its own by digest (CaseResult.Catalog) instead of listing every
// offered tool: the tools a case called are in its tools, with their
// calls; the ones it was offered and did not call are its catalog's others.
type Catalog struct {
	// SHA256 is the digest of Servers' compact JSON encoding: the name
	// a case gives its catalog, the same in every envelope that holds it.
	SHA256 string `json:"sha256"`
	// Servers are in server order, each tool list in name order.
	Servers []CatalogServer `json:"servers"`
}

// CatalogServer is one server of a catalog and the names of its tools;
// Server is absent when the recording names no server.
type CatalogServer struct {
	Server string   `json:"server,omitempty"`
	Tools  []string `json:"tools"`
}

// NewCatalog returns the catalog of the tools given (any order, repeats
// kept once), sorted and digested; nil when there is none.
func NewCatalog(tools []ToolUse) *Catalog {
	if len(tools) == 0 {
		return nil
	}
	sorted := slices.Clone(tools)
	slices.SortFunc(sorted, func(a, b ToolUse) int {
		if c := strings.Compare(a.Server, b.Server); c != 0 {
			return c
		}
		return strings.Compare(a.Tool, b.Tool)
	})
	var servers []CatalogServer
	for i, u := range sorted {
		if i > 0 && u.Server == sorted[i-1].Server && u.Tool == sorted[i-1].Tool {
			continue
		}
		if n := len(servers); n == 0 || servers[n-1].Server != u.Server {
			servers = append(servers, CatalogServer{Server: u.Server})
		}
		s := &servers[len(servers)-1]
		s.Tools = append(s.Tools, u.Tool)
	}
	return &Catalog{SHA256: catalogDigest(servers), Servers: servers}
}

// catalogDigest is the hex SHA-256 of the servers' compact JSON.
func catalogDigest(servers []CatalogServer) string {
	data, _ := json.Marshal(servers) // strings and slices only: never fails
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Tools returns the catalog's tools, in server then tool order, each with
// calls 0.
func (c *Catalog) Tools() []ToolUse {
	var out []ToolUse
	for _, s := range c.Servers {
		for _, t := range s.Tools {
			out = append(out, ToolUse{Server: s.Server, Tool: t})
		}
	}
	return out
}

// size is the bytes of the catalog's compact JSON, what MaxCatalogBytes
// counts.
func (c *Catalog) size() int {
	data, _ := json.Marshal(c)
	return len(data)
}

// check refuses a catalog whose digest is not that of its servers, or
// whose names do not fit on one line.
func (c *Catalog) check(at string) error {
	if c.SHA256 != catalogDigest(c.Servers) {
		return fmt.Errorf("%s.sha256: %s is not the digest of the catalog's servers", at, quoteClipped(c.SHA256))
	}
	// The paths are built for a field that is refused only: a merge
	// checks the catalogs of every shard. A tool with no name is refused
	// first, then the first field with a control character.
	for i, s := range c.Servers {
		for j, t := range s.Tools {
			if t == "" {
				return fmt.Errorf("%s.servers[%d].tools[%d]: want a tool name", at, i, j)
			}
		}
	}
	for i, s := range c.Servers {
		if hasControl(s.Server) {
			return oneLine([]field{{fmt.Sprintf("%s.servers[%d].server", at, i), s.Server}})
		}
		for j, t := range s.Tools {
			if hasControl(t) {
				return oneLine([]field{{fmt.Sprintf("%s.servers[%d].tools[%d]", at, i, j), t}})
			}
		}
	}
	return nil
}

// MaxCatalogBytes bounds an envelope's catalogs: their compact JSON holds
// at most this many bytes. The catalogs kept are those of the smallest
// digests, as many as fit; a case whose catalog is past the bound still
// names it, and its offered tools are then not in the envelope (the
// envelope's catalogs_from says from which digest on). The rule depends
// on the set of catalogs only, never on the order the cases came in, so
// the shards of a run, merged, keep the catalogs the whole run keeps.
const MaxCatalogBytes = 256 << 10

// CatalogTable collects the catalogs of an envelope within MaxCatalogBytes:
// one entry per digest, the largest digests dropped first when the bound
// is passed. Its memory is the bound's, however many catalogs are added.
type CatalogTable struct {
	// Max is the bound in bytes; 0 means MaxCatalogBytes.
	Max   int
	byKey map[string]struct{} // the digests kept
	h     catalogHeap
	total int
	// from is the smallest digest dropped: no digest at or past it is
	// kept, so the kept ones stay the smallest that fit.
	from string
}

type sizedCatalog struct {
	c    *Catalog
	size int
}

// catalogHeap is a max-heap by digest.
type catalogHeap []sizedCatalog

func (h catalogHeap) Len() int           { return len(h) }
func (h catalogHeap) Less(i, j int) bool { return h[i].c.SHA256 > h[j].c.SHA256 }
func (h catalogHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *catalogHeap) Push(x any)        { *h = append(*h, x.(sizedCatalog)) }
func (h *catalogHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Add adds a catalog (nil adds nothing). The table keeps c itself: it
// must not change afterwards.
func (t *CatalogTable) Add(c *Catalog) {
	if c == nil || t.from != "" && c.SHA256 >= t.from {
		return
	}
	if t.byKey == nil {
		t.byKey = map[string]struct{}{}
	}
	if _, ok := t.byKey[c.SHA256]; ok {
		return
	}
	t.byKey[c.SHA256] = struct{}{}
	size := c.size() + 1 // and the comma between two
	heap.Push(&t.h, sizedCatalog{c: c, size: size})
	t.total += size
	t.trim()
}

// DropFrom drops every catalog at or past digest, as a table that dropped
// it would have: merging envelopes applies each one's catalogs_from.
func (t *CatalogTable) DropFrom(digest string) {
	if digest == "" || t.from != "" && t.from <= digest {
		return
	}
	t.from = digest
	for len(t.h) > 0 && t.h[0].c.SHA256 >= digest {
		e := heap.Pop(&t.h).(sizedCatalog)
		t.total -= e.size
		delete(t.byKey, e.c.SHA256)
	}
}

// trim drops the largest digests while the table is over its bound. The
// total is the sum of the sizes in the heap and the limit at least 1, so
// a table over its bound has a catalog to drop.
func (t *CatalogTable) trim() {
	limit := t.Max
	if limit <= 0 {
		limit = MaxCatalogBytes
	}
	for t.total > limit {
		e := heap.Pop(&t.h).(sizedCatalog)
		t.total -= e.size
		delete(t.byKey, e.c.SHA256)
		t.from = e.c.SHA256
	}
}

// List returns the catalogs kept, in digest order, and the digest from
// which on catalogs were dropped ("" when none was).
func (t *CatalogTable) List() ([]Catalog, string) {
	out := make([]Catalog, 0, len(t.h))
	for _, e := range t.h {
		out = append(out, *e.c)
	}
	slices.SortFunc(out, func(a, b Catalog) int { return strings.Compare(a.SHA256, b.SHA256) })
	if len(out) == 0 {
		out = nil
	}
	return out, t.from
}

// Fill sets the envelope's catalogs and catalogs_from from the table.
func (t *CatalogTable) Fill(e *Envelope) {
	e.Catalogs, e.CatalogsFrom = t.List()
}

// catalogIndex maps the envelope's catalogs by digest.
func (e *Envelope) catalogIndex() map[string]*Catalog {
	if len(e.Catalogs) == 0 {
		return nil
	}
	m := make(map[string]*Catalog, len(e.Catalogs))
	for i := range e.Catalogs {
		m[e.Catalogs[i].SHA256] = &e.Catalogs[i]
	}
	return m
}

// CaseTools returns the case's tool coverage as one list, in server then
// tool order: the tools it called with their calls, and the tools its
// catalog offered with no call (calls 0), whether the envelope stores them
// in its catalogs (CaseResult.Catalog) or, as envelopes before them did,
// in the case's tools. A catalog the envelope does not hold (past its
// bound) adds nothing.
func (e *Envelope) CaseTools(c *CaseResult) []ToolUse {
	var cat *Catalog
	if c.Catalog != "" {
		for i := range e.Catalogs {
			if e.Catalogs[i].SHA256 == c.Catalog {
				cat = &e.Catalogs[i]
				break
			}
		}
	}
	return mergeTools(c.Tools, cat)
}

// mergeTools is the called tools with the catalog's others at calls 0, in
// server then tool order.
func mergeTools(called []ToolUse, cat *Catalog) []ToolUse {
	if cat == nil {
		return called
	}
	seen := make(map[toolKey]bool, len(called))
	out := slices.Clone(called)
	for _, u := range called {
		seen[toolKey{u.Server, u.Tool}] = true
	}
	for _, u := range cat.Tools() {
		if !seen[toolKey{u.Server, u.Tool}] {
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b ToolUse) int {
		if c := strings.Compare(a.Server, b.Server); c != 0 {
			return c
		}
		return strings.Compare(a.Tool, b.Tool)
	})
	return out
}
