package cassette

import (
	"strings"
	"testing"
)

// TestV1LongCallList: a turn of more than countFrom calls makes room for
// the calls left at once, once: the list holds them all, in order, with
// little room left over (a size class, past two thousand calls).
func TestV1LongCallList(t *testing.T) {
	for _, n := range []int{countFrom, countFrom + 1, 3000, 5000} {
		var b strings.Builder
		b.WriteString(`{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [`)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(`{"server": "s", "tool": "t", "arguments": {"i": ` + strings.Repeat("1", 1+i%3) + `, "s": "a,]b"}}`)
		}
		b.WriteString(`]}]}]}`)
		c, err := Read("long.json", []byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		calls := c.Runs[0].Turns[0].Calls
		if len(calls) != n {
			t.Fatalf("%d calls read of %d", len(calls), n)
		}
		if n > 2*countFrom && cap(calls) > n+n/16 {
			t.Errorf("%d calls held in a list of capacity %d: grown step by step, not made room for at once", n, cap(calls))
		}
	}
}

// TestV1CatalogNullDescription: a catalog tool whose description is null
// has none (the catalog is decoded with its null members left out).
func TestV1CatalogNullDescription(t *testing.T) {
	doc := `{"mcptest_cassette": 1, "catalog": {"s": {"tools": [{"name": "t", "description": null, "inputSchema": {"type": "object"}}]}}, "runs": []}`
	c, err := Read("c.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Catalog) != 1 || len(c.Catalog[0].Tools) != 1 || c.Catalog[0].Tools[0].Description != "" {
		t.Errorf("catalog %+v", c.Catalog)
	}
}
