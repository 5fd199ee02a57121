package schema

import (
	"encoding/json"
	"os"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestEachSchemaCompilesAlone holds each schema to its own compiler (none
// refers to another, so each is compiled on its first use without the
// others: a run that checks its suite does not pay for the cassette and
// envelope schemas): each accepts a bundled document of its kind and
// refuses the others' documents.
func TestEachSchemaCompilesAlone(t *testing.T) {
	var suiteDoc any
	data, err := os.ReadFile("../../examples/quickstart/suite.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &suiteDoc); err != nil {
		t.Fatal(err)
	}
	// The YAML decoder's maps and ints become the JSON decoder's.
	if data, err = json.Marshal(suiteDoc); err != nil {
		t.Fatal(err)
	}
	suiteDoc = nil
	if err := json.Unmarshal(data, &suiteDoc); err != nil {
		t.Fatal(err)
	}
	docs := map[string]any{"suite": suiteDoc}
	for name, path := range map[string]string{"cassette": "../../examples/quickstart/cassettes/research.json", "envelope": "../../examples/baseline/baseline.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		docs[name] = v
	}
	for _, c := range []struct {
		name   string
		schema interface{ Validate(any) error }
	}{{"suite", Suite()}, {"cassette", Cassette()}, {"envelope", Envelope()}} {
		for _, doc := range Names {
			err := c.schema.Validate(docs[doc])
			if doc == c.name && err != nil {
				t.Errorf("the %s schema refuses the bundled %s: %v", c.name, doc, err)
			}
			if doc != c.name && err == nil {
				t.Errorf("the %s schema accepts the bundled %s", c.name, doc)
			}
		}
	}
}
