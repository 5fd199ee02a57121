package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// cachedCount is run.cached as --reporter json prints it.
var cachedCount = regexp.MustCompile(`,\n    "cached": \d+`)

// cacheFormats are the formats TestCacheServesUnchangedCases compares: a
// run writes json on stdout and each of the others to a file
// (--output FORMAT=FILE, the bytes --format FORMAT gives: TestOutputFormatFile).
var cacheFormats = []string{"text", "agent", "junit", "sarif", "html"}

// TestCacheServesUnchangedCases runs every example twice against one
// workspace store: the second run serves every replayed case from
// .mcptest/cache/ and writes the same output in every format, apart from the
// cached count, as a run with --no-cache does; the cold and the cached
// envelope differ only in run, whose cached counts the served cases. Each
// run writes all six formats at once, and the examples run in parallel.
func TestCacheServesUnchangedCases(t *testing.T) {
	suites, _ := filepath.Glob("../../examples/*/suite.yml")
	for _, suite := range suites {
		name := filepath.Base(filepath.Dir(suite))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := map[string]string{storeEnv: t.TempDir()}
			run := func(env map[string]string, flags ...string) (outputs map[string]string, code int) {
				t.Helper()
				dir := t.TempDir()
				args := append([]string{"run", "--config", suite, "--format", "json"}, flags...)
				for _, f := range cacheFormats {
					args = append(args, "--output", f+"="+filepath.Join(dir, f))
				}
				stdout, stderr, code := mcptest(t, env, args...)
				outputs = map[string]string{"json": stdout}
				for _, f := range cacheFormats {
					data, err := os.ReadFile(filepath.Join(dir, f))
					if err != nil {
						t.Fatalf("%v: exit %d, no %s report: %v\n%s", flags, code, f, err, stderr)
					}
					outputs[f] = string(data)
				}
				return outputs, code
			}
			fresh, code := run(nil, "--no-cache")
			first, code1 := run(store)
			second, code2 := run(store)
			if code != code1 || code != code2 {
				t.Errorf("exit codes %d (no cache), %d, %d", code, code1, code2)
			}
			n := func(s string) string {
				s = cachedCount.ReplaceAllString(normalizeAgent(normalize(s)), "")
				s = regexp.MustCompile(`\d+ cached`).ReplaceAllString(s, "N cached")
				s = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`).ReplaceAllString(s, "RUN-ID")
				s = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)?`).ReplaceAllString(s, "TIME")
				return regexp.MustCompile(`(time|duration|durationMs)="[^"]*"`).ReplaceAllString(s, `$1=""`)
			}
			for _, f := range append([]string{"json"}, cacheFormats...) {
				if n(first[f]) != n(fresh[f]) || n(second[f]) != n(fresh[f]) {
					t.Errorf("%s: a cached run differs\n--- no cache\n%s\n--- served from cache\n%s", f, fresh[f], second[f])
				}
			}
			// The cold and the cached envelope differ only in run (and a
			// live tool test's measured duration_ms, which no cache
			// serves), where run.cached counts the served cases.
			if a, b := normalize(withoutRun(t, first["json"])), normalize(withoutRun(t, second["json"])); a != b {
				t.Errorf("the envelopes differ outside run:\n--- cold\n%s\n--- cached\n%s", a, b)
			}
			if runCached(t, first["json"]) != 0 {
				t.Errorf("the cold run says it served cases from the cache")
			}
			var env report.Envelope
			if err := json.Unmarshal([]byte(second["json"]), &env); err != nil {
				t.Fatal(err)
			}
			replayed := 0
			for _, c := range env.Cases {
				if c.Kind == report.KindAgent || c.Kind == report.KindScenario {
					replayed++
				}
			}
			if env.Run.Cached != replayed {
				t.Errorf("cached %d, want %d (every replayed case)", env.Run.Cached, replayed)
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
		var env report.Envelope
		if err := json.Unmarshal([]byte(out), &env); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		return env.Run.Cached
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
	var env report.Envelope
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

// runBlock is the "run" member of an envelope as --reporter json prints
// it: the one part allowed to differ between two runs of the same inputs.
var runBlock = regexp.MustCompile(`(?s)\n  "run": \{.*?\n  \},`)

// withoutRun removes the run block from a printed envelope.
func withoutRun(t *testing.T, out string) string {
	t.Helper()
	if !runBlock.MatchString(out) {
		t.Fatalf("no run block in\n%s", out)
	}
	return runBlock.ReplaceAllString(out, "")
}

// runCached reads run.cached from a printed envelope (0 when absent).
func runCached(t *testing.T, out string) int {
	t.Helper()
	var env struct {
		Run struct {
			Cached int `json:"cached"`
		} `json:"run"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return env.Run.Cached
}

// failingWorkspace copies the quickstart with two of its three cases made
// to fail: the weather test on a per-run assertion (tokens.total <= 1) and
// the research test on a gate assertion (tool_selection.f1 >= 101).
func failingWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, "../../examples/quickstart", dir)
	suite := filepath.Join(dir, "suite.yml")
	src, err := os.ReadFile(suite)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), `matcher: { "<=": 2000 }`, `matcher: { "<=": 1 }`, 1)
	edited = strings.Replace(edited, `tool_selection.f1: { ">=": 80 }`, `tool_selection.f1: { ">=": 101 }`, 1)
	if strings.Count(edited, `{ "<=": 1 }`) != 1 || !strings.Contains(edited, `">=": 101`) {
		t.Fatal("the quickstart changed: cannot make its cases fail")
	}
	if err := os.WriteFile(suite, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	return suite
}

const (
	weatherCase  = "weather answer names the city"
	researchCase = "research-agent picks search then fetch"
)

// cacheEntries maps each case name to its entry file in the store's cache,
// reading entries of any format (a bare case result or {key, case}).
func cacheEntries(t *testing.T, store string) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(store, "cache", "*.json"))
	out := map[string]string{}
	for _, f := range files {
		var e struct {
			Name string          `json:"name"`
			Case json.RawMessage `json:"case"`
		}
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &e); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if e.Case != nil {
			json.Unmarshal(e.Case, &e)
		}
		out[e.Name] = f
	}
	if len(out) != 3 {
		t.Fatalf("cache entries %v, want one per quickstart case", out)
	}
	return out
}

// editCase rewrites the case result inside the entry at path.
func editCase(t *testing.T, path string, edit func(c map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	c := doc
	if inner, ok := doc["case"].(map[string]any); ok {
		c = inner
	}
	edit(c)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// keyOf is the cache key an entry file is stored under.
func keyOf(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".json")
}

// TestCacheEntryIsBoundToItsCase plants each way a committed .mcptest/cache/
// could lie and checks the run is exactly the cold run: same exit code and
// the same envelope apart from run, with one warning line naming the entry;
// the entry is rewritten, so the next run serves every case again.
func TestCacheEntryIsBoundToItsCase(t *testing.T) {
	attacks := []struct {
		name   string
		warn   string
		tamper func(t *testing.T, entries map[string]string)
	}{
		{"verdict flipped to pass", "verdict", func(t *testing.T, e map[string]string) {
			editCase(t, e[weatherCase], func(c map[string]any) { c["verdict"] = "pass" })
		}},
		{"failed gate assertion flipped with its verdict", "assertions[0]", func(t *testing.T, e map[string]string) {
			editCase(t, e[researchCase], func(c map[string]any) {
				c["assertions"].([]any)[0].(map[string]any)["passed"] = true
				c["verdict"] = "pass"
			})
		}},
		{"failed assertion removed with its verdict", "assertion results", func(t *testing.T, e map[string]string) {
			editCase(t, e[weatherCase], func(c map[string]any) {
				c["assertions"] = c["assertions"].([]any)[:3]
				c["verdict"] = "pass"
			})
		}},
		{`{"name": "x"}`, "not a cache entry", func(t *testing.T, e map[string]string) {
			os.WriteFile(e[weatherCase], []byte(`{"name": "x"}`), 0o644)
		}},
		{"another case's result under this key", "not of", func(t *testing.T, e map[string]string) {
			data, _ := os.ReadFile(e[researchCase])
			data = bytes.ReplaceAll(data, []byte(keyOf(e[researchCase])), []byte(keyOf(e[weatherCase])))
			os.WriteFile(e[weatherCase], data, 0o644)
		}},
		{"an entry for another key", "bound to key", func(t *testing.T, e map[string]string) {
			data, _ := os.ReadFile(e[researchCase])
			os.WriteFile(e[weatherCase], data, 0o644)
		}},
		{"wrong kind", "kind", func(t *testing.T, e map[string]string) {
			editCase(t, e[weatherCase], func(c map[string]any) { c["kind"] = "scenario" })
		}},
		{"wrong position", "at ", func(t *testing.T, e map[string]string) {
			editCase(t, e[weatherCase], func(c map[string]any) {
				c["position"].(map[string]any)["line"] = json.Number("1")
			})
		}},
		{"symlink out of the store", "symbolic link", func(t *testing.T, e map[string]string) {
			outside := filepath.Join(t.TempDir(), "entry.json")
			data, _ := os.ReadFile(e[weatherCase])
			os.WriteFile(outside, data, 0o644)
			os.Remove(e[weatherCase])
			if err := os.Symlink(outside, e[weatherCase]); err != nil {
				t.Skip("symlink:", err)
			}
		}},
		{"FIFO", "named pipe", func(t *testing.T, e map[string]string) {
			os.Remove(e[weatherCase])
			if err := mkfifo(e[weatherCase]); err != nil {
				t.Skip("mkfifo:", err)
			}
		}},
	}
	suite := failingWorkspace(t)
	cold, _, coldCode := mcptest(t, nil, "run", "--config", suite, "--reporter", "json", "--no-cache")
	if coldCode != ExitFail {
		t.Fatalf("cold run: exit %d, want %d", coldCode, ExitFail)
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			store := map[string]string{storeEnv: t.TempDir()}
			mcptest(t, store, "run", "--config", suite, "--reporter", "json")
			a.tamper(t, cacheEntries(t, store[storeEnv]))

			type result struct {
				out, stderr string
				code        int
			}
			done := make(chan result, 1)
			go func() {
				out, stderr, code := mcptest(t, store, "run", "--config", suite, "--reporter", "json")
				done <- result{out, stderr, code}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("mcptest run hung on the planted cache entry")
			}
			if r.code != coldCode {
				t.Errorf("exit %d, want %d as without the cache", r.code, coldCode)
			}
			if got, want := withoutRun(t, r.out), withoutRun(t, cold); got != want {
				t.Errorf("the planted entry changed the envelope:\n%s\n--- want, as computed without the cache:\n%s", got, want)
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "mcptest: warning: ") || !strings.Contains(lines[0], a.warn) || !strings.Contains(lines[0], "recomputed") {
				t.Errorf("stderr %q: want one warning line naming the entry's problem (%q)", r.stderr, a.warn)
			}
			again, stderr, _ := mcptest(t, store, "run", "--config", suite, "--reporter", "json")
			if n := runCached(t, again); n != 3 || stderr != "" {
				t.Errorf("the refused entry was not rewritten: next run cached %d (want 3), stderr %q", n, stderr)
			}
		})
	}
}

// TestCacheOffOnCI: with CI or GITHUB_ACTIONS true, run recomputes every
// case unless --cache is given; --cache with --no-cache is a usage error.
func TestCacheOffOnCI(t *testing.T) {
	suite := "../../examples/quickstart/suite.yml"
	for _, ci := range []string{"CI", "GITHUB_ACTIONS"} {
		t.Run(ci, func(t *testing.T) {
			env := map[string]string{storeEnv: t.TempDir(), ci: "true"}
			for i := 0; i < 2; i++ {
				out, _, _ := mcptest(t, env, "run", "--config", suite, "--reporter", "json")
				if n := runCached(t, out); n != 0 {
					t.Fatalf("%s=true, run %d: cached %d, want 0 (the cache is off on CI)", ci, i+1, n)
				}
			}
			if entries, _ := filepath.Glob(filepath.Join(env[storeEnv], "cache", "*.json")); len(entries) != 0 {
				t.Errorf("%s=true wrote %d cache entries", ci, len(entries))
			}
			mcptest(t, env, "run", "--config", suite, "--reporter", "json", "--cache")
			out, _, _ := mcptest(t, env, "run", "--config", suite, "--reporter", "json", "--cache")
			if n := runCached(t, out); n != 3 {
				t.Errorf("%s=true with --cache: cached %d, want 3", ci, n)
			}
		})
	}
	_, stderr, code := mcptest(t, nil, "run", "--config", suite, "--cache", "--no-cache")
	if code != ExitInput || !strings.Contains(stderr, "--cache and --no-cache") {
		t.Errorf("--cache --no-cache: exit %d, %q", code, stderr)
	}
}

// TestPruneRemovesUnreadableRuns: the pruning pass after a run removes any
// run file its readers could not use (truncated, not JSON, a FIFO, a link
// out of the store) and stale temporary files, and keeps whole envelopes.
func TestPruneRemovesUnreadableRuns(t *testing.T) {
	store := t.TempDir()
	runs := filepath.Join(store, "runs")
	os.MkdirAll(runs, 0o755)
	whole, _, _ := mcptest(t, nil, "run", "--config", "../../examples/quickstart/suite.yml", "--reporter", "json")
	plant := map[string]string{
		"01A00000000000000000000001.json": whole[:len(whole)/2],                            // a run killed while its file was written
		"01A0000000000000000000000A.json": whole[:strings.LastIndex(whole, "\n    }\n")+7], // killed after a case
		"01A00000000000000000000002.json": "not json",
		"01A00000000000000000000003.json": "",
		"01A00000000000000000000009.json": whole,
	}
	for name, body := range plant {
		os.WriteFile(filepath.Join(runs, name), []byte(body), 0o644)
	}
	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	os.WriteFile(outside, []byte(whole), 0o644)
	os.Symlink(outside, filepath.Join(runs, "01A00000000000000000000004.json"))
	mkfifo(filepath.Join(runs, "01A00000000000000000000005.json"))
	old := time.Now().Add(-2 * time.Hour)
	for _, name := range []string{".01A00000000000000000000006.json.tmp-123", "01A00000000000000000000007.json.456.tmp"} {
		p := filepath.Join(runs, name)
		os.WriteFile(p, []byte("{"), 0o644)
		os.Chtimes(p, old, old)
	}
	fresh := filepath.Join(runs, ".01A00000000000000000000008.json.tmp-789")
	os.WriteFile(fresh, []byte("{"), 0o644)

	out, stderr, _ := mcptest(t, map[string]string{storeEnv: store}, "run", "--config", "../../examples/quickstart/suite.yml", "--reporter", "json")
	var env struct {
		Run struct{ ID string } `json:"run"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var got []string
	entries, _ := os.ReadDir(runs)
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{filepath.Base(fresh), "01A00000000000000000000009.json", env.Run.ID + ".json"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("runs/ holds %v\nwant %v", got, want)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("pruning removed the file a link pointed to: %v", err)
	}
}

// TestStoreDirLinkIsRefused: a runs/ or cache/ directory that is a link
// (a repository can commit one) is neither written nor pruned.
func TestStoreDirLinkIsRefused(t *testing.T) {
	store, elsewhere := t.TempDir(), t.TempDir()
	junk := filepath.Join(elsewhere, "settings.json")
	os.WriteFile(junk, []byte("{ // not JSON, but not ours either"), 0o644)
	for _, d := range []string{"runs", "cache"} {
		if err := os.Symlink(elsewhere, filepath.Join(store, d)); err != nil {
			t.Skip("symlink:", err)
		}
	}
	_, stderr, _ := mcptest(t, map[string]string{storeEnv: store}, "run", "--config", "../../examples/quickstart/suite.yml", "--reporter", "json")
	entries, _ := os.ReadDir(elsewhere)
	if len(entries) != 1 {
		t.Errorf("the store wrote or pruned through a link: %v", entries)
	}
	if !strings.Contains(stderr, "symbolic link") {
		t.Errorf("stderr %q: want a warning about the link", stderr)
	}
}

// TestFailedWriteKeepsPreviousFile runs the real binary under a file size
// limit, so every write of a stored or output file fails half way: the
// previous --output file is left whole, and no truncated run file is left
// in the store.
func TestFailedWriteKeepsPreviousFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh and ulimit")
	}
	bin := mcptestBin(t)
	dir := t.TempDir()
	copyDir(t, "../../examples/quickstart", dir)
	store := filepath.Join(dir, "store")
	sh := func(limit bool, args ...string) error {
		script := `exec "$@"`
		if limit {
			script = `ulimit -f 2 && exec "$@"`
		}
		cmd := exec.Command("sh", append([]string{"-c", script, "sh", bin}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), storeEnv+"="+store)
		return cmd.Run()
	}
	sh(false, "run", "--config", "suite.yml", "--reporter", "json", "--output", "run.json")
	for _, args := range [][]string{
		{"run", "--config", "suite.yml", "--reporter", "html", "--output", "out.html"},
		{"report", "run.json", "--format", "html", "--output", "out.html"},
	} {
		sh(false, args...)
		before, err := os.ReadFile(filepath.Join(dir, "out.html"))
		if err != nil || len(before) < 4096 {
			t.Fatalf("%s: the report is %d bytes (%v), want more than the file size limit", args[0], len(before), err)
		}
		if err := sh(true, args...); err == nil {
			t.Fatalf("%s: a write past the file size limit succeeded", args[0])
		}
		after, _ := os.ReadFile(filepath.Join(dir, "out.html"))
		if !bytes.Equal(before, after) {
			t.Errorf("%s: a failed write left out.html at %d bytes (was %d)", args[0], len(after), len(before))
		}
	}
	files, _ := filepath.Glob(filepath.Join(store, "runs", "*.json"))
	for _, f := range files {
		if data, _ := os.ReadFile(f); !json.Valid(data) {
			t.Errorf("a truncated run file was left in the store: %s (%d bytes)", filepath.Base(f), len(data))
		}
	}
}

// TestCacheMinBytes runs the built binary twice against one store with the
// cache's default rules: of two cases, the one whose cassette is under
// engine.CacheMinBytes is computed both times and never stored, the other
// is served from the cache the second time; a suite of more cases than the
// cache keeps (engine.CacheKeep) writes no entry at all; and a malformed
// MCPTEST_CACHE_MIN_BYTES is refused with exit 2.
func TestCacheMinBytes(t *testing.T) {
	bin := mcptestBin(t)
	dir := t.TempDir()
	small := `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [{"tool": "get_weather", "arguments": {"city": "Paris"}}], "final_response": "sunny"}]}]}` + "\n"
	pad := strings.Repeat("x", engine.CacheMinBytes)
	large := `{"mcptest_cassette": 1, "prompt": "` + pad + `", "runs": [{"turns": [{"calls": [{"tool": "get_weather", "arguments": {"city": "Paris"}}], "final_response": "sunny"}]}]}` + "\n"
	files := map[string]string{"small.json": small, "large.json": large,
		"suite.yml": "agents:\n  - name: small\n    cassette: small.json\n    expect:\n      - final_response: { contains: sunny }\n" +
			"  - name: large\n    cassette: large.json\n    expect:\n      - final_response: { contains: sunny }\n"}
	var many strings.Builder
	many.WriteString("agents:\n")
	for i := range engine.CacheKeep + 1 {
		fmt.Fprintf(&many, "  - name: large %d\n    cassette: large.json\n", i)
	}
	files["many.yml"] = many.String()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(store, suite string, env ...string) (cached int, entries int, stderr string, code int) {
		cmd := exec.Command(bin, "run", "--config", suite, "--format", "json")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), append([]string{storeEnv + "=" + store, "CI=", "GITHUB_ACTIONS=", cacheMinEnv + "="}, env...)...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		_ = cmd.Run()
		got, _ := filepath.Glob(filepath.Join(store, "cache", "*.json"))
		if cmd.ProcessState.ExitCode() != 0 {
			return 0, len(got), errb.String(), cmd.ProcessState.ExitCode()
		}
		return runCached(t, out.String()), len(got), errb.String(), 0
	}
	store := t.TempDir()
	run(store, "suite.yml")
	if cached, entries, stderr, code := run(store, "suite.yml"); code != 0 || cached != 1 || entries != 1 {
		t.Errorf("second run: exit %d, cached %d, %d entries, want 0, 1 (the large case) and 1\n%s", code, cached, entries, stderr)
	}
	store = t.TempDir()
	run(store, "suite.yml", cacheMinEnv+"=0")
	if cached, entries, stderr, code := run(store, "suite.yml", cacheMinEnv+"=0"); code != 0 || cached != 2 || entries != 2 {
		t.Errorf("%s=0: exit %d, cached %d, %d entries, want 0, 2 and 2\n%s", cacheMinEnv, code, cached, entries, stderr)
	}
	store = t.TempDir()
	run(store, "many.yml")
	if cached, entries, stderr, code := run(store, "many.yml"); code != 0 || cached != 0 || entries != 0 {
		t.Errorf("%d cases: exit %d, cached %d, %d entries, want 0, 0 and 0 (more cases than the cache keeps)\n%s", engine.CacheKeep+1, code, cached, entries, stderr)
	}
	if _, _, stderr, code := run(t.TempDir(), "suite.yml", cacheMinEnv+"=16k"); code != ExitInput || !strings.Contains(stderr, cacheMinEnv+`="16k": want a number of bytes`) {
		t.Errorf("%s=16k: exit %d, %q, want 2 naming the variable", cacheMinEnv, code, stderr)
	}
}
