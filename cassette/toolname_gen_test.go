package cassette

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestResolveToolGenerated draws catalogs (names of one to three words
// joined by '-', '_' or '.', with a same-but-for-spelling twin of a
// tool now and then, and a tool named as a prefixed spelling of another)
// and recorded spellings of their tools (the case changed, the separators
// swapped, a server prefix as Mastra's server_, or server__, server.,
// server:), and of tools the catalog lacks, and holds ResolveTool to the
// rule: an exact name first; else one name folded equal, else one name
// after the first prefix cut that matches; two or more refused, named.
func TestResolveToolGenerated(t *testing.T) {
	words := []string{"get", "sum", "echo", "read", "file", "list", "toggle", "logging", "create", "entities", "Search"}
	seps := []string{"-", "_", "."}
	prefixSeps := []string{"_", "__", ".", ":", "/"}
	servers := []string{"everything", "mem", "FS", "srv1"}
	word := func(r *rand.Rand) string {
		n := 1 + r.IntN(3)
		sep := seps[r.IntN(len(seps))]
		var parts []string
		for range n {
			parts = append(parts, words[r.IntN(len(words))])
		}
		return strings.Join(parts, sep)
	}
	respell := func(r *rand.Rand, s string) string {
		b := []byte(s)
		for i, c := range b {
			switch {
			case c == '-' || c == '_' || c == '.':
				b[i] = "-_. "[r.IntN(4)]
			case r.IntN(4) == 0 && c >= 'a' && c <= 'z':
				b[i] = c - 'a' + 'A'
			case r.IntN(4) == 0 && c >= 'A' && c <= 'Z':
				b[i] = c - 'A' + 'a'
			}
		}
		return string(b)
	}
	folded := func(names []string, s string) []string {
		var got []string
		for _, n := range names {
			if FoldToolName(n) == FoldToolName(s) && !slices.Contains(got, n) {
				got = append(got, n)
			}
		}
		slices.Sort(got)
		return got
	}
	resolved, refused := 0, 0
	for seed := range uint64(5000) {
		r := rand.New(rand.NewPCG(seed, 38))
		var names []string
		for range 1 + r.IntN(6) {
			n := word(r)
			names = append(names, n)
			switch r.IntN(6) {
			case 0: // a twin that folds the same: ambiguous when not exact
				names = append(names, respell(r, n))
			case 1: // the same tool on a second server
				names = append(names, n)
			case 2: // a tool named as another's prefixed spelling
				names = append(names, servers[r.IntN(len(servers))]+"_"+n)
			}
		}
		tool := names[r.IntN(len(names))]
		fromCatalog := r.IntN(5) > 0
		if !fromCatalog {
			tool = word(r)
		}
		recorded := tool
		if r.IntN(2) == 0 {
			recorded = respell(r, recorded)
		}
		prefixed := r.IntN(2) == 0
		if prefixed {
			recorded = servers[r.IntN(len(servers))] + prefixSeps[r.IntN(len(prefixSeps))] + recorded
		}
		name, amb := ResolveTool(names, recorded)
		// Unique or refused, and only ever a catalog name.
		if name != "" && (amb != nil || !slices.Contains(names, name)) {
			t.Fatalf("seed %d: ResolveTool(%q, %q) = %q, %q: not one catalog name", seed, names, recorded, name, amb)
		}
		if amb != nil && (name != "" || len(amb) < 2 || !slices.IsSorted(amb) || len(folded(amb, amb[0])) != len(amb)) {
			t.Fatalf("seed %d: ResolveTool(%q, %q) = %q, %q: a refusal names two or more names that fold the same", seed, names, recorded, name, amb)
		}
		if name != "" {
			resolved++
		} else if amb != nil {
			refused++
		}
		// Exact first.
		if slices.Contains(names, recorded) {
			if name != recorded || amb != nil {
				t.Fatalf("seed %d: ResolveTool(%q, %q) = %q, %q: want the exact name", seed, names, recorded, name, amb)
			}
			continue
		}
		// Then the names folded equal to the whole recorded name.
		want := folded(names, recorded)
		if len(want) == 0 && prefixed && !strings.ContainsAny(tool[:1], "_.:/") {
			// The first cut is the server prefix: what is left is the
			// tool as spelled.
			want = folded(names, strings.TrimLeft(recorded[strings.IndexAny(recorded, "_.:/"):], "_.:/"))
		}
		switch {
		case len(want) == 1:
			if name != want[0] || amb != nil {
				t.Fatalf("seed %d: ResolveTool(%q, %q) = %q, %q: want %q", seed, names, recorded, name, amb, want[0])
			}
		case len(want) > 1:
			if name != "" || !slices.Equal(amb, want) {
				t.Fatalf("seed %d: ResolveTool(%q, %q) = %q, %q: want refused as %q", seed, names, recorded, name, amb, want)
			}
		case fromCatalog:
			t.Fatalf("seed %d: ResolveTool(%q, %q) = %q, %q: a spelling of catalog tool %q resolved to nothing", seed, names, recorded, name, amb, tool)
		case name != "":
			// A name the catalog lacks matched only through a later cut:
			// what is left after some separator folds to it.
			ok := false
			for i := 1; i < len(recorded); i++ {
				if strings.ContainsRune("_.:/", rune(recorded[i-1])) && FoldToolName(strings.TrimLeft(recorded[i:], "_.:/")) == FoldToolName(name) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("seed %d: ResolveTool(%q, %q) = %q: no prefix cut leaves it", seed, names, recorded, name)
			}
		}
	}
	if resolved < 1000 || refused < 100 {
		t.Errorf("the draws resolved %d and refused %d names: too few to hold the rule", resolved, refused)
	}
}

// TestResolveToolFrameworks holds the rule to the spellings the
// frameworks write of server-everything's tools.
func TestResolveToolFrameworks(t *testing.T) {
	catalog := []string{"echo", "get-sum", "toggle-simulated-logging", "get-resource-links"}
	for _, tc := range []struct {
		recorded, want string
		ambiguous      []string
	}{
		{"get-sum", "get-sum", nil},
		{"everything_get-sum", "get-sum", nil},  // Mastra
		{"get_sum", "get-sum", nil},             // Agents SDK
		{"everything__get_sum", "get-sum", nil}, // double underscore
		{"everything.toggle-simulated-logging", "toggle-simulated-logging", nil},
		{"mcp:GET_SUM", "get-sum", nil},
		{"get-product", "", nil},
		{"_get-sum", "", nil}, // nothing before the separator: no prefix to drop
		{"", "", nil},
	} {
		name, amb := ResolveTool(catalog, tc.recorded)
		if name != tc.want || !slices.Equal(amb, tc.ambiguous) {
			t.Errorf("ResolveTool(%q) = %q, %q; want %q, %q", tc.recorded, name, amb, tc.want, tc.ambiguous)
		}
	}
	name, amb := ResolveTool([]string{"get-sum", "get_sum", "sum"}, "srv_GET_SUM")
	if name != "" || !slices.Equal(amb, []string{"get-sum", "get_sum"}) {
		t.Errorf("two tools that fold the same: got %q, %q; want refused, naming both", name, amb)
	}
}
