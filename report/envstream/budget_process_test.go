package envstream

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mcptest/mcptest/internal/jsonpos"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
)

// TestEnvelopeFloodsWithinBudgetProcess plants each flood at each place
// of a case that decodes into generic values (an assertion's matcher and
// actual value, the final state of a scenario's world, a member no field
// takes) and in the envelope's head, in the baseline and in the head
// envelope in turn, and runs the built binary's `report --compare` (JSON
// and HTML) and `report merge` over it, its peak resident set measured.
// Over the budget every command exits 2 with the budget's error placed
// at a line and column, within at most a few times the file; at 0.9 of the floor past
// the ratio the same floods are read.
func TestEnvelopeFloodsWithinBudgetProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary over 48 envelopes of 5 to 8 MB")
	}
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	env := genEnvelope(rand.New(rand.NewPCG(5, 40)), 12, "flood")
	var shards [2][]byte
	for i, sh := range shardsOf(env, 2) {
		writeEnv(t, filepath.Join(dir, "plain.json"), sh)
		data, err := os.ReadFile(filepath.Join(dir, "plain.json"))
		if err != nil {
			t.Fatal(err)
		}
		shards[i] = data
	}
	type place struct {
		name string
		// plant puts flood into a case's JSON object, or the envelope's
		// head, of doc.
		plant func(doc, flood []byte) []byte
	}
	caseMember := func(member string) func(doc, flood []byte) []byte {
		return func(doc, flood []byte) []byte { return plantInCase(t, doc, member, flood) }
	}
	places := []place{
		{"an assertion's matcher", caseMember("matcher")},
		{"an assertion's actual value", caseMember("actual")},
		{"a final state", caseMember("final_state")},
		{"a member no field takes", caseMember("x_extension")},
		{"the head", func(doc, flood []byte) []byte {
			return bytes.Replace(doc, []byte(`{`), append(append([]byte(`{"x_extension":`), flood...), ','), 1)
		}},
	}
	commands := map[string][]string{
		"compare": {"report", "head.json", "--compare", "base.json", "--format", "json", "--fail-on", "none", "--output", "out.json"},
		"html":    {"report", "head.json", "--compare", "base.json", "--format", "html", "--fail-on", "none", "--output", "out.html"},
		"merge":   {"report", "merge", "base.json", "head.json", "--output", "merged.json"},
	}
	placed := regexp.MustCompile(`(?m)^mcptest: (base|head)\.json:\d+:\d+: .* the values before this point take up the decode budget of `)
	for _, scale := range []float64{1.5, 0.9} {
		for shape, text := range casedraw.Floods(scale, 40, report.DecodeCost) {
			flood := []byte(text)
			for i, p := range places {
				// the flood goes into the head envelope, or the baseline,
				// in turn
				docs := [2][]byte{shards[0], shards[1]}
				which := i % 2
				docs[which] = p.plant(docs[which], flood)
				for j, name := range []string{"base.json", "head.json"} {
					if err := os.WriteFile(filepath.Join(dir, name), docs[j], 0o644); err != nil {
						t.Fatal(err)
					}
				}
				size := int64(len(docs[which]))
				for what, args := range commands {
					u, stderr := launchMeasured(t, dir, bin, args...)
					label := shape + " in " + p.name + " of " + []string{"base.json", "head.json"}[which] + ", " + what
					if scale > 1 {
						// refused: the raw case (held once or twice) and
						// the program, never its decoded value
						if limit := 3*size + 48<<20; u.Code != 2 || !placed.MatchString(stderr) || u.Peak > limit {
							t.Errorf("%s (%d bytes): exit %d, peak %d KiB (at most %d), stderr:\n%.600s", label, size, u.Code, u.Peak>>10, limit>>10, stderr)
						}
						continue
					}
					// read: within twice the budget, the file three times and
					// the program
					if limit := 2*jsonpos.DecodeBudget(int(size)) + 3*size + 48<<20; u.Code == 2 || u.Peak > limit {
						t.Errorf("%s, within the budget (%d bytes): exit %d, peak %d KiB (at most %d), stderr:\n%.600s", label, size, u.Code, u.Peak>>10, limit>>10, stderr)
					}
				}
			}
		}
	}
}

// plantInCase sets member of the first case of doc (an envelope) that has
// an assertion to flood: in the case's first assertion for matcher and
// actual, in the first run of a scenario record for final_state, in the
// case itself for any other member.
func plantInCase(t *testing.T, doc []byte, member string, flood []byte) []byte {
	t.Helper()
	var env map[string]json.RawMessage
	if err := json.Unmarshal(doc, &env); err != nil {
		t.Fatal(err)
	}
	var cases []map[string]json.RawMessage
	if err := json.Unmarshal(env["cases"], &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		var asserts []map[string]json.RawMessage
		if json.Unmarshal(c["assertions"], &asserts) != nil || len(asserts) == 0 {
			continue
		}
		switch member {
		case "matcher", "actual":
			asserts[0][member] = flood
			c["assertions"] = marshal(t, asserts)
		case "final_state":
			c["scenario"] = append(append([]byte(`{"runs":[{"run":1,"state_matched":true,"final_state":{"flood":`), flood...),
				`},"diff":[],"tool_names":[],"invalid_actions":[],"forbidden_transitions":[]}]}`...)
		default:
			c[member] = flood
		}
		env["cases"] = marshal(t, cases)
		return marshal(t, env)
	}
	t.Fatal("no case with an assertion")
	return nil
}

// marshal is v's JSON as the envelope's writer writes it: compact, with
// no character escaped for HTML.
func marshal(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestCompareFloodInALaterCaseProcess plants each flood in a case of the
// current run past its first (an assertion's actual value of case 5 of
// 40), where --compare offers the baseline's case to take and the text
// is another, and runs the built binary's `report --compare` (JSON and
// HTML) and `report merge` over it: each exits 2 with the budget's error
// placed, within a few times the file. `--compare` decoded the flood
// (2.5 GB resident, exit 0, for 20 MB of `{}`): the case it scanned
// instead of taking was never held to the budget.
func TestCompareFloodInALaterCaseProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary over envelopes of a few MB")
	}
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	base := filepath.Join(dir, "base.json")
	doc := writeRun(t, base, 40)
	at := bytes.Index(doc, []byte(`"name":"generated case 0000005"`))
	start := at + bytes.Index(doc[at:], []byte(`"actual":`)) + len(`"actual":`)
	end := start + bytes.IndexByte(doc[start:], ',')
	placed := regexp.MustCompile(`(?m)^mcptest: head\.json:\d+:\d+: (cases\[4\]|the envelope) would take .* the values before this point take up the decode budget of `)
	for shape, flood := range casedraw.Floods(1.5, 40, report.DecodeCost) {
		head := append(append(append([]byte{}, doc[:start]...), flood...), doc[end:]...)
		if err := os.WriteFile(filepath.Join(dir, "head.json"), head, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"report", "head.json", "--compare", "base.json", "--format", "json", "--fail-on", "none", "--output", "out.json"},
			{"report", "head.json", "--compare", "base.json", "--format", "html", "--fail-on", "none", "--output", "out.html"},
			{"report", "merge", "head.json", "--output", "merged.json"},
		} {
			u, stderr := launchMeasured(t, dir, bin, args...)
			if limit := 3*int64(len(head)) + 48<<20; u.Code != 2 || !placed.MatchString(stderr) || u.Peak > limit {
				t.Errorf("%s in case 5, %v: exit %d, peak %d KiB (at most %d), stderr:\n%.600s", shape, args[:3], u.Code, u.Peak>>10, limit>>10, stderr)
			}
		}
	}
}
