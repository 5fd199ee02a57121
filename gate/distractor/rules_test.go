package distractor

import (
	"slices"
	"testing"
)

func names(tools []Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// TestGenerateRules: no distractors for a count of 0 or less; from the
// catalog, the first Count tools in its order, a correct tool's name
// (server prefix stripped) skipped; near-duplicates in rounds, one variant
// of every name per round, up to Count.
func TestGenerateRules(t *testing.T) {
	for _, n := range []int{0, -1} {
		if got := Generate(Config{From: FromCatalog, Count: n}); got == nil || len(got) != 0 {
			t.Errorf("Count %d: %v, want an empty list", n, got)
		}
	}
	cat := names(Catalog())
	if got := names(Generate(Config{From: FromCatalog, Count: 2})); !slices.Equal(got, cat[:2]) {
		t.Errorf("catalog, 2: %q, want %q", got, cat[:2])
	}
	if got := names(Generate(Config{From: FromCatalog, Count: 2, Correct: []string{"srv." + cat[0]}})); !slices.Equal(got, cat[1:3]) {
		t.Errorf("catalog, 2, %s correct: %q, want %q", cat[0], got, cat[1:3])
	}
	if got := Generate(Config{From: FromCatalog, Count: len(cat) + 5}); len(got) != len(cat) {
		t.Errorf("catalog, more than it holds: %d, want %d", len(got), len(cat))
	}
	for _, tc := range []struct {
		of    []string
		count int
		want  []string
	}{
		{[]string{"catalog.search_products"}, 4, []string{"search_products_v2", "search_products_internal", "searchProducts", "search_product"}},
		{[]string{"search_products"}, 1, []string{"search_products_v2"}},
		{[]string{"a_b", "c_d"}, 3, []string{"a_b_v2", "c_d_v2", "a_b_internal"}},
		{[]string{"a_b"}, 10, []string{"a_b_v2", "a_b_internal", "aB", "a_bs"}},
	} {
		got := Generate(Config{From: FromNearDuplicate, Of: tc.of, Count: tc.count})
		if !slices.Equal(names(got), tc.want) {
			t.Errorf("near duplicates of %q, %d: %q, want %q", tc.of, tc.count, names(got), tc.want)
		}
	}
}

// TestWords: names split at _, -, space, dot and a lower-to-upper step,
// never into empty words; the description is the words, capitalised.
func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"search_products": {"search", "products"}, "a__b": {"a", "b"}, "a.b-c d_e": {"a", "b", "c", "d", "e"},
		"getProduct": {"get", "product"}, "Search": {"search"}, "HTTPServer": {"httpserver"}, "_": nil,
	} {
		if got := splitWords(in); !slices.Equal(got, want) {
			t.Errorf("splitWords(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"search_products": "Search products.", "": "", "__": "", "x": "X."} {
		if got := describe(in); got != want {
			t.Errorf("describe(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"ies": "ie", "y": "ys", "key": "keys", "boss": "bosses", "glasses": "glass",
		"bush": "bushes", "dishes": "dish", "box": "boxes", "a_y": "a_ys", "": ""} {
		if got := flipPlural(in); got != want {
			t.Errorf("flipPlural(%q) = %q, want %q", in, got, want)
		}
	}
	if got := recase(""); got != "" {
		t.Errorf("recase(\"\") = %q", got)
	}
}
