package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
