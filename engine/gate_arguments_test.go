package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/report"
)

// argsCatalog is a tools/list whose tool get takes six integers, a to f.
const argsCatalog = `{"tools": [{"name": "get", "inputSchema": {"type": "object", "properties": {` +
	`"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}, ` +
	`"d": {"type": "integer"}, "e": {"type": "integer"}, "f": {"type": "integer"}}}}]}`

// argsCassette is a v1 cassette of one run, one call a line: turns[t][c]
// is the arguments of call c+1 of turn t+1.
func argsCassette(turns [][]string) string {
	var b strings.Builder
	b.WriteString(`{"mcptest_cassette": 1, "model": "m-1", "runs": [` + "\n" + `{"turns": [` + "\n")
	for ti, calls := range turns {
		b.WriteString(`{"calls": [` + "\n")
		for ci, args := range calls {
			b.WriteString(`{"server": "w", "tool": "get", "arguments": ` + args + `}`)
			if ci < len(calls)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(`], "final_response": "r"}`)
		if ti < len(turns)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n]}\n")
	return b.String()
}

// argumentsCase runs a one-case suite with an arguments: block over the
// cassette c.json and returns its result.
func argumentsCase(t *testing.T, cas string) *report.CaseResult {
	t.Helper()
	s := writeSuite(t, "agents:\n  - name: a\n    cassette: c.json\n    arguments: {catalog: tools.json}\n",
		map[string]string{"c.json": cas, "tools.json": argsCatalog})
	return run(t, s, Options{Version: "test"}).Cases[0]
}

// TestArgumentsViolationLine: a violation in a v1 cassette points at the
// offending value itself, line and column, whichever turn and call of the
// run holds it (turn and call counted from 1 in the finding, from 0 in the
// cassette's pointer): the first call of the first turn, the last of the
// last, and the two between.
func TestArgumentsViolationLine(t *testing.T) {
	for _, at := range [][2]int{{1, 1}, {1, 2}, {2, 1}, {2, 2}} {
		turns := [][]string{{`{"a": 1}`, `{"a": 2}`}, {`{"a": 3}`, `{"a": 4}`}}
		turns[at[0]-1][at[1]-1] = `{"a": 1, "b": "x"}`
		cas := argsCassette(turns)
		var line, col int
		for i, l := range strings.Split(cas, "\n") {
			if j := strings.Index(l, `"x"`); j >= 0 {
				line, col = i+1, j+1
			}
		}
		res := argumentsCase(t, cas)
		var found []report.Finding
		for _, f := range res.Findings {
			if f.Gate == "arguments" && f.Level == "error" {
				found = append(found, f)
			}
		}
		where := fmt.Sprintf("turn %d call %d", at[0], at[1])
		if len(found) != 1 || !strings.Contains(found[0].Message, where) {
			t.Errorf("a bad value at %s: findings %+v, want one naming it", where, res.Findings)
			continue
		}
		if p := found[0].Position; p == nil || filepath.Base(p.File) != "c.json" || p.Line != line || p.Col != col {
			t.Errorf("a bad value at %s: position %+v, want c.json:%d:%d", where, p, line, col)
		}
	}
}

// TestArgumentsLocatorRules: the locator gives no position without a
// cassette file, the file alone for a format it cannot point into, and the
// value's line and column in a v1 cassette.
func TestArgumentsLocatorRules(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "c.json")
	body := argsCassette([][]string{{`{"a": "x"}`}})
	writeFile(t, v1, body)
	line := strings.Split(body, "\n")[3] // the call, on line 4
	at := fmt.Sprintf("%s:4:%d", v1, strings.Index(line, `"x"`)+1)
	for _, tc := range []struct {
		name string
		cas  *cassette.Cassette
		want string
	}{
		{"no cassette", nil, "<nil>"},
		{"a cassette without a file", &cassette.Cassette{Format: cassette.FormatV1}, "<nil>"},
		{"a transcript", &cassette.Cassette{Path: "t.json", Format: cassette.FormatOpenAI}, "t.json"},
		{"a v1 cassette", &cassette.Cassette{Path: v1, Format: cassette.FormatV1}, at},
	} {
		g := &argumentsGate{cas: tc.cas}
		got := "<nil>"
		if p := g.locator(0)(1, 1, "/a"); p != nil {
			got = p.String()
		}
		if got != tc.want {
			t.Errorf("%s: position %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestArgumentsEvidenceMarks: the run's evidence marks exactly the calls
// whose arguments break the schema, the first and the last call of a
// turn, the last turn included, and not a call that keeps it; it lists up
// to five violations of a call, and past five the first five and "and N
// more"; a call past the evidence's 40 is counted, not marked.
func TestArgumentsEvidenceMarks(t *testing.T) {
	bad := func(n int) string {
		var kv []string
		for _, k := range []string{"a", "b", "c", "d", "e", "f"}[:n] {
			kv = append(kv, `"`+k+`": "x"`)
		}
		return "{" + strings.Join(kv, ", ") + "}"
	}
	v := func(k string) string { return "/" + k + `: type: expected integer, got "x" (string)` }
	many := make([]string, 41)
	for i := range many {
		many[i] = `{"a": 1}`
	}
	many[39], many[40] = bad(1), bad(2)
	for _, tc := range []struct {
		name    string
		turns   [][]string
		invalid int64
		// want is the marked calls, turn.call, and their violations.
		want map[string][]string
	}{
		{"the last call of each turn, not a valid one", [][]string{{`{"a": 1}`, bad(1)}, {bad(1)}}, 2, map[string][]string{
			"1.2": {v("a")},
			"2.1": {v("a")}}},
		{"the first call", [][]string{{bad(1), `{}`}}, 1, map[string][]string{
			"1.1": {v("a")}}},
		{"five violations", [][]string{{bad(5)}}, 1, map[string][]string{
			"1.1": {v("a"), v("b"), v("c"), v("d"), v("e")}}},
		{"six violations", [][]string{{bad(6)}}, 1, map[string][]string{
			"1.1": {v("a"), v("b"), v("c"), v("d"), v("e"), "and 1 more"}}},
		{"call 40 kept, 41 left out", [][]string{many}, 2, map[string][]string{
			"1.40": {v("a")}}},
	} {
		res := argumentsCase(t, argsCassette(tc.turns))
		if len(res.Evidence) != 1 {
			t.Fatalf("%s: evidence of %d runs, want 1", tc.name, len(res.Evidence))
		}
		ev := res.Evidence[0]
		if ev.ArgumentsInvalid == nil || *ev.ArgumentsInvalid != tc.invalid {
			t.Errorf("%s: arguments_invalid %v, want %d", tc.name, ev.ArgumentsInvalid, tc.invalid)
		}
		got := map[string][]string{}
		for ti, te := range ev.Turns {
			for ci, ce := range te.Calls {
				at := fmt.Sprintf("%d.%d", ti+1, ci+1)
				if len(ce.Marks) > 0 || len(ce.Violations) > 0 {
					if strings.Join(ce.Marks, ",") != report.MarkInvalidArguments {
						t.Errorf("%s: call %s marked %q, want %q", tc.name, at, ce.Marks, report.MarkInvalidArguments)
					}
					got[at] = ce.Violations
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: marked calls and violations\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}

// TestArgumentsLetsTheBytesGo: the cassette's bytes, read again to place
// violations, are let go once the case names no more violations, while
// every violation named is placed at its own line: a run of many invalid
// calls holds one copy of the cassette (the runner's), not two.
func TestArgumentsLetsTheBytesGo(t *testing.T) {
	for _, n := range []int{1, 49, 50, 51, 120} {
		calls := make([]string, n)
		for i := range calls {
			calls[i] = `{"a": "x"}`
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "c.json")
		writeFile(t, p, argsCassette([][]string{calls}))
		cas, err := cassette.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		g := &argumentsGate{args: gate.NewArguments(gate.ArgumentsConfig{Catalog: mustCatalog(t), Keep: maxEvidenceCalls})}
		g.addCassette(cas)
		g.add(cas, &cas.Runs[0])
		res := report.CaseResult{Targets: map[string]float64{}, Counts: map[string]int64{}}
		g.result(&res)
		named := 0
		for _, f := range res.Findings {
			if f.Level != "error" || f.Position == nil {
				continue
			}
			named++
			// Call i of the one turn is on line 3 + i.
			if want := 3 + named; f.Position.Line != want || !strings.Contains(f.Message, fmt.Sprintf("call %d ", named)) {
				t.Errorf("n=%d: finding %d at line %d (%s), want line %d", n, named, f.Position.Line, f.Message, want)
			}
		}
		if want := min(n, 50); named != want {
			t.Errorf("n=%d: %d violations placed, want %d", n, named, want)
		}
		if kept := g.data != nil; kept != (n < 50) {
			t.Errorf("n=%d: the bytes kept %v after %d violations, want kept only while fewer than 50 are named", n, kept, n)
		}
		if len(g.last.Calls) != min(n, maxEvidenceCalls) {
			t.Errorf("n=%d: the run keeps %d call checks, want %d (those its evidence shows)", n, len(g.last.Calls), min(n, maxEvidenceCalls))
		}
	}
}

// mustCatalog decodes argsCatalog.
func mustCatalog(t *testing.T) []cassette.Tool {
	t.Helper()
	var doc struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema any    `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(argsCatalog), &doc); err != nil {
		t.Fatal(err)
	}
	var out []cassette.Tool
	for _, tl := range doc.Tools {
		out = append(out, cassette.SchemaTool(tl.Name, tl.InputSchema))
	}
	return out
}
