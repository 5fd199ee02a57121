package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/report"
)

func TestToolTally(t *testing.T) {
	cas := &cassette.Cassette{
		Catalog: []cassette.ServerCatalog{
			{Server: "weather", Tools: []cassette.Tool{{Name: "get_weather"}, {Name: "get_alerts"}, {Name: "search"}}},
			{Server: "web", Tools: []cassette.Tool{{Name: "search"}}},
		},
		Runs: []cassette.Run{
			{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "get_weather"}, {Server: "web", Tool: "search"}}}}},
			// No server: get_weather has one owner, search two.
			{Turns: []cassette.Turn{{Calls: []cassette.Call{{Tool: "get_weather"}, {Tool: "search"}, {Tool: "invented"}}}}},
		},
	}
	var tally toolTally
	tally.addCassette(cas)
	got, _ := json.Marshal(tally.called())
	want := `[{"tool":"invented","calls":1},{"tool":"search","calls":1},{"server":"weather","tool":"get_weather","calls":2},{"server":"web","tool":"search","calls":1}]`
	if string(got) != want {
		t.Errorf("tally\n got %s\nwant %s", got, want)
	}
	if cat := tally.catalog(); cat == nil || len(cat.SHA256) != 64 {
		t.Fatalf("catalog %+v: want a digest", cat)
	} else if got, _ = json.Marshal(cat.Servers); string(got) != `[{"server":"weather","tools":["get_alerts","get_weather","search"]},{"server":"web","tools":["search"]}]` {
		t.Errorf("catalog\n got %s", got)
	}
	var res report.CaseResult
	tally.setTools(&res)
	if res.Catalog != res.Offered.SHA256 || len(res.Tools) != 4 {
		t.Errorf("setTools: %+v", res)
	}
	if (&toolTally{}).called() != nil || (&toolTally{}).catalog() != nil {
		t.Error("an empty tally lists nothing")
	}
}

func TestToolCoverage(t *testing.T) {
	env := &report.Envelope{
		Servers: []report.ServerInfo{{Name: "target", Tools: []string{"echo", "get-env", "get-sum"}}, {Name: "other"}},
		Cases: []*report.CaseResult{
			{Verdict: report.Pass, Tools: []report.ToolUse{{Server: "target", Tool: "echo", Calls: 1}}},
			{Verdict: report.Fail, Tools: []report.ToolUse{{Server: "target", Tool: "echo", Calls: 1}}},
			{Verdict: report.Inconclusive, Tools: []report.ToolUse{{Server: "target", Tool: "get-sum", Calls: 3}, {Server: "weather", Tool: "get_alerts"}}},
			{Verdict: report.Pass},
		},
	}
	cov := env.ToolCoverage()
	got, _ := json.Marshal(cov)
	want := `{"known":4,"covered":2,"percent":50,"tools":[` +
		`{"server":"target","tool":"echo","calls":2,"cases":2,"passed":1,"failed":1,"inconclusive":0},` +
		`{"server":"target","tool":"get-env","calls":0,"cases":0,"passed":0,"failed":0,"inconclusive":0},` +
		`{"server":"target","tool":"get-sum","calls":3,"cases":1,"passed":0,"failed":0,"inconclusive":1},` +
		`{"server":"weather","tool":"get_alerts","calls":0,"cases":0,"passed":0,"failed":0,"inconclusive":0}],` +
		`"uncovered":[{"server":"target","tool":"get-env","calls":0},{"server":"weather","tool":"get_alerts","calls":0}]}`
	if string(got) != want {
		t.Errorf("coverage\n got %s\nwant %s", got, want)
	}
	empty, _ := json.Marshal((&report.Envelope{}).ToolCoverage())
	if string(empty) != `{"known":0,"covered":0,"tools":[],"uncovered":[]}` {
		t.Errorf("a run that knows no tool: %s", empty)
	}
}

// TestToolTallyBoundedDrawn draws cassettes (catalogs of a few tools,
// runs calling offered tools and floods of others, on a server or none,
// a tool now and then offered only by a later cassette) and holds the
// tally to its rule: it lists every tool a catalog offered and called,
// and the first maxUnofferedTools others called (first called first),
// each with its exact calls; the calls of the rest are counted, and the
// case says how many in a finding exactly when there are some.
func TestToolTallyBoundedDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(60, 5))
	for i := range 60 {
		var tally toolTally
		offered := map[toolKey]bool{}
		calls := map[toolKey]int64{}
		unoffered := 0 // tools listed that no catalog has offered so far
		total := int64(0)
		distinct := 1 + rng.IntN(3*maxUnofferedTools)
		for range 1 + rng.IntN(3) {
			cas := &cassette.Cassette{Catalog: []cassette.ServerCatalog{{Server: "s"}}}
			for range rng.IntN(5) {
				name := fmt.Sprintf("t%d", rng.IntN(distinct))
				cas.Catalog[0].Tools = append(cas.Catalog[0].Tools, cassette.Tool{Name: name})
			}
			owner := tally.addCatalog(cas)
			for _, tl := range cas.Catalog[0].Tools {
				k := toolKey{"s", tl.Name}
				if _, listed := calls[k]; listed && !offered[k] {
					unoffered--
				}
				offered[k] = true
			}
			var run cassette.Run
			for range rng.IntN(2500) {
				c := cassette.Call{Server: "s", Tool: fmt.Sprintf("t%d", rng.IntN(distinct))}
				if rng.IntN(3) == 0 {
					c.Server = ""
				}
				run.Turns = append(run.Turns, cassette.Turn{Calls: []cassette.Call{c}})
				k := toolKey{c.Server, c.Tool}
				if k.server == "" {
					k.server = owner.of(c.Tool)
				}
				total++
				if _, listed := calls[k]; !listed && !offered[k] {
					if unoffered == maxUnofferedTools {
						continue
					}
					unoffered++
				}
				calls[k]++
			}
			tally.addRun(owner, &run)
		}
		var res report.CaseResult
		tally.setTools(&res)
		listed := int64(0)
		for _, u := range res.Tools {
			k := toolKey{u.Server, u.Tool}
			if u.Calls != calls[k] {
				t.Fatalf("draw %d: %v called %d times, listed with %d", i, k, calls[k], u.Calls)
			}
			listed += u.Calls
		}
		want := 0
		for _, n := range calls {
			if n > 0 {
				want++
			}
		}
		if len(res.Tools) != want {
			t.Fatalf("draw %d: %d tools listed, want %d", i, len(res.Tools), want)
		}
		unlisted := total - listed
		if (unlisted > 0) != (len(res.Findings) == 1) || unlisted > 0 && !strings.HasPrefix(res.Findings[0].Message, fmt.Sprintf("%d calls reached tools that are not listed", unlisted)) {
			t.Fatalf("draw %d: %d calls not listed, findings %+v", i, unlisted, res.Findings)
		}
	}
}

// TestListedNameDrawn: drawn names of one- to four-byte characters, of
// lengths around the bound and far past it: a name of at most
// maxListedName bytes is itself; a longer one is at most maxListedName
// bytes of UTF-8, its first characters (as many as fit), "…" and the
// first 12 hex digits of its SHA-256; two names are listed alike only
// when they are the same.
func TestListedNameDrawn(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 37))
	chars := []string{"a", "é", "中", "🙂"}
	listed := map[string]string{}
	for range 5000 {
		n := maxListedName - 8 + rng.IntN(24)
		if rng.IntN(4) == 0 {
			n = rng.IntN(3000)
		}
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(chars[rng.IntN(len(chars))])
		}
		name := b.String()
		got := listedName(name)
		if prev, ok := listed[got]; ok && prev != name {
			t.Fatalf("%q and %q are both listed as %q", prev, name, got)
		}
		listed[got] = name
		if len(name) <= maxListedName {
			if got != name {
				t.Fatalf("a name of %d bytes listed as %q", len(name), got)
			}
			continue
		}
		sum := sha256.Sum256([]byte(name))
		prefix, ok := strings.CutSuffix(got, "…"+hex.EncodeToString(sum[:6]))
		if !ok || len(got) > maxListedName || !utf8.ValidString(got) || !strings.HasPrefix(name, prefix) {
			t.Fatalf("a name of %d bytes listed as %q (%d bytes)", len(name), got, len(got))
		}
		// As many characters as fit: the next one would not.
		_, w := utf8.DecodeRuneInString(name[len(prefix):])
		if len(got)+w <= maxListedName {
			t.Fatalf("%q: listed as %d bytes, with room for the next character", name, len(got))
		}
	}
}
