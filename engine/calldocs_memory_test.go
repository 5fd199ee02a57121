package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// callsCassette writes a v1 cassette of runs runs of calls calls each,
// drawn by rng: turns of a drawn length, arguments of three shapes (a
// number, a path and a list of flags, a text), now and then a result
// or an error.
func callsCassette(rng *rand.Rand, runs, calls int) string {
	var b strings.Builder
	b.WriteString(`{"mcptest_cassette":1,"model":"m","runs":[`)
	for r := range runs {
		if r > 0 {
			b.WriteByte(',')
		}
		turn := 1 + rng.IntN(400)
		b.WriteString(`{"turns":[{"calls":[`)
		for c := range calls {
			if c > 0 && c%turn == 0 {
				b.WriteString(`],"final_response":"more"},{"calls":[`)
			} else if c > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"server":"s","tool":"t%d","arguments":`, rng.IntN(20))
			switch rng.IntN(3) {
			case 0:
				fmt.Fprintf(&b, `{"q":%d}`, c)
			case 1:
				fmt.Fprintf(&b, `{"path":"/src/f%d.go","flags":["-n","%d"]}`, c%100, c%7)
			default:
				fmt.Fprintf(&b, `{"text":"find the weather in city %d"}`, c%1000)
			}
			switch rng.IntN(50) {
			case 0:
				fmt.Fprintf(&b, `,"result":{"content":[{"type":"text","text":"ok %d"}]}`, c)
			case 1:
				b.WriteString(`,"is_error":true`)
			}
			b.WriteByte('}')
		}
		b.WriteString(`],"final_response":"done"}]}`)
	}
	b.WriteString("]}\n")
	return b.String()
}

// callsChecks are per-run checks over a run's calls and turns as lists:
// a schema (over the values a schema checks), a contains that reads every
// call and finds none, one over the turns, a regex that meets a list and
// renders it in its message, and a != that passes.
const callsChecks = `    expect:
      - target: calls
        matcher: { schema: { type: array, items: { required: [tool] } } }
      - target: calls
        matcher: { contains: { tool: nowhere } }
      - target: turns
        matcher: { contains: { calls: [] } }
      - target: turns[0].calls
        matcher: { regex: x }
      - target: calls
        matcher: { "!=": [] }
`

// TestChecksOverCallsBounded runs the built binary over drawn recordings
// (one run of 200,000 calls, then drawn runs and calls, at most 200,000
// calls in all) with per-run checks that read each run's calls and turns
// as lists (callsChecks), and holds its peak resident set to SECURITY.md's
// bound (runGateBounded) and its report to what the checks say: every
// check but the != fails, the schema's with the value's size over the
// values a schema checks, and the kept value of the calls and of the
// turns is cut. When a run's document held every call's document, the
// first (14.5 MB) peaked at 334,444 KiB against a bound of 116,662 KiB;
// read at the run's pace of the collector, not the tight one, at
// 161,000 KiB.
func TestChecksOverCallsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("replays cassettes of tens of MB through the built binary")
	}
	tl := buildTools(t)
	rng := rand.New(rand.NewPCG(40, 31))
	type shape struct{ runs, calls int }
	shapes := []shape{{1, 200_000}}
	drawn := 1 // MCPTEST_LONG=1: three drawn shapes
	if long() {
		drawn = 3
	}
	for range drawn {
		runs := 1 + rng.IntN(4)
		shapes = append(shapes, shape{runs, 20_000 + rng.IntN(200_000/runs-20_000)})
	}
	for _, sh := range shapes {
		dir := t.TempDir()
		text := callsCassette(rng, sh.runs, sh.calls)
		if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		g := gateBlock{name: "calls", block: callsChecks}
		writeGateSuite(t, dir, "c.json", g)
		perItem := 3*int64(len(text)) + 128*int64(sh.runs*sh.calls) + 256*int64(sh.runs)
		what := fmt.Sprintf("%d runs × %d calls, %.1f MB", sh.runs, sh.calls, float64(len(text))/1e6)
		runGateBounded(t, tl, dir, g, perItem, 30*time.Second, what)
		checkCallsReport(t, filepath.Join(dir, "out.json"), what)
	}
}

// checkCallsReport holds the report of callsChecks to what they say.
func checkCallsReport(t *testing.T, path, what string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Cases []struct {
			Assertions []struct {
				Target  string `json:"target"`
				Passed  bool   `json:"passed"`
				Clipped bool   `json:"actual_clipped"`
				Message string `json:"message"`
			} `json:"assertions"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &env); err != nil || len(env.Cases) != 1 || len(env.Cases[0].Assertions) != 5 {
		t.Fatalf("%s: the report holds no case of 5 assertions (%v):\n%.2000s", what, err, data)
	}
	for i, a := range env.Cases[0].Assertions {
		bad := a.Passed != (i == 4) || a.Clipped != (a.Target != "turns[0].calls" || a.Clipped)
		if i == 0 && !strings.Contains(a.Message, "JSON values, over the 65536 mcptest checks against a schema") {
			bad = true
		}
		if bad {
			t.Errorf("%s: assertion %d (%s): passed %v, clipped %v, %q", what, i, a.Target, a.Passed, a.Clipped, a.Message)
		}
	}
}
