package envstream

import (
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestCaseDecodeCostIsMemory holds report.DecodeCost, which the readers
// hold each case to before decoding it, to the case decoder: the live
// heap of a case decoded by decodeCase, with the JSON that costs the most
// a byte as its assertion's matcher, is at most its DecodeCost (and a
// little), whichever decoder takes it (segmentio's for plain members,
// encoding/json for a case with an escaped name).
func TestCaseDecodeCostIsMemory(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 40_000
	}
	flood := func(elem string) []byte {
		return []byte("[" + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]")
	}
	nest := func(open, close string, depth int) string {
		return strings.Repeat(open, depth) + "0" + strings.Repeat(close, depth)
	}
	env := genEnvelope(rand.New(rand.NewPCG(8, 9)), 6, "cost")
	var raw []byte
	for _, c := range env.Cases {
		if len(c.Assertions) > 0 {
			raw = marshal(t, c)
			break
		}
	}
	if raw == nil {
		t.Fatal("no case with an assertion")
	}
	shapes := map[string][]byte{
		"empty objects":      flood("{}"),
		"one-member maps":    flood(`{"a":0}`),
		"nine-member maps":   flood(`{"a":0,"b":1,"c":2,"d":3,"e":4,"f":5,"g":6,"h":7,"i":8}`),
		"nested maps":        flood(nest(`{"a":`, "}", 6)),
		"empty arrays":       flood("[]"),
		"one-element arrays": flood("[0]"),
		"nested arrays":      flood(nest("[", "]", 6)),
		"strings":            flood(`"sunny and mild"`),
		"numbers":            flood("1.5"),
	}
	for name, matcher := range shapes {
		for _, escaped := range []bool{false, true} {
			var c map[string]json.RawMessage
			if err := json.Unmarshal(raw, &c); err != nil {
				t.Fatal(err)
			}
			var asserts []map[string]json.RawMessage
			if err := json.Unmarshal(c["assertions"], &asserts); err != nil {
				t.Fatal(err)
			}
			asserts[0]["matcher"] = matcher
			c["assertions"] = marshal(t, asserts)
			doc := marshal(t, c)
			if escaped {
				// a member named with an escape: plainMembers passes the
				// case to encoding/json
				doc = append([]byte(`{"x\u0041":0,`), doc[1:]...)
			}
			if plainMembers(doc) == escaped {
				t.Fatalf("%s: plainMembers %v", name, !escaped)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var got report.CaseResult
			if err := decodeCase(doc, &got); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			runtime.KeepAlive(&got)
			cost := report.DecodeCost(doc)
			t.Logf("%s (escaped %v): %d bytes, DecodeCost %d, live %d (%.2f)", name, escaped, len(doc), cost, live, float64(live)/float64(cost))
			if live > cost+cost/20+256<<10 {
				t.Errorf("%s (escaped %v): the decoded case holds %d bytes live, over its DecodeCost %d", name, escaped, live, cost)
			}
		}
	}
}
