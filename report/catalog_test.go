package report

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// drawCatalog draws a catalog of up to 30 tools over up to 4 servers, from
// a small set of names so that draws repeat.
func drawCatalog(r *rand.Rand) *Catalog {
	var tools []ToolUse
	for range 1 + r.IntN(30) {
		server := []string{"", "fs", "web", "git"}[r.IntN(4)]
		tools = append(tools, ToolUse{Server: server, Tool: fmt.Sprintf("t%d", r.IntN(12))})
	}
	return NewCatalog(tools)
}

// TestCatalogTableIsOrderFree: over drawn catalogs, bounds and shardings,
// the catalogs a table keeps are the longest run of smallest digests that
// fits its bound, whatever the order they were added in; and the tables
// of the shards, merged (each one's catalogs_from applied, then its
// catalogs added), keep exactly what the table of them all keeps, as
// baseline's merge relies on.
func TestCatalogTableIsOrderFree(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 3))
	for round := range 400 {
		var all []*Catalog
		for range r.IntN(60) {
			c := drawCatalog(r)
			all = append(all, c)
			if r.IntN(4) == 0 {
				all = append(all, c) // the same catalog, offered again
			}
		}
		limit := 1 + r.IntN(4000)
		whole := CatalogTable{Max: limit}
		for _, c := range all {
			whole.Add(c)
		}
		kept, from := whole.List()

		// The longest prefix by digest that fits.
		distinct := map[string]*Catalog{}
		for _, c := range all {
			distinct[c.SHA256] = c
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range distinct {
				if !yield(k) {
					return
				}
			}
		})
		var want []Catalog
		wantFrom, total := "", 0
		for _, k := range keys {
			if total+distinct[k].size()+1 > limit {
				wantFrom = k
				break
			}
			total += distinct[k].size() + 1
			want = append(want, *distinct[k])
		}
		if !reflect.DeepEqual(kept, want) || from != wantFrom {
			t.Fatalf("round %d (bound %d): kept %d catalogs from %.8q, want %d from %.8q", round, limit, len(kept), from, len(want), wantFrom)
		}

		// Shards in any order, merged.
		shards := make([]CatalogTable, 1+r.IntN(6))
		for i := range shards {
			shards[i].Max = limit
		}
		for _, c := range all {
			shards[r.IntN(len(shards))].Add(c)
		}
		merged := CatalogTable{Max: limit}
		for _, i := range r.Perm(len(shards)) {
			cats, from := shards[i].List()
			merged.DropFrom(from)
			for j := range cats {
				merged.Add(&cats[j])
			}
		}
		mk, mf := merged.List()
		if !reflect.DeepEqual(mk, kept) || mf != from {
			t.Fatalf("round %d (bound %d, %d shards): the merged shards keep %d catalogs from %.8q, the whole run %d from %.8q",
				round, limit, len(shards), len(mk), mf, len(kept), from)
		}
	}
}

// TestCatalogsChecked: an envelope's catalogs are refused when a digest is
// not its servers', a name is not one line, or they are out of digest
// order; a case's coverage reads its catalog's tools.
func TestCatalogsChecked(t *testing.T) {
	a := NewCatalog([]ToolUse{{Server: "fs", Tool: "read"}, {Server: "fs", Tool: "write"}, {Tool: "search"}})
	b := NewCatalog([]ToolUse{{Server: "web", Tool: "fetch"}})
	cats := []Catalog{*a, *b}
	slices.SortFunc(cats, func(x, y Catalog) int { return strings.Compare(x.SHA256, y.SHA256) })
	env := &Envelope{SchemaVersion: 1, Catalogs: cats, Cases: []*CaseResult{
		{Name: "x", Verdict: Pass, Catalog: a.SHA256, Tools: []ToolUse{{Server: "fs", Tool: "read", Calls: 2}}},
	}}
	if err := env.Check(); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(env.CaseTools(env.Cases[0]))
	if string(got) != `[{"tool":"search","calls":0},{"server":"fs","tool":"read","calls":2},{"server":"fs","tool":"write","calls":0}]` {
		t.Errorf("case tools: %s", got)
	}
	cov := env.ToolCoverage()
	if cov.Known != 3 || cov.Covered != 1 || len(cov.Uncovered) != 2 {
		t.Errorf("coverage: %+v (b is named by no case: not counted)", cov)
	}
	for name, bad := range map[string]func(e *Envelope){
		"digest": func(e *Envelope) { e.Catalogs[0].Servers[0].Tools = []string{"other"} },
		"order":  func(e *Envelope) { e.Catalogs[0], e.Catalogs[1] = e.Catalogs[1], e.Catalogs[0] },
		"line": func(e *Envelope) {
			e.Catalogs[0].Servers[0].Server = "a\nb"
			e.Catalogs[0].SHA256 = catalogDigest(e.Catalogs[0].Servers)
		},
		"empty": func(e *Envelope) {
			e.Catalogs[0].Servers[0].Tools = []string{""}
			e.Catalogs[0].SHA256 = catalogDigest(e.Catalogs[0].Servers)
		},
		"from":     func(e *Envelope) { e.CatalogsFrom = "\x1b[31m" },
		"case ref": func(e *Envelope) { e.Cases[0].Catalog = "a\u202eb" },
	} {
		e := *env
		e.Catalogs = []Catalog{cats[0], cats[1]}
		for i := range e.Catalogs {
			e.Catalogs[i].Servers = slices.Clone(e.Catalogs[i].Servers)
			for j := range e.Catalogs[i].Servers {
				e.Catalogs[i].Servers[j].Tools = slices.Clone(e.Catalogs[i].Servers[j].Tools)
			}
		}
		c := *env.Cases[0]
		e.Cases = []*CaseResult{&c}
		bad(&e)
		if err := e.Check(); err == nil {
			t.Errorf("%s: a bad catalog was not refused", name)
		}
	}
}
