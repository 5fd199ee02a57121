package engine

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDistractorLists: one tools/list per test with a distractors: block,
// named in _meta; nothing at all when no test has one.
func TestDistractorLists(t *testing.T) {
	path := writeSuiteFile(t, `
agents:
  - name: near duplicates
    cassette: c.json
    distractors:
      count: 2
      source: { from: near_duplicate, of: [search_products] }
      correct: [shop.search_products]
  - name: plain
    cassette: c.json
    equal_function_sets:
      classes: [{ name: search, members: [shop.search_products] }]
`, map[string]string{"c.json": `{"mcptest_cassette": 1, "runs": [{"turns": []}]}`})
	data, err := DistractorLists(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc toolsList
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("one document: %v\n%s", err, data)
	}
	if doc.Meta["mcptest/test"] != "near duplicates" || len(doc.Tools) != 2 {
		t.Errorf("document %+v", doc)
	}
	if data, err := DistractorLists(path, []string{"plain"}); data != nil || err != nil {
		t.Errorf("no block: %q %v", data, err)
	}
}

// TestValidateFiles gathers the problems of every file, in order.
func TestValidateFiles(t *testing.T) {
	ok := writeSuiteFile(t, "agents: []\n", nil)
	l, err := ValidateFiles([]string{"missing-a.yml", ok, "missing-b.yml"})
	if err != nil || len(l) != 2 || l[0].Pos.File != "missing-a.yml" || l[1].Pos.File != "missing-b.yml" {
		t.Errorf("got %v, %v", l, err)
	}
}
