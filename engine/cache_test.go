package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestDirCache: a second run serves the replayed case from the cache with
// an identical result; a corrupt entry is a miss, never an error.
func TestDirCache(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: weather selection
    cassette: c.json
    expect:
      - tool_names: { contains: w.get_weather }
`, map[string]string{"c.json": cassetteJSON(runJSON("x", "w.get_weather"))})
	cache := DirCache{Dir: t.TempDir()}
	first := run(t, s, Options{Cache: cache, Version: "test"})
	second := run(t, s, Options{Cache: cache, Version: "test"})
	if first.Run.Cached != 0 || second.Run.Cached != 1 {
		t.Fatalf("cached %d then %d, want 0 then 1", first.Run.Cached, second.Run.Cached)
	}
	second.Run.Cached = 0
	if !reflect.DeepEqual(jsonOf(t, first), jsonOf(t, second)) {
		t.Errorf("the cached result differs:\n%s\n%s", jsonOf(t, first), jsonOf(t, second))
	}
	if other := run(t, s, Options{Cache: cache, Version: "other"}); other.Run.Cached != 0 {
		t.Errorf("another mcptest version was served from the cache")
	}
	entries, _ := filepath.Glob(filepath.Join(cache.Dir, "*.json"))
	for _, e := range entries {
		os.WriteFile(e, []byte("{not json"), 0o644)
	}
	if env := run(t, s, Options{Cache: cache, Version: "test"}); env.Run.Cached != 0 || env.Verdict != first.Verdict {
		t.Errorf("a corrupt entry: cached %d, verdict %s", env.Run.Cached, env.Verdict)
	}
}

func jsonOf(t *testing.T, env *report.Envelope) string {
	t.Helper()
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// failingCacheSuite has a failing agent test and a failing scenario (a
// forbidden call), both cached.
func failingCacheSuite(t testing.TB) *Suite {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"c.json":                 cassetteJSON(runJSON("x", "w.get_weather")),
		"cassettes/restock.json": cassetteJSON(callsJSON("add_widget", "drop_inventory")),
		"suite.yml": `
agents:
  - name: weather selection
    cassette: c.json
    expect:
      - tool_names: { contains: w.get_forecast }
` + seedScenario,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := LoadSuite(filepath.Join(dir, "suite.yml"))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

// readEntries decodes every entry of a DirCache by case name.
func readEntries(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	out := map[string]string{}
	for _, f := range files {
		var e cacheEntry
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &e); err != nil || e.Case == nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[e.Case.Name] = f
	}
	return out
}

// TestCacheRefusesTamperedEntries plants entries that lie about their case
// in ways the cmd tests do not: each is refused with one warning, the run
// is the cold run, and the entry is rewritten.
func TestCacheRefusesTamperedEntries(t *testing.T) {
	const agent, scenario = "weather selection", "restock the widget shelf"
	edit := func(name string, f func(e *cacheEntry)) func(t *testing.T, entries map[string]string) {
		return func(t *testing.T, entries map[string]string) {
			var e cacheEntry
			data, _ := os.ReadFile(entries[name])
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			if err := dec.Decode(&e); err != nil {
				t.Fatal(err)
			}
			f(&e)
			out, _ := json.Marshal(e)
			os.WriteFile(entries[name], out, 0o644)
		}
	}
	raw := func(name string, f func(data []byte) []byte) func(t *testing.T, entries map[string]string) {
		return func(t *testing.T, entries map[string]string) {
			data, _ := os.ReadFile(entries[name])
			os.WriteFile(entries[name], f(data), 0o644)
		}
	}
	attacks := []struct {
		name, warn string
		tamper     func(t *testing.T, entries map[string]string)
	}{
		{"agent verdict flipped", "verdict", edit(agent, func(e *cacheEntry) { e.Case.Verdict = report.Pass })},
		{"scenario verdict flipped", "verdict", edit(scenario, func(e *cacheEntry) { e.Case.Verdict = report.Pass })},
		{"scenario verdict inconclusive", "verdict", edit(scenario, func(e *cacheEntry) { e.Case.Verdict = report.Inconclusive })},
		{"declared runs", "runs", edit(agent, func(e *cacheEntry) { e.Case.RunsDeclared = 5 })},
		{"cassette digest", "cassette digest", edit(agent, func(e *cacheEntry) { e.Case.Cassettes.SHA256 = strings.Repeat("0", 64) })},
		{"no cassettes", "cassette digest", edit(agent, func(e *cacheEntry) { e.Case.Cassettes = nil })},
		{"definition digest", "definition", edit(agent, func(e *cacheEntry) { e.Case.DefinitionSHA256 = "x" })},
		{"null targets", "lacks", edit(agent, func(e *cacheEntry) { e.Case.Targets = nil })},
		{"another case's name", "not of", edit(agent, func(e *cacheEntry) { e.Case.Name = scenario })},
		{"another kind", "its kind", edit(agent, func(e *cacheEntry) { e.Case.Kind = report.KindScenario })},
		{"another position", "for a case at", edit(agent, func(e *cacheEntry) { e.Case.Position.Col++ })},
		{"another key", "bound to key", edit(agent, func(e *cacheEntry) { e.Key = strings.Repeat("0", 64) })},
		{"null counts", "lacks", edit(agent, func(e *cacheEntry) { e.Case.Counts = nil })},
		{"null assertions", "lacks", edit(agent, func(e *cacheEntry) { e.Case.Assertions = nil })},
		{"null floors", "lacks", edit(agent, func(e *cacheEntry) { e.Case.Floors = nil })},
		{"null findings", "lacks", edit(agent, func(e *cacheEntry) { e.Case.Findings = nil })},
		{"an assertion dropped", "assertion results", edit(scenario, func(e *cacheEntry) { e.Case.Assertions = e.Case.Assertions[:len(e.Case.Assertions)-1] })},
		{"bad tools entry", "tools[0]", edit(agent, func(e *cacheEntry) { e.Case.Tools = []report.ToolUse{{Calls: -1}} })},
		{"old format", "format 2", edit(agent, func(e *cacheEntry) { e.Format = 2 })},
		{"null case", "no case", edit(agent, func(e *cacheEntry) { e.Case = nil })},
		{"assertion moved", "assertions[0]", edit(agent, func(e *cacheEntry) { e.Case.Assertions[0].Position.Line++ })},
		{"assertion of another index", "assertions[0]", edit(agent, func(e *cacheEntry) { e.Case.Assertions[0].Index++ })},
		{"assertion of another block", "assertions[0]", edit(agent, func(e *cacheEntry) { e.Case.Assertions[0].Block = "budget" })},
		{"assertion default flipped", "assertions[0]", edit(agent, func(e *cacheEntry) { e.Case.Assertions[0].Default = !e.Case.Assertions[0].Default })},
		{"assertion of another target", "assertions[0]", edit(agent, func(e *cacheEntry) { e.Case.Assertions[0].Target = "steps.calls" })},
		{"trailing data", "data after", raw(agent, func(d []byte) []byte { return append(d, []byte(` {"case": null}`)...) })},
		{"over the size limit", "limit", func(t *testing.T, entries map[string]string) {
			if err := os.Truncate(entries[agent], CacheEntryLimit+1); err != nil {
				t.Skip("truncate:", err)
			}
		}},
	}
	s := failingCacheSuite(t)
	cold := run(t, s, Options{Version: "test"})
	if cold.Verdict != report.Fail || cold.Cases[0].Verdict != report.Fail || cold.Cases[1].Verdict != report.Fail {
		t.Fatalf("the suite should fail in both cases: %s", jsonOf(t, cold))
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			cache := DirCache{Dir: t.TempDir()}
			run(t, s, Options{Version: "test", Cache: cache})
			a.tamper(t, readEntries(t, cache.Dir))
			var warnings []string
			opt := Options{Version: "test", Cache: cache, Warn: func(m string) {
				if !strings.HasPrefix(m, "the price table") { // the synthetic model m-1 is not priced
					warnings = append(warnings, m)
				}
			}}
			env := run(t, s, opt)
			if env.Run.Cached != 1 {
				t.Errorf("cached %d, want 1 (the untouched case)", env.Run.Cached)
			}
			env.Run.Cached = 0
			if got, want := jsonOf(t, env), jsonOf(t, cold); got != want {
				t.Errorf("the planted entry changed the envelope:\n%s\nwant\n%s", got, want)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], a.warn) || !strings.Contains(warnings[0], "recomputed") {
				t.Errorf("warnings %q, want one naming %q", warnings, a.warn)
			}
			warnings = nil
			if env := run(t, s, opt); env.Run.Cached != 2 || len(warnings) != 0 {
				t.Errorf("the entry was not rewritten: cached %d, warnings %q", env.Run.Cached, warnings)
			}
		})
	}
}

// TestCacheBoundToBuild: a result computed by one build is not served to
// another (a development build passes its executable's digest as Build).
func TestCacheBoundToBuild(t *testing.T) {
	s := failingCacheSuite(t)
	cache := DirCache{Dir: t.TempDir()}
	for _, tc := range []struct {
		build  string
		served bool
	}{{"dev-a", false}, {"dev-a", true}, {"dev-b", false}, {"", false}, {"", true}} {
		env, err := Run(s, Options{Version: "0.1.0", Build: tc.build, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: len(env.Cases)}[tc.served]; env.Run.Cached != want {
			t.Errorf("build %q: %d cases served from the cache, want %d", tc.build, env.Run.Cached, want)
		}
	}
}
