package cassette

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The words, separators and servers the generated names are made of.
var (
	genWords      = []string{"get", "sum", "echo", "read", "file", "list", "toggle", "logging", "create", "entities", "Search"}
	genSeps       = []string{"-", "_", "."}
	genPrefixSeps = []string{"_", "__", ".", ":", "/"}
	genServers    = []string{"everything", "mem", "FS", "srv1"}
)

// genName draws a tool name of one to three words and one separator.
func genName(r *rand.Rand) string {
	sep := genSeps[r.IntN(len(genSeps))]
	var parts []string
	for range 1 + r.IntN(3) {
		parts = append(parts, genWords[r.IntN(len(genWords))])
	}
	return strings.Join(parts, sep)
}

// genRespell swaps separators (space too) and the case of some letters.
func genRespell(r *rand.Rand, s string) string {
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

// genCatalog draws a catalog's names: now and then a twin that folds the
// same, the same tool on a second server, or a tool named as another's
// prefixed spelling.
func genCatalog(r *rand.Rand) []string {
	var names []string
	for range 1 + r.IntN(6) {
		n := genName(r)
		names = append(names, n)
		switch r.IntN(6) {
		case 0:
			names = append(names, genRespell(r, n))
		case 1:
			names = append(names, n)
		case 2:
			names = append(names, genServers[r.IntN(len(genServers))]+"_"+n)
		}
	}
	return names
}

// foldedIn is the distinct names that fold as s does, sorted.
func foldedIn(names []string, s string) []string {
	var got []string
	for _, n := range names {
		if FoldToolName(n) == FoldToolName(s) && !slices.Contains(got, n) {
			got = append(got, n)
		}
	}
	slices.Sort(got)
	return got
}

// genWant is what the rule resolves recorded to when it can be told
// without ResolveTool: the exact name; else the names folded equal to
// it; else, for a spelling of tool behind a server prefix (no separator
// in the server), the names folded equal to what follows the prefix.
// known is false when the rule's later cuts decide.
func genWant(names []string, recorded string, prefixed bool) (want []string, known bool) {
	if slices.Contains(names, recorded) {
		return []string{recorded}, true
	}
	if want = foldedIn(names, recorded); len(want) > 0 {
		return want, true
	}
	if prefixed {
		rest := strings.TrimLeft(recorded[strings.IndexAny(recorded, "_.:/"):], "_.:/")
		if want = foldedIn(names, rest); len(want) > 0 {
			return want, true
		}
	}
	return nil, false
}

// checkResolved holds one answer of ResolveTool to the rule: unique or
// refused, only ever catalog names, and what genWant knows.
func checkResolved(t *testing.T, seed uint64, names []string, recorded, name string, amb []string, want []string, known bool) {
	t.Helper()
	if name != "" && (amb != nil || !slices.Contains(names, name)) {
		t.Fatalf("seed %d: ResolveTool(%q, %q) = %q, %q: not one catalog name", seed, names, recorded, name, amb)
	}
	if amb != nil && (name != "" || len(amb) < 2 || !slices.IsSorted(amb) || len(foldedIn(amb, amb[0])) != len(amb)) {
		t.Fatalf("seed %d: ResolveTool(%q, %q) = %q, %q: a refusal names two or more names that fold the same", seed, names, recorded, name, amb)
	}
	switch {
	case !known && name != "":
		// Matched only through a later cut: what is left after some
		// separator folds to it.
		for i := 1; i < len(recorded); i++ {
			if strings.ContainsRune("_.:/", rune(recorded[i-1])) && FoldToolName(strings.TrimLeft(recorded[i:], "_.:/")) == FoldToolName(name) {
				return
			}
		}
		t.Fatalf("seed %d: ResolveTool(%q, %q) = %q: no prefix cut leaves it", seed, names, recorded, name)
	case !known:
	case len(want) == 1 && (name != want[0] || amb != nil):
		t.Fatalf("seed %d: ResolveTool(%q, %q) = %q, %q: want %q", seed, names, recorded, name, amb, want[0])
	case len(want) > 1 && (name != "" || !slices.Equal(amb, want)):
		t.Fatalf("seed %d: ResolveTool(%q, %q) = %q, %q: want refused as %q", seed, names, recorded, name, amb, want)
	}
}

// TestResolveToolGenerated draws catalogs (genCatalog) and recorded
// spellings of their tools (the case changed, the separators swapped, a
// server prefix as Mastra's server_, or server__, server., server:,
// server/), and of tools the catalog lacks, and holds ResolveTool to the
// rule: an exact name first; else one name folded equal, else one name
// after the first prefix cut that matches; two or more refused, named.
func TestResolveToolGenerated(t *testing.T) {
	resolved, refused := 0, 0
	for seed := range uint64(5000) {
		r := rand.New(rand.NewPCG(seed, 38))
		names := genCatalog(r)
		tool := names[r.IntN(len(names))]
		fromCatalog := r.IntN(5) > 0
		if !fromCatalog {
			tool = genName(r)
		}
		recorded := tool
		if r.IntN(2) == 0 {
			recorded = genRespell(r, recorded)
		}
		prefixed := r.IntN(2) == 0
		if prefixed {
			recorded = genServers[r.IntN(len(genServers))] + genPrefixSeps[r.IntN(len(genPrefixSeps))] + recorded
		}
		name, amb := ResolveTool(names, recorded)
		want, known := genWant(names, recorded, prefixed)
		if fromCatalog && !known {
			t.Fatalf("seed %d: no rule found catalog tool %q spelled %q in %q", seed, tool, recorded, names)
		}
		checkResolved(t, seed, names, recorded, name, amb, want, known)
		if name != "" {
			resolved++
		} else if amb != nil {
			refused++
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
