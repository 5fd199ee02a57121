package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFrameReaderGenerated draws streams of lines (lengths around a drawn
// limit, under and over the reader's 64 KiB buffer now and then, each ended
// by "\n" or "\r\n", the last one now and then by the end of the stream)
// and holds frameReader to its rule: each line comes back without its
// ending, or as over when it holds more than the limit bytes before its
// "\n" (a "\r" counts); then io.EOF, and nothing after it.
func TestFrameReaderGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 166))
	overs, edges := 0, 0
	for round := range 300 {
		limit := 1 + r.IntN(40)
		if round%50 == 0 {
			limit = 64<<10 + r.IntN(100) - 50
		}
		stream, want, atLimit := drawLines(r, limit)
		edges += atLimit
		fr := newFrameReader(strings.NewReader(stream), limit)
		for i, w := range want {
			frame, over, err := fr.next()
			if err != nil || over != w.over || (!over && string(frame) != w.text) || (over && frame != nil) {
				t.Fatalf("round %d, limit %d, line %d of %d bytes: %d bytes, over %v, %v; want over %v", round, limit, i, len(w.text), len(frame), over, err, w.over)
			}
			if over {
				overs++
			}
		}
		for range 2 {
			if frame, over, err := fr.next(); !errors.Is(err, io.EOF) || over || frame != nil {
				t.Fatalf("round %d: after the last line: %q, %v, %v", round, frame, over, err)
			}
		}
	}
	if overs == 0 || edges == 0 {
		t.Fatalf("%d lines over the limit, %d at it: the draws miss a side", overs, edges)
	}
}

// drawnLine is a line of a drawn stream: its text without its ending,
// and whether the reader is to find it over the limit.
type drawnLine struct {
	text string
	over bool
}

// drawLines draws a stream of up to five lines around limit for
// TestFrameReaderGenerated, and counts the lines exactly at it.
func drawLines(r *rand.Rand, limit int) (string, []drawnLine, int) {
	var want []drawnLine
	var stream strings.Builder
	atLimit := 0
	for range r.IntN(6) {
		n := max(0, limit+r.IntN(5)-2)
		if r.IntN(4) == 0 {
			n = r.IntN(limit + 1)
		}
		text := strings.Repeat(string(rune('a'+r.IntN(26))), n)
		end := []string{"\n", "\r\n", "\n", ""}[r.IntN(4)]
		if end == "" && r.IntN(2) == 0 {
			end = "\n" // not yet the last line
		}
		counted := len(text) + len(end) - 1
		if end == "" {
			counted = len(text)
		}
		if counted == limit {
			atLimit++
		}
		stream.WriteString(text + end)
		if end == "" && text == "" {
			break
		}
		want = append(want, drawnLine{text, counted > limit})
		if end == "" {
			break
		}
	}
	return stream.String(), want, atLimit
}

// jsonDepth is how deeply a JSON value nests, from its decoded value.
func jsonDepth(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			d = max(d, jsonDepth(x))
		}
		return d + 1
	case []any:
		for _, x := range v {
			d = max(d, jsonDepth(x))
		}
		return d + 1
	}
	return 0
}

// drawJSON writes a drawn JSON value: objects and arrays side by side and
// nested, strings holding brackets, quotes and backslashes.
func drawJSON(r *rand.Rand, b *strings.Builder, depth int) {
	switch k := r.IntN(5); {
	case depth > 0 && k == 0:
		b.WriteString("{")
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(b, `"k%d":`, i)
			drawJSON(r, b, depth-1)
		}
		b.WriteString("}")
	case depth > 0 && k <= 2:
		b.WriteString("[")
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteString(",")
			}
			drawJSON(r, b, depth-1)
		}
		b.WriteString("]")
	case k == 3:
		b.WriteString([]string{`"[{"`, `"}]\"]"`, `"\\"`, `"a\\\"[b"`, `""`}[r.IntN(5)])
	default:
		b.WriteString([]string{"1", "true", "null", "-2.5"}[r.IntN(4)])
	}
}

// TestDepthIsNesting: depth is the nesting of drawn JSON values as
// encoding/json decodes them, however many arrays and objects stand side
// by side and whatever brackets their strings hold.
func TestDepthIsNesting(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 314))
	for round := range 2000 {
		var b strings.Builder
		drawJSON(r, &b, 1+r.IntN(6))
		var v any
		if err := json.Unmarshal([]byte(b.String()), &v); err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, b.String())
		}
		if got, want := depth([]byte(b.String())), jsonDepth(v); got != want {
			t.Fatalf("round %d: depth %d, want %d\n%s", round, got, want, b.String())
		}
	}
}

// TestCheckFrameRules holds checkFrame to each rule at its edge: the parse
// error of a line that is not JSON names encoding/json's reason; a message
// nested exactly maxDepth deep is taken and one deeper refused; hundreds
// of arrays side by side are not deep; a response is taken with an id and
// refused without; a missing "jsonrpc" and a wrong one are told apart.
func TestCheckFrameRules(t *testing.T) {
	nest := func(n int) string {
		// The message and its params are two levels.
		return `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", n-2) + strings.Repeat("]", n-2) + `}}`
	}
	for _, c := range []struct {
		name, frame string
		code        int
		words       string
	}{
		{"not JSON", `{"jsonrpc":"2.0",x}`, -32700, "(invalid character 'x' looking for beginning of object key string)"},
		{"at the depth bound", nest(maxDepth), 0, ""},
		{"over the depth bound", nest(maxDepth + 1), -32600, fmt.Sprintf("nests deeper than %d levels", maxDepth)},
		{"wide", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[` + strings.TrimSuffix(strings.Repeat("[],", 2*maxDepth), ",") + `]}}`, 0, ""},
		{"a response", `{"jsonrpc":"2.0","id":3,"result":{}}`, 0, ""},
		{"a response without an id", `{"jsonrpc":"2.0","result":{}}`, -32600, "invalid request: a response without an id"},
		{"no jsonrpc", `{"id":3,"method":"ping"}`, -32600, `invalid request: no "jsonrpc" member: expected "jsonrpc": "2.0"`},
		{"another jsonrpc", `{"jsonrpc":"1.0","id":3,"method":"ping"}`, -32600, `invalid request: "jsonrpc" is "1.0": expected "2.0"`},
	} {
		msg, reply := checkFrame([]byte(c.frame))
		if c.code == 0 {
			if msg == nil || reply != nil {
				t.Errorf("%s: refused: %s", c.name, reply)
			}
			continue
		}
		var e struct {
			Error struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal(reply, &e); msg != nil || err != nil || e.Error.Code != c.code || !bytes.Contains([]byte(e.Error.Message), []byte(c.words)) {
			t.Errorf("%s: %v %s; want error %d with %q", c.name, msg, reply, c.code, c.words)
		}
	}
}
