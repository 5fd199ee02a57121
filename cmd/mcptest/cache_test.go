package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/engine"
)

var cachedTotal = regexp.MustCompile(`,\n    "cached": \d+`)

// TestCacheServesUnchangedCases runs every example twice against one
// workspace store: the second run serves every replayed case from
// .mcptest/cache/ and writes the same output, apart from the cached count.
func TestCacheServesUnchangedCases(t *testing.T) {
	suites, _ := filepath.Glob("../../examples/*/suite.yml")
	for _, suite := range suites {
		name := filepath.Base(filepath.Dir(suite))
		t.Run(name, func(t *testing.T) {
			store := map[string]string{storeEnv: t.TempDir()}
			for _, rep := range []string{"json", "pretty", "agent", "junit", "sarif", "html"} {
				fresh, _, code := mcptest(t, nil, "run", "--config", suite, "--reporter", rep, "--no-cache")
				first, _, code1 := mcptest(t, store, "run", "--config", suite, "--reporter", rep)
				second, _, code2 := mcptest(t, store, "run", "--config", suite, "--reporter", rep)
				if code != code1 || code != code2 {
					t.Errorf("%s: exit codes %d (no cache), %d, %d", rep, code, code1, code2)
				}
				n := func(s string) string {
					s = cachedTotal.ReplaceAllString(normalizeAgent(normalize(s)), "")
					s = regexp.MustCompile(`\d+ cached`).ReplaceAllString(s, "N cached")
					s = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`).ReplaceAllString(s, "RUN-ID")
					s = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)?`).ReplaceAllString(s, "TIME")
					return regexp.MustCompile(`(time|duration|durationMs)="[^"]*"`).ReplaceAllString(s, `$1=""`)
				}
				if n(first) != n(fresh) || n(second) != n(fresh) {
					t.Errorf("%s: a cached run differs\n--- no cache\n%s\n--- served from cache\n%s", rep, fresh, second)
				}
			}
			out, _, _ := mcptest(t, store, "run", "--config", suite, "--reporter", "json")
			var env engine.Envelope
			if err := json.Unmarshal([]byte(out), &env); err != nil {
				t.Fatal(err)
			}
			replayed := 0
			for _, c := range env.Cases {
				if c.Kind == engine.KindAgent || c.Kind == engine.KindScenario {
					replayed++
				}
			}
			if env.Totals.Cached != replayed {
				t.Errorf("cached %d, want %d (every replayed case)", env.Totals.Cached, replayed)
			}
		})
	}
}

// TestCacheKey: editing a cassette, or the case's definition, recomputes
// that case only; --no-cache recomputes everything.
func TestCacheKey(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "../../examples/quickstart", dir)
	suite := filepath.Join(dir, "suite.yml")
	store := map[string]string{storeEnv: t.TempDir()}
	cached := func(args ...string) int {
		t.Helper()
		out, stderr, _ := mcptest(t, store, append([]string{"run", "--config", suite, "--reporter", "json"}, args...)...)
		var env engine.Envelope
		if err := json.Unmarshal([]byte(out), &env); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		return env.Totals.Cached
	}
	if n := cached(); n != 0 {
		t.Errorf("first run: cached %d, want 0", n)
	}
	if n := cached(); n != 3 {
		t.Errorf("unchanged: cached %d, want 3", n)
	}
	if n := cached("--no-cache"); n != 0 {
		t.Errorf("--no-cache: cached %d, want 0", n)
	}
	// Touch one cassette's content: its case is recomputed.
	files, _ := filepath.Glob(filepath.Join(dir, "cassettes", "*.json"))
	if len(files) == 0 {
		t.Fatal("no cassettes in the quickstart example")
	}
	data, _ := os.ReadFile(files[0])
	if err := os.WriteFile(files[0], append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := cached(); n != 2 {
		t.Errorf("one cassette edited: cached %d, want 2", n)
	}
	// Change one case's definition.
	src, _ := os.ReadFile(suite)
	edited := strings.Replace(string(src), "runs: 3", "runs: 4", 1)
	if edited == string(src) {
		t.Fatal("the quickstart suite has no `runs: 3` to edit")
	}
	os.WriteFile(suite, []byte(edited), 0o644)
	if n := cached(); n != 2 {
		t.Errorf("one definition edited: cached %d, want 2", n)
	}
}

// TestRunIsStored: mcptest run writes its envelope to
// .mcptest/runs/<run_id>.json, the same document --reporter json prints.
func TestRunIsStored(t *testing.T) {
	store := t.TempDir()
	out, _, _ := mcptest(t, map[string]string{storeEnv: store}, "run", "--config", "../../examples/quickstart/suite.yml", "--reporter", "json")
	var env engine.Envelope
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(filepath.Join(store, "runs", env.Run.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(saved) != out {
		t.Errorf("the stored envelope differs from the printed one")
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStoreIsBounded: after a run the store keeps the newest envelopes and
// cache entries and drops the rest, with stale temporary files.
func TestStoreIsBounded(t *testing.T) {
	store := t.TempDir()
	defer func(r, c int) { keepRuns, keepCache = r, c }(keepRuns, keepCache)
	keepRuns, keepCache = 3, 2
	runs, cache := filepath.Join(store, "runs"), filepath.Join(store, "cache")
	os.MkdirAll(runs, 0o755)
	os.MkdirAll(cache, 0o755)
	old := time.Now().Add(-48 * time.Hour)
	for i, id := range []string{"01A00000000000000000000001", "01A00000000000000000000002", "01A00000000000000000000003"} {
		os.WriteFile(filepath.Join(runs, id+".json"), []byte("{}"), 0o644)
		f := filepath.Join(cache, strings.Repeat(string(rune('a'+i)), 64)+".json")
		os.WriteFile(f, []byte("{}"), 0o644)
		os.Chtimes(f, old.Add(time.Duration(i)*time.Hour), old.Add(time.Duration(i)*time.Hour))
	}
	tmp := filepath.Join(cache, "x.123.tmp")
	os.WriteFile(tmp, nil, 0o644)
	os.Chtimes(tmp, old, old)

	out, _, _ := mcptest(t, map[string]string{storeEnv: store}, "run", "--config", "../../examples/quickstart/suite.yml", "--reporter", "json")
	var env engine.Envelope
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatal(err)
	}
	names := func(dir string) []string {
		var out []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	wantRuns := []string{"01A00000000000000000000002.json", "01A00000000000000000000003.json", env.Run.ID + ".json"}
	if got := names(runs); strings.Join(got, " ") != strings.Join(wantRuns, " ") {
		t.Errorf("runs kept: %v, want %v", got, wantRuns)
	}
	// The quickstart's 3 new entries are the newest: the old ones go.
	got := names(cache)
	if len(got) != 2 {
		t.Fatalf("cache kept %v, want 2 entries", got)
	}
	for _, n := range got {
		if strings.HasPrefix(n, "aaa") || strings.HasPrefix(n, "bbb") || strings.HasPrefix(n, "ccc") || strings.HasSuffix(n, ".tmp") {
			t.Errorf("cache kept the stale %s", n)
		}
	}
}
