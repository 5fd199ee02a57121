package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptest/mcptest/report"
)

// drawToolName draws a server or tool name: most of usual length, some
// past the 256 bytes a case lists whole, of one- to four-byte characters.
func drawToolName(rng *rand.Rand) string {
	chars := []string{"a", "b", "_", "-", ".", "é", "中", "🙂"}
	n := []int{1, 12, 128, 254, 255, 256, 257, 300, 5000, 100_000}[rng.IntN(10)]
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(chars[rng.IntN(len(chars))])
	}
	return b.String()
}

// listedCut matches the form a name over 256 bytes is listed in: its
// first characters, "…" and 12 hex digits.
var listedCut = regexp.MustCompile(`…[0-9a-f]{12}$`)

// namedTool is a tool of a drawn recording: its server and its name.
type namedTool struct{ server, tool string }

// namedRecording is what a drawn recording of TestListedNamesBounded
// called (the calls of each tool) and offered.
type namedRecording struct {
	calls   map[namedTool]int
	offered map[namedTool]bool
}

// writeNamedRecording writes a cassette at path whose catalog offers
// drawn tools of two drawn servers and whose two runs call them and
// others, and returns what it called and offered.
func writeNamedRecording(t *testing.T, rng *rand.Rand, path string) namedRecording {
	t.Helper()
	servers := []string{drawToolName(rng), drawToolName(rng)}
	var tools []namedTool
	for range 1 + rng.IntN(12) {
		tools = append(tools, namedTool{servers[rng.IntN(2)], drawToolName(rng)})
		if last := tools[len(tools)-1]; len(last.tool) > 300 && rng.IntN(2) == 0 {
			// Alike in every byte but the last character.
			tools = append(tools, namedTool{last.server, last.tool[:len(last.tool)-1] + "z"})
		}
	}
	rec := namedRecording{calls: map[namedTool]int{}, offered: map[namedTool]bool{}}
	catalog := map[string]any{}
	for _, k := range tools[:len(tools)/2+1] {
		if !rec.offered[k] {
			rec.offered[k] = true
			sc, _ := catalog[k.server].(map[string]any)
			if sc == nil {
				sc = map[string]any{"tools": []any{}}
				catalog[k.server] = sc
			}
			sc["tools"] = append(sc["tools"].([]any), map[string]any{"name": k.tool, "inputSchema": map[string]any{"type": "object"}})
		}
	}
	var runs []any
	for range 2 {
		var calls []any
		for range 1 + rng.IntN(20) {
			k := tools[rng.IntN(len(tools))]
			rec.calls[k]++
			calls = append(calls, map[string]any{"server": k.server, "tool": k.tool, "arguments": map[string]any{}})
		}
		runs = append(runs, map[string]any{"turns": []any{map[string]any{"calls": calls, "final_response": "done"}}})
	}
	data, err := json.Marshal(map[string]any{"mcptest_cassette": 1, "catalog": catalog, "runs": runs})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestListedNamesBounded runs the built binary over drawn recordings whose
// catalogs offer, and whose runs call, tools and servers of drawn names
// (up to 100,000 bytes, several alike in their first 5,000 bytes and
// different after) and holds each name a case lists, in its tools and in
// the envelope's catalog, to 256 bytes of UTF-8: whole when it fits, else
// cut to a prefix marked with a digest. Distinct tools stay distinct,
// every call is counted, and a tool both called and offered is listed
// under one name in both.
func TestListedNamesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary over drawn recordings")
	}
	bin := buildTools(t).mcptest
	rng := rand.New(rand.NewPCG(40, 31))
	dir := t.TempDir()
	recs := make([]namedRecording, 8)
	var suite strings.Builder
	suite.WriteString("tests:\n")
	for i := range recs {
		recs[i] = writeNamedRecording(t, rng, filepath.Join(dir, fmt.Sprintf("c%d.json", i)))
		fmt.Fprintf(&suite, "  - name: case %d\n    type: agent\n    prompt: p\n    cassette: c%d.json\n    expect:\n      - target: final_response\n        matcher: { contains: done }\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	lc := &leanCorpus{t: t, bin: bin, dir: dir, at: "drawn tool names"}
	lc.mcptest("run", "--config", "suite.yml", "--format", "json", "--output", "r.json", "--no-cache")
	env, err := report.Read(bytes.NewReader(lc.read("r.json")), "r.json")
	if err != nil {
		t.Fatal(err)
	}
	catalogs := map[string]report.Catalog{}
	for _, c := range env.Catalogs {
		catalogs[c.SHA256] = c
	}
	cut := 0
	for i, c := range env.Cases {
		cut += checkListedCase(t, c, catalogs[c.Catalog], recs[i])
	}
	if cut == 0 {
		t.Fatal("no drawn name was cut")
	}
}

// checkListedCase holds the names case c lists, in its tools and in its
// catalog, to checkListedName, and their counts to what its recording
// called and offered; it returns how many names were cut.
func checkListedCase(t *testing.T, c *report.CaseResult, catalog report.Catalog, rec namedRecording) int {
	t.Helper()
	cut, calls := 0, 0
	listed := map[namedTool]bool{}
	for _, u := range c.Tools {
		cut += checkListedName(t, c.Name, u.Server) + checkListedName(t, c.Name, u.Tool)
		listed[namedTool{u.Server, u.Tool}] = true
		calls += int(u.Calls)
	}
	offered := map[namedTool]bool{}
	for _, s := range catalog.Servers {
		for _, tool := range s.Tools {
			cut += checkListedName(t, c.Name, s.Server) + checkListedName(t, c.Name, tool)
			offered[namedTool{s.Server, tool}] = true
		}
	}
	total, both := 0, 0
	for k, n := range rec.calls {
		total += n
		if rec.offered[k] {
			both++
		}
	}
	if len(listed) != len(rec.calls) || calls != total || len(offered) != len(rec.offered) {
		t.Errorf("%s: lists %d tools called %d times and %d offered, want %d, %d and %d", c.Name, len(listed), calls, len(offered), len(rec.calls), total, len(rec.offered))
	}
	// A tool both called and offered is listed under one name.
	for k := range listed {
		if offered[k] {
			both--
		}
	}
	if both != 0 {
		t.Errorf("%s: %d tools called and offered are listed under other names in the catalog", c.Name, both)
	}
	return cut
}

// checkListedName holds a name a case lists to 256 bytes of UTF-8, cut
// only in the listed form; it returns 1 when the name was cut.
func checkListedName(t *testing.T, at, name string) int {
	t.Helper()
	if len(name) > 256 || !utf8.ValidString(name) {
		t.Errorf("%s: a listed name of %d bytes (valid UTF-8: %v)", at, len(name), utf8.ValidString(name))
	}
	if listedCut.MatchString(name) {
		return 1
	}
	return 0
}
