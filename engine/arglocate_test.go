package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
)

// drawLocateDoc writes a v1 cassette as a recording may lay it out: a
// catalog before or after the runs, of many lines or one, members spaced
// any way, strings with multi-byte characters and escaped newlines, runs
// of turns of calls whose arguments nest objects and arrays.
func drawLocateDoc(rng *rand.Rand) string {
	var b strings.Builder
	sp := func() {
		b.WriteString([]string{"", "", " ", "\n", "\n    ", "\t", "\r\n"}[rng.IntN(7)])
	}
	catalog := func() {
		b.WriteString(`"catalog":{"s":{"tools":[`)
		for t := range rng.IntN(30) {
			if t > 0 {
				b.WriteByte(',')
				sp()
			}
			fmt.Fprintf(&b, `{"name":"t%d","description":"é ü 日本\n%d"}`, t, t)
		}
		b.WriteString(`]}}`)
	}
	var value func(depth int)
	value = func(depth int) {
		switch n := rng.IntN(6); {
		case depth > 0 && n == 0:
			b.WriteByte('{')
			for k := range rng.IntN(4) {
				if k > 0 {
					b.WriteByte(',')
				}
				sp()
				fmt.Fprintf(&b, `"k%d":`, k)
				sp()
				value(depth - 1)
			}
			b.WriteByte('}')
		case depth > 0 && n == 1:
			b.WriteByte('[')
			for k := range rng.IntN(4) {
				if k > 0 {
					b.WriteByte(',')
				}
				sp()
				value(depth - 1)
			}
			b.WriteByte(']')
		case n < 4:
			b.WriteString(`"v é\\n"`)
		default:
			fmt.Fprintf(&b, "%d", rng.IntN(100))
		}
	}
	runs := func() {
		b.WriteString(`"runs":`)
		sp()
		b.WriteByte('[')
		for r := range rng.IntN(6) {
			if r > 0 {
				b.WriteByte(',')
			}
			sp()
			b.WriteString(`{"turns":[`)
			for t := range 1 + rng.IntN(3) {
				if t > 0 {
					b.WriteByte(',')
				}
				sp()
				b.WriteString(`{"calls":[`)
				for c := range rng.IntN(4) {
					if c > 0 {
						b.WriteByte(',')
					}
					sp()
					b.WriteString(`{"tool":"t1",`)
					sp()
					b.WriteString(`"arguments":`)
					sp()
					b.WriteString(`{"q":`)
					value(3)
					b.WriteString(`,"n":{"m":[1,2,{"x":"日本"}]}}}`)
				}
				b.WriteString(`],"final_response":"ok"}`)
			}
			b.WriteString(`]}`)
		}
		sp()
		b.WriteByte(']')
	}
	sp()
	b.WriteString(`{"mcptest_cassette":1,`)
	sp()
	if rng.IntN(2) == 0 {
		catalog()
		b.WriteByte(',')
		sp()
		runs()
	} else {
		runs()
		b.WriteByte(',')
		sp()
		catalog()
	}
	sp()
	b.WriteString("}\n")
	return b.String()
}

// TestArgLocatorAgrees: over drawn cassettes and the pointers a violation
// is placed by (runs, turns and calls in range and past it, arguments
// members present, nested and missing), asked in file order and in any
// order, the locator gives the position cassette.Locate gives for the
// whole pointer.
func TestArgLocatorAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 14))
	ptrs := []string{"", "/q", "/n", "/n/m", "/n/m/2", "/n/m/2/x", "/n/m/9", "/missing", "/q/k0", "/q/k1/0", "/q/0"}
	located := 0
	for d := range 400 {
		data := []byte(drawLocateDoc(rng))
		type ask struct {
			run, turn, call int
			ptr             string
		}
		var asks []ask
		for range 1 + rng.IntN(30) {
			asks = append(asks, ask{rng.IntN(7), 1 + rng.IntN(4), 1 + rng.IntN(5), ptrs[rng.IntN(len(ptrs))]})
		}
		if rng.IntN(3) > 0 {
			slices.SortFunc(asks, func(a, b ask) int {
				return strings.Compare(fmt.Sprintf("%03d%03d%03d", a.run, a.turn, a.call), fmt.Sprintf("%03d%03d%03d", b.run, b.turn, b.call))
			})
		}
		var l argLocator
		l.reset(data)
		for _, a := range asks {
			rel := fmt.Sprintf("/turns/%d/calls/%d/arguments%s", a.turn-1, a.call-1, a.ptr)
			got, gok := l.locate("c.json", a.run, rel)
			want, wok := cassette.Locate("c.json", data, fmt.Sprintf("/runs/%d%s", a.run, rel))
			if got != want || gok != wok {
				t.Fatalf("draw %d: run %d %s at %+v %v, want %+v %v\n%s", d, a.run, rel, got, gok, want, wok, data)
			}
			if gok {
				located++
			}
		}
	}
	if located == 0 {
		t.Fatal("no pointer was located: the draws lost their reach")
	}
}
