package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// droppedSuite writes a suite of n tests over the two cassettes of
// examples/selection-f1 into a temporary directory and returns its path:
// tests: holds tests with a cassette: (which a run drops and builds
// again), every seventh looked up by name in cassettes/ instead (which it
// keeps), and an agents: section after it holds one more test.
func droppedSuite(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "cassettes"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"search-then-fetch.json", "search-then-shell.json"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "selection-f1", "cassettes", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cassettes", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	b.WriteString("tests:\n")
	test := func(name, cassette string, floor int) {
		fmt.Fprintf(&b, "  - name: %s\n    type: agent\n", name)
		if cassette != "" {
			fmt.Fprintf(&b, "    cassette: cassettes/%s\n", cassette)
		}
		fmt.Fprintf(&b, "    equal_function_sets:\n      classes:\n        - { name: search, members: [brave.web_search, google.search] }\n        - { name: fetch, members: [http.get] }\n      expect:\n        - tool_selection.f1: { \">=\": %d }\n", floor)
	}
	for i := range n {
		cassette := []string{"search-then-fetch.json", "search-then-shell.json"}[i%2]
		if i%7 == 3 {
			name := fmt.Sprintf("by-name-%d", i)
			data, err := os.ReadFile(filepath.Join(dir, "cassettes", cassette))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "cassettes", name+".json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			test(name, "", 40+i%50)
			continue
		}
		test(fmt.Sprintf("tool %d", i), cassette, 40+i%50)
	}
	b.WriteString("agents:\n  - name: last agent\n    type: agent\n    cassette: cassettes/search-then-fetch.json\n    expect:\n      - target: tool_names\n        matcher: { contains: http.get }\n")
	path := filepath.Join(dir, "suite.yml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadBoth loads the suite at path whole (LoadSuite) and for a run with
// its tests: held whatever its size, keeping keep tests built (a run keeps
// keepBuilt), so that a small suite keeps some tests and drops the rest.
func loadBoth(t testing.TB, path string, keep int) (whole, forRun *Suite) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole, err = parseSuiteWith(path, data, loadMode{}, suiteYAML)
	if err != nil {
		t.Fatal(err)
	}
	forRun, err = parseSuiteWith(path, data, loadMode{forRun: true, keep: keep}, heldAlways)
	if err != nil {
		t.Fatal(err)
	}
	return whole, forRun
}

// envelopeJSON is the envelope as the JSON reporter encodes it.
func envelopeJSON(t testing.TB, env *report.Envelope) []byte {
	t.Helper()
	data, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRunDroppedTestsSame: a run of a suite loaded for a run, whose tests
// it builds again one at a time, gives the envelope a run of the suite
// loaded whole gives, byte for byte: every case, with --filter (exact and
// partial) and --shard, computed on workers and on one processor, and
// with a cache, cold then warm (the run, not the cases, says what it
// served: Run.Cached). The suite keeps none of its tests built, the first
// five (the rebuild starts past them), or all of them (keepBuilt over the
// suite's length: nothing dropped).
func TestRunDroppedTestsSame(t *testing.T) {
	path := droppedSuite(t, 60)
	for _, keep := range []int{0, 5, keepBuilt} {
		t.Run(fmt.Sprintf("keep=%d", keep), func(t *testing.T) { runDroppedSame(t, path, keep) })
	}
}

func runDroppedSame(t *testing.T, path string, keep int) {
	whole, forRun := loadBoth(t, path, keep)
	if got := len(forRun.dropped) + len(forRun.Cases); got != len(whole.Cases) {
		t.Fatalf("dropped and kept: %d cases, want %d", got, len(whole.Cases))
	}
	if keep >= len(whole.Cases) {
		if len(forRun.dropped) != 0 {
			t.Fatalf("keeping %d tests built, the suite loaded for a run dropped %d of %d", keep, len(forRun.dropped), len(whole.Cases))
		}
	} else if len(forRun.dropped) == 0 || len(forRun.Cases) < keep || int(forRun.dropped[0].item) < keep {
		t.Fatalf("keeping %d, the suite loaded for a run dropped %d tests and keeps %d cases of %d",
			keep, len(forRun.dropped), len(forRun.Cases), len(whole.Cases))
	}
	// The reader keeps a short suite's text as it is unless the run may
	// have the tests handed over again, which it does only when it
	// dropped some (unpackedItems).
	if packed := forRun.kept != nil; packed != (len(forRun.dropped) > 0) || !packed && !bytes.Equal(forRun.source, whole.text()) {
		t.Fatalf("keeping %d, %d tests dropped: the text kept packed %v", keep, len(forRun.dropped), packed)
	}
	for _, procs := range []int{1, 2} {
		for _, opt := range []Options{
			{},
			{Filter: []string{"tool 18"}},
			{Filter: []string{"tool 1", "by-name"}},
			{Shard: report.Shard{Index: 2, Count: 3}},
			{Cache: DirCache{Dir: t.TempDir()}, CacheMinBytes: 1},
		} {
			t.Run(fmt.Sprintf("procs=%d/filter=%q/shard=%s", procs, opt.Filter, opt.Shard.String()), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				opt.Version = "test"
				want, err := Run(whole, opt)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Run(forRun, opt)
				if err != nil {
					t.Fatal(err)
				}
				if opt.Cache != nil {
					// The whole suite's run filled the cache: the run built
					// again is served from it.
					if got.Run.Cached != len(got.Cases) || got.Run.Cached == 0 {
						t.Errorf("served %d of %d cases from the cache", got.Run.Cached, len(got.Cases))
					}
					want.Run.Cached, got.Run.Cached = 0, 0
				}
				if a, b := envelopeJSON(t, want), envelopeJSON(t, got); !bytes.Equal(a, b) {
					t.Errorf("envelopes differ:\nwhole\n%s\nbuilt again\n%s", a, b)
				}
				if len(want.Cases) == 0 {
					t.Error("no case ran")
				}
			})
		}
	}
}

// TestRunDroppedCassetteRemoved: a cassette removed between loading and
// running a test the run builds again is the error loading would have
// given, at the same file:line:col.
func TestRunDroppedCassetteRemoved(t *testing.T) {
	path := droppedSuite(t, 12)
	_, forRun := loadBoth(t, path, 0)
	if err := os.Remove(filepath.Join(filepath.Dir(path), "cassettes", "search-then-shell.json")); err != nil {
		t.Fatal(err)
	}
	_, want := LoadSuite(path)
	if want == nil {
		t.Fatal("LoadSuite passes a suite whose cassette is gone")
	}
	_, err := Run(forRun, Options{Version: "test"})
	if err == nil {
		t.Fatal("the run passes a suite whose cassette is gone")
	}
	first := func(err error) string { return strings.SplitN(errText(err), "\n", 2)[0] }
	if first(err) != first(want) {
		t.Errorf("run error\n%s\nwant the first line of the load error\n%s", errText(err), errText(want))
	}
}
