package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/engine/schema"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// pieceItems are items a suite's sections hold, valid and not: a mistake
// of every kind the schema words (a missing key, a typo, a wrong type, a
// number out of range, a matcher's unknown operator, an unknown kind).
var pieceItems = []string{
	`{name: a, type: agent, cassette: c.json}`,
	`{}`,
	`{name: a}`,
	`{name: a, type: agent, cassete: c.json}`,
	`{name: 3, type: agent, cassette: c.json}`,
	`{name: a, type: agent, cassette: c.json, runs: -1}`,
	`{name: a, type: agent, cassette: c.json, expect: [{target: tool_names, matcher: {contain: x}}]}`,
	`{name: a, type: nope}`,
	`x`,
	`null`,
	`{name: a, type: agent, servers: [s, s], prompt: p, equal_function_sets: {classes: []}}`,
	`{name: a, model: m, prompt: p, servers: [s]}`,
	`{name: a, tool_selection: {expected_tool: t, min_selection_rate: 2}}`,
}

// drawSuite is a suite of drawn sections and items, sometimes with a
// root-level mistake.
func drawSuite(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(3) == 0 {
		b.WriteString("servers:\n  s: {command: [x]}\n")
	}
	if rng.IntN(5) == 0 {
		b.WriteString("bogus: 1\n")
	}
	for _, key := range []string{"tests", "agents", "tools", "evals"} {
		if rng.IntN(3) != 0 && key != "tests" {
			continue
		}
		b.WriteString(key + ":\n")
		for range 1 + rng.IntN(30) {
			fmt.Fprintf(&b, "  - %s\n", pieceItems[rng.IntN(len(pieceItems))])
		}
	}
	return b.String()
}

// TestValidatePiecewiseIsWhole holds the piecewise check of a large suite
// to the validator's over the whole document: on 600 drawn suites (up to
// 30 items a section, several sections, root-level mistakes) the errors,
// as the load reports them, are the same, with the same positions,
// pointers and hints.
func TestValidatePiecewiseIsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	broken := 0
	for n := range 600 {
		text := drawSuite(rng)
		d := readYAML("s.yml", []byte(text), yamlpos.Options{})
		if len(d.Errs) > 0 {
			t.Fatalf("suite %d does not read: %v\n%s", n, d.Errs, text)
		}
		root, _ := d.Root.(map[string]any)
		whole := dropImpliedRequired(schemaErrors(d, schema.Suite().Validate(d.Root), "", "")).Sorted()
		piece, stop := validatePiecewise(d, root)
		piece = dropImpliedRequired(piece).Sorted()
		if stop != "" {
			t.Fatalf("suite %d: stopped at %s under maxLoadErrors", n, stop)
		}
		if got, want := describeAll(piece), describeAll(whole); got != want {
			t.Fatalf("suite %d:\n%s\npiecewise:\n%s\nwhole:\n%s", n, text, got, want)
		}
		if len(whole) > 0 {
			broken++
		}
	}
	if broken < 400 {
		t.Errorf("only %d drawn suites with a mistake", broken)
	}
}

func describeAll(l diag.List) string {
	var b strings.Builder
	for _, e := range l {
		fmt.Fprintf(&b, "%s | %s | %s\n", e.Error(), e.Pointer, e.Hint)
	}
	return b.String()
}

// TestLoadStopsAtMaxLoadErrors: a suite of more mistakes than
// maxLoadErrors reports the first maxLoadErrors (and the rest of the
// errors of the item that reached them) and where it stopped,
// the schema's errors and the builder's (a runs: out of range beside a
// name and a type the schema takes) alike.
func TestLoadStopsAtMaxLoadErrors(t *testing.T) {
	for _, item := range []string{`{}`, `{name: a, type: agent, cassette: c.json, runs: 2000000}`} {
		text := "tests:\n" + strings.Repeat("  - "+item+"\n", 3*maxLoadErrors)
		_, err := parseSuiteWith(t.TempDir()+"/s.yml", []byte(text), loadMode{unrecorded: true, noDigest: true}, yamlpos.Options{})
		l, _ := err.(diag.List)
		last := l[len(l)-1]
		if len(l) <= maxLoadErrors || len(l) > maxLoadErrors+10 || !strings.HasPrefix(last.Message, "stopped here after 1000 errors: ") {
			t.Fatalf("%s: %d errors, the last %v; want the first %d or a few more and where it stopped", item, len(l), last, maxLoadErrors)
		}
	}
}
