package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptest/mcptest/report"
)

// maxActual is the most bytes of compact JSON an assertion's actual value
// takes in the envelope (docs/reports.md), and assertionRest what the
// rest of an assertion takes besides its target and matcher as written:
// its message (a value rendered in it is cut to 200 characters), index,
// run and position.
const maxActual, assertionRest = 4 << 10, 1 << 10

// recordedSecret is a token the drawn recordings hold in their final
// response; the envelope must show it masked.
const recordedSecret = "ghp_" + "Zq8uR2mT5vX1yB4nK7pL0sD3fG6hJ9wE2cA5"

// recordedShape is one drawn test of TestRecordedValuesBounded: its runs,
// the calls of each, and the lengths of its recorded text.
type recordedShape struct {
	runs, calls, final, result, model int
}

// writeRecordedCassette writes a cassette of sh's shape: every call
// with arguments and a result text of sh.result bytes, a final response
// of sh.final bytes that starts with the secret.
func writeRecordedCassette(t *testing.T, path string, sh recordedShape) string {
	t.Helper()
	final := recordedSecret + " " + strings.Repeat("é sunny ", sh.final/9+1)
	final = final[:max(len(recordedSecret)+1, sh.final)]
	for !utf8.ValidString(final) {
		final = final[:len(final)-1]
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"mcptest_cassette":1,"model":"%s","provider"`, strings.Repeat("m", sh.model))
	b.WriteString(`:"anthropic","prompt":"p","catalog":{"weather":{"tools":[{"name":"get_weather","description":"Get the weather.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}]}},"runs":[`)
	text := strings.Repeat("x", sh.result)
	for r := range sh.runs {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"turns":[{"calls":[`)
		for c := range sh.calls {
			if c > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"server":"weather","tool":"get_weather","arguments":{"city":"Sacramento %d"},"is_error":false,"result":{"content":[{"type":"text","text":%q}]}}`, c, text)
		}
		fq, _ := json.Marshal(final)
		fmt.Fprintf(&b, `],"final_response":%s}],"tokens":{"input":10,"output":5,"total":15}}`, fq)
	}
	b.WriteString("]}")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return final
}

// TestRecordedValuesBounded runs the built binary over drawn recordings
// whose checks read whole parts of a run (its calls, its turns, a
// result, the final response) and holds every assertion's actual value
// in the envelope to maxActual bytes of compact JSON, marked
// actual_clipped when cut and a prefix of the value as recorded (the
// final response), masked (the secret it holds is nowhere in the
// envelope), a small value whole; each case to the per-case bound plus
// its assertions, and its model (a label of up to 100,000 bytes in the
// recording) to its first 256 characters, and validate's report of the
// recordings the same.
func TestRecordedValuesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary over drawn recordings")
	}
	bin := buildTools(t).mcptest
	r := rand.New(rand.NewPCG(40, 26))
	dir := t.TempDir()
	var suite strings.Builder
	suite.WriteString("tests:\n")
	shapes := make([]recordedShape, 12)
	finals := make([]string, len(shapes))
	for i := range shapes {
		sh := recordedShape{runs: 1 + r.IntN(3), calls: []int{1, 2, 60, 3000, 20000}[r.IntN(5)],
			final: []int{60, 3000, 5000, 200000}[r.IntN(4)], result: []int{1, 100, 6000}[r.IntN(3)],
			model: []int{1, 256, 257, 100000}[r.IntN(4)]}
		shapes[i] = sh
		finals[i] = writeRecordedCassette(t, filepath.Join(dir, fmt.Sprintf("c%d.json", i)), sh)
		fmt.Fprintf(&suite, `  - name: case %d
    type: agent
    prompt: p
    cassette: c%d.json
    expect:
      - target: calls
        matcher: { schema: { type: array } }
      - target: turns
        matcher: { schema: { type: array, maxItems: 0 } }
      - target: calls[0].result
        matcher: { schema: { type: object } }
      - target: final_response
        matcher: { regex: "%s" }
      - target: tool_names
        matcher: { contains: get_weather }
      - target: tokens.total
        matcher: { "<=": 20 }
`, i, i, []string{".", "^nothing"}[r.IntN(2)])
	}
	if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	lc := &leanCorpus{t: t, bin: bin, dir: dir, at: "drawn recordings"}
	lc.mcptest("run", "--config", "suite.yml", "--format", "json", "--output", "r.json", "--no-cache")
	data := lc.read("r.json")
	if bytes.Contains(data, []byte(recordedSecret)) {
		t.Fatalf("the envelope holds the recorded secret")
	}
	if _, err := report.Read(bytes.NewReader(data), "r.json"); err != nil {
		t.Fatalf("the envelope does not read: %v", err)
	}
	lines, cases := envelopeCases(t, data)
	if len(cases) != len(shapes) {
		t.Fatalf("%d cases, want %d", len(cases), len(shapes))
	}
	clipped := 0
	for i, c := range cases {
		at := fmt.Sprintf("%s %+v", c.Name, shapes[i])
		rest := len(lines[i])
		if len(c.Evidence) > 0 {
			e, _ := json.Marshal(c.Evidence)
			rest -= len(e) + len(`,"evidence":`)
		}
		for _, a := range c.Assertions {
			whole, _ := json.Marshal(a)
			rest -= len(whole) + 1
			if checkRecordedAssertion(t, at, a, len(whole), shapes[i], finals[i]) {
				clipped++
			}
		}
		if want := strings.Repeat("m", min(shapes[i].model, 256)); c.Model != want && c.Model != want+"…" {
			t.Errorf("%s: model of %d bytes, want the recorded one's first 256 characters", at, len(c.Model))
		}
		if bound := leanFixed + leanPerFinding*len(c.Findings) + leanPerTool*len(c.Tools) + leanPerFailedRun*shapes[i].runs; rest > bound {
			t.Errorf("%s: %d bytes besides its evidence and assertions, over %d:\n%s", at, rest, bound, clip(lines[i]))
		}
	}
	if clipped == 0 {
		t.Fatalf("no drawn value was cut")
	}
	// validate reports each recording's model cut as the case keeps it.
	out := lc.mcptest("validate", "--config", "suite.yml")
	if long := strings.Repeat("m", 257); bytes.Contains(out, []byte(long)) || len(out) > 1000*len(shapes) {
		t.Errorf("validate printed %d bytes, a model of more than 256 characters among them: %.300s", len(out), out)
	}
}

// checkRecordedAssertion holds one assertion of TestRecordedValuesBounded,
// size bytes in the envelope, to its bounds, and its value to what the
// test's shape and final response say; it reports whether it was cut.
func checkRecordedAssertion(t *testing.T, at string, a report.AssertionResult, size int, sh recordedShape, final string) bool {
	t.Helper()
	actual, _ := json.Marshal(a.Actual)
	matcher, _ := json.Marshal(a.Matcher)
	if len(actual) > maxActual || size-len(actual) > assertionRest+len(a.Target)+len(matcher) {
		t.Errorf("%s: assertion %q takes %d bytes, its actual value %d: over %d and %d", at, a.Target, size, len(actual), maxActual, assertionRest)
	}
	switch a.Target {
	case "tokens.total":
		if a.ActualClipped || a.Actual != float64(15) {
			t.Errorf("%s: tokens.total is %v (clipped %v), want 15 whole", at, a.Actual, a.ActualClipped)
		}
	case "final_response":
		s, _ := a.Actual.(string)
		masked := strings.Replace(final, recordedSecret, "", 1)
		long := len(final) > maxActual
		if a.ActualClipped != long || !strings.HasPrefix(s, "[REDACTED]") || !strings.HasPrefix(masked, strings.TrimPrefix(s, "[REDACTED]")) {
			t.Errorf("%s: final_response is %.80q… (clipped %v), want the recorded one masked, cut when over %d bytes (%d)", at, s, a.ActualClipped, maxActual, len(final))
		}
	case "calls", "turns":
		// Sixty calls, or one result of 6,000 bytes, are over the bound;
		// so are the turns with a final response of 5,000.
		want := sh.calls >= 60 || sh.result > maxActual || a.Target == "turns" && len(final) > maxActual
		if a.ActualClipped != want {
			t.Errorf("%s: %s clipped %v, want %v", at, a.Target, a.ActualClipped, want)
		}
	}
	return a.ActualClipped
}
