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

// TestNewCatalogSortsAndDedups: drawn tool lists, shuffled and repeated,
// give the catalog of their distinct (server, tool) pairs in server then
// tool order, and one digest for one set however it was listed.
func TestNewCatalogSortsAndDedups(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 41))
	for range 300 {
		var tools []ToolUse
		want := map[ToolUse]bool{}
		for range 1 + r.IntN(20) {
			u := ToolUse{Server: []string{"", "fs", "web"}[r.IntN(3)], Tool: []string{"a", "b", "fs", "web"}[r.IntN(4)]}
			tools = append(tools, u, u) // each given twice
			want[u] = true
		}
		r.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		c := NewCatalog(tools)
		var got []ToolUse
		for _, s := range c.Servers {
			for _, tool := range s.Tools {
				got = append(got, ToolUse{Server: s.Server, Tool: tool})
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%v: %d tools in the catalog, want %d distinct: %+v", tools, len(got), len(want), c.Servers)
		}
		for i, u := range got {
			if !want[u] {
				t.Fatalf("%+v is not among the tools given", u)
			}
			if i > 0 && (got[i-1].Server > u.Server || got[i-1].Server == u.Server && got[i-1].Tool >= u.Tool) {
				t.Fatalf("catalog out of order or repeated: %+v", c.Servers)
			}
		}
		slices.Reverse(tools)
		if again := NewCatalog(tools); again.SHA256 != c.SHA256 {
			t.Fatalf("one set, two digests: %s and %s", c.SHA256, again.SHA256)
		}
	}
}

// TestCatalogTableEdges: the bound's edges. A table whose catalogs come to
// exactly its bound keeps them all; one byte less drops the largest digest;
// Max 0 or less is MaxCatalogBytes; a bound under every catalog keeps
// none, its catalogs_from the smallest digest; a digest dropped is never added again, and
// DropFrom drops the digest it names.
func TestCatalogTableEdges(t *testing.T) {
	a := NewCatalog([]ToolUse{{Server: "fs", Tool: "read"}})
	b := NewCatalog([]ToolUse{{Server: "web", Tool: "get"}})
	if a.SHA256 > b.SHA256 {
		a, b = b, a
	}
	exact := a.size() + 1 + b.size() + 1
	kept := func(tb *CatalogTable) []string {
		list, _ := tb.List()
		var out []string
		for _, c := range list {
			out = append(out, c.SHA256)
		}
		return out
	}
	full := &CatalogTable{Max: exact}
	full.Add(a)
	full.Add(b)
	if got := kept(full); len(got) != 2 {
		t.Errorf("at exactly its bound the table keeps %d catalogs, want 2", len(got))
	}
	short := &CatalogTable{Max: exact - 1}
	short.Add(b)
	short.Add(a)
	if got := kept(short); !slices.Equal(got, []string{a.SHA256}) {
		t.Errorf("one byte under: kept %v, want the smaller digest only", got)
	}
	if _, from := short.List(); from != b.SHA256 {
		t.Errorf("catalogs_from %q, want the dropped %q", from, b.SHA256)
	}
	short.Add(b)
	if got := kept(short); len(got) != 1 {
		t.Errorf("a dropped digest added again: kept %v", got)
	}
	var def CatalogTable
	def.Add(a)
	if got := kept(&def); len(got) != 1 {
		t.Errorf("Max 0 (MaxCatalogBytes) kept %d catalogs, want 1", len(got))
	}
	tiny := &CatalogTable{Max: 1} // under any catalog: each one added is dropped at once
	tiny.Add(b)
	tiny.Add(a)
	if got, from := tiny.List(); len(got) != 0 || from != a.SHA256 {
		t.Errorf("Max 1: kept %d catalogs from %.8q, want none from the smaller digest %.8q", len(got), from, a.SHA256)
	}
	neg := &CatalogTable{Max: -1}
	neg.Add(a)
	if got := kept(neg); len(got) != 1 {
		t.Errorf("Max -1 (MaxCatalogBytes) kept %d catalogs, want 1", len(got))
	}
	var drop CatalogTable
	drop.Add(a)
	drop.Add(b)
	drop.DropFrom(b.SHA256)
	if got := kept(&drop); !slices.Equal(got, []string{a.SHA256}) {
		t.Errorf("DropFrom(b): kept %v, want a only", got)
	}
	drop.Add(b)
	if got := kept(&drop); len(got) != 1 {
		t.Errorf("b added after DropFrom(b): kept %v", got)
	}
}
