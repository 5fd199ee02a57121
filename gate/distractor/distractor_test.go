package distractor

import "testing"

func TestFlipPlural(t *testing.T) {
	for in, want := range map[string]string{
		"search_products": "search_product", "get_product": "get_products", "list_categories": "list_category",
		"get_category": "get_categories", "search": "searches", "fetch_boxes": "fetch_box", "day": "days",
		"get-address": "get-addresses", "": "",
	} {
		if got := flipPlural(in); got != want {
			t.Errorf("flipPlural(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRecase(t *testing.T) {
	for in, want := range map[string]string{
		"search_products": "searchProducts", "get-product": "getProduct", "searchProducts": "SearchProducts", "Fetch": "fetch",
	} {
		if got := recase(in); got != want {
			t.Errorf("recase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCatalogNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, tool := range Catalog() {
		if seen[tool.Name] {
			t.Errorf("catalog tool %q twice", tool.Name)
		}
		seen[tool.Name] = true
	}
}

func TestNearDuplicateSkipsRealNames(t *testing.T) {
	// The plural of `get_products` is `get_product`, a real tool: skipped.
	got := Generate(Config{From: FromNearDuplicate, Of: []string{"get_products", "get_product"}, Count: 100})
	for _, tool := range got {
		if tool.Name == "get_product" || tool.Name == "get_products" {
			t.Errorf("a look-alike took a real tool's name: %q", tool.Name)
		}
	}
	if Generate(Config{From: "nope", Count: 3}) == nil {
		t.Error("an unknown source gives an empty list, not nil")
	}
}
