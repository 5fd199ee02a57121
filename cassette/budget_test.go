package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
)

// drawJSON writes a drawn JSON value to b: objects and arrays nested up to
// depth, keys from a small set (so some repeat) or escaped, strings with
// and without escapes, every kind of number and literal, and white space
// between tokens or none.
func drawJSON(b *bytes.Buffer, rng *rand.Rand, depth int) {
	space := func() {
		if rng.IntN(4) == 0 {
			b.WriteString([]string{" ", "\n  ", "\t", "\r\n"}[rng.IntN(4)])
		}
	}
	kind := rng.IntN(9)
	if depth <= 0 && kind < 3 {
		kind = 3 + rng.IntN(6)
	}
	switch kind {
	case 0, 1:
		b.WriteByte('{')
		n := rng.IntN([]int{3, 10, 40}[rng.IntN(3)])
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			space()
			switch rng.IntN(6) {
			case 0:
				fmt.Fprintf(b, `"k\u00e9%d"`, rng.IntN(5)) // escaped
			case 1:
				fmt.Fprintf(b, `"k%d"`, rng.IntN(4)) // often repeated
			default:
				fmt.Fprintf(b, `"key_%d_%s"`, i, strings.Repeat("x", rng.IntN(30)))
			}
			space()
			b.WriteByte(':')
			space()
			drawJSON(b, rng, depth-1)
		}
		space()
		b.WriteByte('}')
	case 2:
		b.WriteByte('[')
		n := rng.IntN([]int{3, 12, 60}[rng.IntN(3)])
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			space()
			drawJSON(b, rng, depth-1)
		}
		space()
		b.WriteByte(']')
	case 3:
		b.WriteString(strconv.Quote(strings.Repeat("ab", rng.IntN(40))))
	case 4:
		b.WriteString(`"tab\t, quote \" and \u2028 escaped"`)
	case 5:
		b.WriteString([]string{"0", "-1", "3.25", "1e300", "-0.5E-7", "123456789012345678901234"}[rng.IntN(6)])
	default:
		b.WriteString([]string{"true", "false", "null"}[rng.IntN(3)])
	}
}

// decodeSpent is what the decoder counts decoding data, budget aside.
func decodeSpent(data []byte) (any, int64) {
	d := newDecoder(data, &walker{})
	defer d.done()
	d.budget = 0
	v, _ := d.value(d.space(0))
	return v, d.spent
}

// TestDecodeCostIsDecoders holds the two counts of the decode budget to
// one figure on drawn JSON: jsonpos.DecodeCost, which reads a kept text without
// decoding it, is never under what the decoder spends decoding it, and
// equals it on text with no escape and no repeated key (where the decoder
// reads a shorter string or skips the repetition).
func TestDecodeCostIsDecoders(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 16))
	equal := 0
	for i := range 3000 {
		var b bytes.Buffer
		drawJSON(&b, rng, 1+rng.IntN(5))
		data := b.Bytes()
		_, spent := decodeSpent(data)
		cost := jsonpos.DecodeCost(data)
		if cost < spent {
			t.Fatalf("draw %d: DecodeCost %d under the decoder's %d for %s", i, cost, spent, clipBytes(data))
		}
		c := compact(data)
		if cc := jsonpos.DecodeCost([]byte(c)); cc != cost {
			t.Fatalf("draw %d: DecodeCost %d of the compact text, %d of the text %s", i, cc, cost, clipBytes(data))
		}
		if cost > jsonpos.CostPerByte*int64(len(c)) {
			t.Fatalf("draw %d: DecodeCost %d over jsonpos.CostPerByte times its %d bytes: %s", i, cost, len(c), clipBytes(data))
		}
		w := &walker{}
		d := newDecoder(data, w)
		d.value(d.space(0))
		d.done()
		if !bytes.Contains(data, []byte(`\`)) && len(w.dups) == 0 {
			equal++
			if cost != spent {
				t.Fatalf("draw %d: DecodeCost %d, decoder %d, on text with no escape or repeated key: %s", i, cost, spent, clipBytes(data))
			}
		}
	}
	if equal < 500 {
		t.Fatalf("only %d draws without escapes or repeated keys: the generator no longer tests equality", equal)
	}
}

func clipBytes(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// TestDecodeCostIsMemory holds the estimate to the runtime: the live heap
// a decoded value holds is at most its estimate (and a little), for the
// shapes that cost the most a byte and for drawn JSON. A budget on the
// estimate is then a budget on the memory.
func TestDecodeCostIsMemory(t *testing.T) {
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
	var drawn bytes.Buffer
	rng := rand.New(rand.NewPCG(3, 4))
	drawn.WriteByte('[')
	for i := range n / 20 {
		if i > 0 {
			drawn.WriteByte(',')
		}
		drawJSON(&drawn, rng, 4)
	}
	drawn.WriteByte(']')
	wide := make([]string, 300)
	for i := range wide {
		wide[i] = fmt.Sprintf(`"member%d":%d`, i, i)
	}
	shapes := map[string][]byte{
		"empty objects":     flood("{}"),
		"one-member maps":   flood(`{"a":0}`),
		"eight-member maps": flood(`{"a":0,"b":1,"c":2,"d":3,"e":4,"f":5,"g":6,"h":7}`),
		"nine-member maps":  flood(`{"a":0,"b":1,"c":2,"d":3,"e":4,"f":5,"g":6,"h":7,"i":8}`),
		"wide maps":         []byte("[" + strings.TrimSuffix(strings.Repeat("{"+strings.Join(wide, ",")+"},", n/300), ",") + "]"),
		"nested maps":       flood(nest(`{"a":`, "}", 6)),
		"empty arrays":      flood("[]"),
		"nested arrays":     flood(nest("[", "]", 6)),
		"empty strings":     flood(`""`),
		"strings":           flood(`"sunny and mild"`),
		"numbers":           flood("1.5"),
		"literals":          flood("null"),
		"drawn":             drawn.Bytes(),
	}
	for name, data := range shapes {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v, spent := decodeSpent(data)
		runtime.GC()
		runtime.ReadMemStats(&after)
		live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(v)
		t.Logf("%s: %d bytes of JSON, estimate %d, live %d (%.2f)", name, len(data), spent, live, float64(live)/float64(spent))
		if live > spent+spent/20+256<<10 {
			t.Errorf("%s: the decoded value holds %d bytes live, over its estimate %d", name, live, spent)
		}
		if cost := jsonpos.DecodeCost(data); cost < spent {
			t.Errorf("%s: DecodeCost %d under the decoder's %d", name, cost, spent)
		}
	}
}

// plant is where a recording holds a flood: doc writes the recording
// around it; placed, the error names a line and column (every document
// decoded, an mcptest cassette's kept texts), else a run and call.
type plant struct {
	name   string
	doc    func(flood string) string
	placed bool
}

// floodShapes are the JSON a hostile recording fills with: arrays of the
// values that cost the most a byte, each long enough (by jsonpos.DecodeCost) to
// cost scale times the budget of a file of its size.
func floodShapes(scale float64) map[string]string {
	chain := strings.Repeat(`{"":`, 40) + "0" + strings.Repeat("}", 40)
	out := map[string]string{}
	for name, elem := range map[string]string{"empty objects": "{}", "one-member maps": `{"a":0}`, "nested maps": chain, "empty arrays": "[]"} {
		per := jsonpos.DecodeCost([]byte("["+elem+"]")) - jsonpos.SliceCost
		over := per - jsonpos.BudgetRatio*int64(len(elem)+1) // what each costs past the ratio
		k := int(scale * jsonpos.BudgetFloor / float64(over))
		out[name] = "[" + strings.TrimSuffix(strings.Repeat(elem+",", k), ",") + "]"
	}
	return out
}

// TestDecodeBudgetRefusesFloods is the budget's generator over the
// readers: each flood shape planted where each format holds JSON (a
// document read whole, a message list read a piece at a time, an OTLP
// span, a line of JSON Lines, an mcptest cassette's arguments, result and
// extension member, a transcript's arguments string) is refused with the
// budget's error, by Read (Stream's) and Tally alike, placed in the file;
// the same recordings with a flood within the budget are not.
func TestDecodeBudgetRefusesFloods(t *testing.T) {
	call := `{"tool": "get_weather", "arguments": %s, "result": %s}`
	v1 := func(args, result, extra string) string {
		return `{"mcptest_cassette": 1` + extra + `, "runs": [{"turns": [{"calls": [` +
			fmt.Sprintf(call, `{"city": "Oslo"}`, `{"content": []}`) + `, ` + fmt.Sprintf(call, args, result) + `]}]}]}`
	}
	plants := []plant{
		{"a document read whole", func(f string) string { return f }, true},
		{"a Responses object's tools", func(f string) string {
			return `{"object": "response", "tools": ` + f + `, "output": [{"type": "function_call", "call_id": "c1", "name": "t", "arguments": "{}"}]}`
		}, true},
		{"a transcript's message", func(f string) string {
			return `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ` + f + `}]}`
		}, true},
		{"an OpenAI arguments string", func(f string) string {
			return `[{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "t", "arguments": ` +
				strconv.Quote(f) + `}}]}]`
		}, false},
		{"an OTLP span", func(f string) string {
			return `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "01", "spanId": "02", "name": "execute_tool t", "attributes": ` + f + `}]}]}]}`
		}, true},
		{"a line of JSON Lines", func(f string) string {
			return `{"type": "system", "session_id": "s"}` + "\n" + `{"type": "user", "session_id": "s", "message": ` + f + "}\n"
		}, true},
		{"a cassette's arguments", func(f string) string { return v1(`{"q": `+f+`}`, `{"content": []}`, "") }, true},
		{"a cassette's result", func(f string) string { return v1(`{}`, `{"content": `+f+`}`, "") }, true},
		{"a cassette's extension member", func(f string) string { return v1(`{}`, `{"content": []}`, `, "x-notes": `+f) }, true},
		{"a cassette's catalog", func(f string) string {
			return v1(`{}`, `{"content": []}`, `, "catalog": {"a/b": {"tools": [{"name": "ok"}, {"name": "t", "inputSchema": {"type": "object", "x-f": `+f+`}}]}}`)
		}, true},
		{"the catalog of a cassette with no run", func(f string) string {
			return `{"mcptest_cassette": 1, "catalog": {"s": {"tools": [{"name": "t", "inputSchema": {"type": "object", "x-f": ` + f + `}}]}}, "runs": []}`
		}, true},
	}
	read := map[string]func(path string, data []byte) error{
		"Read":  func(p string, d []byte) error { _, err := Read(p, d); return err },
		"Tally": func(p string, d []byte) error { _, err := Tally(p, d, func(*Cassette, *Run) {}); return err },
	}
	for shape, flood := range floodShapes(1.5) {
		if testing.Short() && shape != "one-member maps" {
			continue
		}
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			refusedEverywhere(t, shape, flood, plants, read)
		})
	}
	// The same plants with a flood of nine tenths of the floor past the
	// ratio are within the budget: a budget of the floor alone, or of the
	// floor less the ratio, would refuse them.
	for shape, flood := range floodShapes(0.9) {
		t.Run(shape+" within the budget", func(t *testing.T) {
			t.Parallel()
			for _, pl := range plants {
				if _, err := Read("f.json", []byte(pl.doc(flood))); err != nil && strings.Contains(err.Error(), "decode budget") {
					t.Errorf("%s in %s, within the budget: %v", shape, pl.name, err)
				}
			}
		})
	}
}

// refusedEverywhere checks that flood, planted by each of plants, is
// refused with the decode budget's error by each of read alike.
func refusedEverywhere(t *testing.T, shape, flood string, plants []plant, read map[string]func(string, []byte) error) {
	for _, pl := range plants {
		data := []byte(pl.doc(flood))
		var first string
		for _, how := range []string{"Read", "Tally"} {
			err := read[how]("f.json", data)
			var e *diag.Error
			if !errors.As(err, &e) || !strings.Contains(e.Message, "decode budget") {
				t.Fatalf("%s in %s, %s: %v, want the decode budget's error", shape, pl.name, how, err)
			}
			if pl.placed && e.Pos.Line == 0 {
				t.Errorf("%s in %s, %s: not placed: %v", shape, pl.name, how, err)
			}
			if !pl.placed && !strings.Contains(e.Message, "run 1, turn 1, call 1 (`t`)") {
				t.Errorf("%s in %s, %s: the call not named: %v", shape, pl.name, how, err)
			}
			if first == "" {
				first = err.Error()
			} else if err.Error() != first {
				t.Errorf("%s in %s: %s says %q, Read %q", shape, pl.name, how, err, first)
			}
		}
	}
}

// TestOverBudgetOfAValue: OverBudget holds a value of a file to the
// file's budget, as the kept texts are held: over for a flood costing
// more than it, with the message naming the value; not for the same
// flood within it, nor for any value of a file too short to be over.
func TestOverBudgetOfAValue(t *testing.T) {
	for shape, flood := range floodShapes(1.5) {
		data := []byte(`{"tools": [{"name": "ok"}, {"name": "t", "x": ` + flood + `}]}`)
		at := bytes.Index(data, []byte(`{"name": "t"`))
		msg, over := OverBudget(data, at, "tools[1]")
		if !over || !strings.HasPrefix(msg, "tools[1] would take ") || !strings.Contains(msg, "over the decode budget of") {
			t.Errorf("%s: %v %q", shape, over, msg)
		}
		if _, over := OverBudget(data, bytes.Index(data, []byte(`{"name": "ok"`)), "tools[0]"); over {
			t.Errorf("%s: the small tool beside the flood is over", shape)
		}
	}
	for shape, flood := range floodShapes(0.9) {
		data := []byte(`{"tools": [{"name": "t", "x": ` + flood + `}]}`)
		if msg, over := OverBudget(data, bytes.IndexByte(data[1:], '{')+1, "tools[0]"); over {
			t.Errorf("%s, within the budget: %s", shape, msg)
		}
	}
	short := []byte(`[` + strings.Repeat(`{"":{"":{"":0}}},`, jsonpos.BudgetFloor/jsonpos.CostPerByte/17-1) + `0]`)
	if _, over := OverBudget(short, 0, "it"); over || jsonpos.MayBeOverBudget(len(short)) {
		t.Errorf("a file of %d bytes is over", len(short))
	}
}

// TestEveryReaderCutShort reads every recording of testdata (each format,
// its frameworks' recordings, the Inspect archives, the refused ones)
// with the decode budget run out at drawn points, from the first value to
// past the last: whatever a reader was given of the document when the
// budget ran out (a value left nil deep in a message, a span, a line, a
// member), Read and Tally answer with the budget's error or the file's
// own, and never panic. (It found readMessages handed a message the
// budget had left half built to the reader that takes it for a map.)
func TestEveryReaderCutShort(t *testing.T) {
	var files []string
	for _, dir := range []string{"testdata/ok", "testdata/err", "testdata/frameworks", "testdata/inspect"} {
		matches, _ := filepath.Glob(dir + "/*")
		files = append(files, matches...)
	}
	if len(files) < 100 {
		t.Fatalf("%d recordings in testdata", len(files))
	}
	defer func(f func(int) int64) { decodeBudgetOf = f }(decodeBudgetOf)
	draws := 12 // MCPTEST_LONG=1: 200 a file
	if os.Getenv("MCPTEST_LONG") == "1" {
		draws = 200
	}
	rng := rand.New(rand.NewPCG(21, 3))
	cut := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || len(data) > 1<<20 {
			continue
		}
		full := int64(len(data)) * 9 // JSON Lines and archives: about what a document costs
		if json.Valid(data) {
			full = jsonpos.DecodeCost(data)
		}
		for range draws {
			budget := 1 + rng.Int64N(full+1)
			decodeBudgetOf = func(int) int64 { return budget }
			for how, read := range map[string]func() error{
				"Read":  func() error { _, err := Read(f, data); return err },
				"Tally": func() error { _, err := Tally(f, data, func(*Cassette, *Run) {}); return err },
			} {
				var err error
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%s of %s with a budget of %d: panic %v", how, f, budget, p)
						}
					}()
					err = read()
				}()
				if err != nil && strings.Contains(err.Error(), "decode budget") {
					cut++
				}
			}
		}
	}
	if cut < 500 {
		t.Errorf("only %d reads cut short: the drawn budgets no longer reach the readers", cut)
	}
}
