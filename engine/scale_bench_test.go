package engine_test

// The benchmarks of suites with many cases (see docs/benchmarks.md):
//
//   - BenchmarkCasesMemory: the peak resident set of the real `mcptest
//     run` over 500 and 8,000 cases of one cassette each, and the check
//     that it stays flat in the number of cases.
//   - BenchmarkTranscripts: 2,000 model answers saved as an eval harness
//     saves them (promptfoo's OpenAI transcripts), each scored by its own
//     test with equal_function_sets, end to end through the binary, beside
//     promptfoo's own time for the same work.
//   - BenchmarkTranscriptsInProcess: the same suite in this process, load,
//     run and JSON report, for -cpuprofile.
//   - BenchmarkLoadTranscriptSuite: loading that suite alone (its 2,000
//     tests read item by item on every core), beside its parse by
//     yaml.v3 alone, whole, into nodes.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/internal/diag"
)

// caseSizes are the numbers of cases, one cassette each, the flat-memory
// check compares.
var caseSizes = [2]int{500, 8000}

// The flat-memory target: the peak over the larger suite may exceed the
// peak over the smaller by half, plus a constant.
const (
	caseRSSFactor = 1.5
	caseRSSSlack  = 16 << 10 // KiB
)

// BenchmarkCasesMemory runs `mcptest run --config suite-cases.yml
// --reporter json --output FILE` over 500 and 8,000 cases of one cassette
// each (gen.CaseSuite) and reports the median peak resident set of each as
// maxrss-KiB/N, and the limit the larger may reach, 1.5 × the smaller +
// 16 MiB, as limit-KiB. It fails when the larger is over the limit.
//
//	go test -run '^$' -bench CasesMemory -benchtime 3x ./engine
func BenchmarkCasesMemory(b *testing.B) {
	tools := buildTools(b)
	var dirs [2]string
	for i, n := range caseSizes {
		dirs[i] = corpus(b, n)
	}
	var peaks [2][]int64
	for b.Loop() {
		for i, dir := range dirs {
			peaks[i] = append(peaks[i], tools.casesPeak(b, dir, caseSizes[i]))
		}
	}
	var med [2]int64
	for i, n := range caseSizes {
		med[i] = median(peaks[i])
		b.ReportMetric(float64(med[i]), fmt.Sprintf("maxrss-KiB/%d", n))
		b.Logf("peak RSS over %d cases, KiB: %v", n, peaks[i])
	}
	limit := int64(caseRSSFactor*float64(med[0])) + caseRSSSlack
	b.ReportMetric(float64(limit), "limit-KiB")
	if med[1] > limit {
		b.Fatalf("peak RSS grows with the number of cases: %d KiB over %d cases, %d KiB over %d, above the limit of %.1f × %d KiB + %d MiB = %d KiB",
			med[0], caseSizes[0], med[1], caseSizes[1], caseRSSFactor, med[0], caseRSSSlack>>10, limit)
	}
}

// casesPeak runs the one-test-per-cassette suite of a corpus through the
// launcher and returns its peak resident set in KiB. The run must report
// every case (a few of them fail: exit code 1 is expected). The cache is
// off (CI=true, --no-cache and a store of its own).
func (t tools) casesPeak(tb testing.TB, dir string, n int) int64 {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "report.json")
	l := t.launchEnv(tb, dir, []string{"CI=true", "MCPTEST_DIR=" + tb.TempDir()},
		t.mcptest, "run", "--config", gen.CaseSuiteFile, "--reporter", "json", "--output", out, "--no-cache")
	if l.code != 0 && l.code != 1 {
		tb.Fatalf("mcptest run in %s: exit code %d\n%s", dir, l.code, l.stderr)
	}
	checkTotal(tb, out, n)
	return l.kib
}

// checkTotal fails unless the envelope at path reports n cases.
func checkTotal(tb testing.TB, path string, n int) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var env struct {
		Totals struct {
			Total int `json:"total"`
		} `json:"totals"`
		Cases []json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		tb.Fatalf("read report: %v", err)
	}
	if env.Totals.Total != n || len(env.Cases) != n {
		tb.Fatalf("%s: %d cases (totals say %d), want %d", path, len(env.Cases), env.Totals.Total, n)
	}
}

// transcriptN is the number of transcripts the time benchmarks score.
const transcriptN = 2000

// promptfooSeconds is the time promptfoo 0.123.1 took on the reference
// machine to score 2,000 such transcripts with its tool-call F1 assertion
// (issue 17); transcriptSpeedup is how many times faster mcptest must be.
const (
	promptfooSeconds  = 13.1
	transcriptSpeedup = 50
)

// transcriptDir returns a directory holding n transcripts in format,
// generated with gen.DefaultSeed, and their suite; kept under
// os.TempDir()/mcptest-bench like the corpus.
func transcriptDir(tb testing.TB, n int, format string) string {
	tb.Helper()
	key := digest(gen.Transcript(gen.DefaultSeed, 0, format), gen.Transcript(gen.DefaultSeed, n-1, format), gen.TranscriptSuite(gen.DefaultSeed, n))
	return benchDir(tb, fmt.Sprintf("transcripts-%s-n%d-%s", format, n, key), func(tmp string) error {
		_, err := gen.WriteTranscripts(tmp, n, gen.DefaultSeed, format)
		return err
	})
}

func BenchmarkTranscripts(b *testing.B) {
	tools := buildTools(b)
	for _, format := range []string{gen.OpenAI, gen.V1} {
		b.Run("format="+format, func(b *testing.B) {
			dir := transcriptDir(b, transcriptN, format)
			var walls, cpus []time.Duration
			for b.Loop() {
				out := filepath.Join(b.TempDir(), "report.json")
				l := tools.launchEnv(b, dir, []string{"CI=true", "MCPTEST_DIR=" + b.TempDir()},
					tools.mcptest, "run", "--reporter", "json", "--output", out)
				if l.code != 1 {
					b.Fatalf("mcptest run in %s: exit code %d, want 1 (some answers miss their tools)\n%s", dir, l.code, l.stderr)
				}
				checkTotal(b, out, transcriptN)
				walls = append(walls, l.wall)
				cpus = append(cpus, l.cpu)
			}
			best := slices.Min(walls)
			b.ReportMetric(median(walls).Seconds(), "s/run")
			b.ReportMetric(best.Seconds(), "best-s")
			b.ReportMetric(median(cpus).Seconds(), "cpu-s/run")
			b.ReportMetric(promptfooSeconds/best.Seconds(), "x-promptfoo")
			b.Logf("wall %v, cpu %v", walls, cpus)
			if limit := time.Duration(promptfooSeconds / transcriptSpeedup * float64(time.Second)); best > limit {
				b.Fatalf("%d transcripts took %v at best, over %v: not %d times faster than promptfoo's %.1f s",
					transcriptN, best.Round(time.Millisecond), limit.Round(time.Millisecond), transcriptSpeedup, promptfooSeconds)
			}
		})
	}
}

// BenchmarkTranscriptsInProcess is the run of BenchmarkTranscripts in this
// process (load the suite, replay, encode the JSON report to io.Discard),
// for profiling:
//
//	go test -run '^$' -bench TranscriptsInProcess -benchtime 10x -cpuprofile cpu.out ./engine
func BenchmarkTranscriptsInProcess(b *testing.B) {
	for _, format := range []string{gen.OpenAI, gen.V1} {
		b.Run("format="+format, func(b *testing.B) {
			dir := transcriptDir(b, transcriptN, format)
			b.Chdir(dir)
			b.ReportAllocs()
			for b.Loop() {
				env, err := runSuite(gen.TranscriptSuiteFile, io.Discard)
				if err != nil {
					b.Fatal(err)
				}
				if env.Totals.Total != transcriptN {
					b.Fatalf("%d cases, want %d", env.Totals.Total, transcriptN)
				}
			}
		})
	}
}

// BenchmarkLoadTranscriptSuite loads the suite of BenchmarkTranscripts
// (2,000 tests, 745 KB): yaml.v3's parse of the whole text into nodes,
// which loading the suite did before its tests were read item by item,
// is the baseline.
//
//	go test -run '^$' -bench LoadTranscriptSuite -benchtime 30x ./engine
func BenchmarkLoadTranscriptSuite(b *testing.B) {
	dir := transcriptDir(b, transcriptN, gen.OpenAI)
	b.Chdir(dir)
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := engine.LoadSuite(gen.TranscriptSuiteFile)
			if err != nil {
				b.Fatal(err)
			}
			if len(s.Cases) != transcriptN {
				b.Fatalf("%d cases, want %d", len(s.Cases), transcriptN)
			}
		}
	})
	b.Run("yaml.v3-nodes", func(b *testing.B) {
		data, err := os.ReadFile(gen.TranscriptSuiteFile)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			var n yaml.Node
			if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&n); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCacheWarm runs the real binary with the workspace cache on, in
// two shapes of 2,000 cases: one test per generated cassette
// (suite-cases.yml) and one test per transcript. Each iteration is a cold
// run (an empty store) and a warm run (a store the first iteration
// filled), alternating which goes first; it reports the medians of their
// CPU times (user + system, the figure least disturbed by other work on
// the machine) as cold-cpu-s and warm-cpu-s, their ratio as warm/cold, the
// cases the warm run served as cached, and the target as target-warm/cold:
// 0.5 where the cache serves cases. Under engine.CacheMinBytes no case is
// served (4 KB transcripts), so the warm run is a cold run and the target
// is 1.1. It fails over the target.
//
//	go test -run '^$' -bench CacheWarm -benchtime 5x ./engine
func BenchmarkCacheWarm(b *testing.B) {
	tools := buildTools(b)
	for _, sh := range []struct {
		name, dir, suite string
	}{
		{"shape=case-per-cassette", corpus(b, 2000), gen.CaseSuiteFile},
		{"shape=transcripts", transcriptDir(b, transcriptN, gen.OpenAI), gen.TranscriptSuiteFile},
	} {
		b.Run(sh.name, func(b *testing.B) {
			warm := b.TempDir()
			out := filepath.Join(b.TempDir(), "report.json")
			run := func(store string) launched {
				l := tools.launchEnv(b, sh.dir, []string{"CI=", "GITHUB_ACTIONS=", "MCPTEST_DIR=" + store},
					tools.mcptest, "run", "--config", sh.suite, "--reporter", "json", "--output", out)
				if l.code != 0 && l.code != 1 {
					b.Fatalf("mcptest run in %s: exit code %d\n%s", sh.dir, l.code, l.stderr)
				}
				return l
			}
			run(warm)
			var colds, warms []time.Duration
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 {
					colds = append(colds, run(b.TempDir()).cpu)
					warms = append(warms, run(warm).cpu)
				} else {
					warms = append(warms, run(warm).cpu)
					colds = append(colds, run(b.TempDir()).cpu)
				}
			}
			cached := runCachedOf(b, out)
			c, w := median(colds), median(warms)
			ratio := float64(w) / float64(c)
			target := 0.5
			if cached == 0 {
				target = 1.1
			}
			b.ReportMetric(c.Seconds(), "cold-cpu-s")
			b.ReportMetric(w.Seconds(), "warm-cpu-s")
			b.ReportMetric(ratio, "warm/cold")
			b.ReportMetric(float64(cached), "cached")
			b.ReportMetric(target, "target-warm/cold")
			if ratio > target {
				b.Errorf("a warm run took %.2f of a cold run's CPU (%v against %v, %d cases served), over the target %.1f", ratio, w, c, cached, target)
			}
		})
	}
}

// runCachedOf reads run.cached of the envelope at path.
func runCachedOf(tb testing.TB, path string) int {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var env struct {
		Run struct {
			Cached int `json:"cached"`
		} `json:"run"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		tb.Fatalf("read report: %v", err)
	}
	return env.Run.Cached
}

// BenchmarkValidateTranscripts is `mcptest validate` of the suite of
// BenchmarkTranscripts in this process: the suite loaded without digests
// and every transcript read for the per-recording report (the .ci/bench
// validate shape), for -cpuprofile and -memprofile:
//
//	go test -run '^$' -bench ValidateTranscripts -benchtime 20x ./engine
func BenchmarkValidateTranscripts(b *testing.B) {
	dir := transcriptDir(b, transcriptN, gen.OpenAI)
	b.Chdir(dir)
	b.ReportAllocs()
	for b.Loop() {
		v, err := engine.ValidateRead([]string{gen.TranscriptSuiteFile})
		if err != nil {
			b.Fatal(err)
		}
		if len(v.Errors) != 0 || len(v.Read[gen.TranscriptSuiteFile]) != transcriptN {
			b.Fatalf("%d errors, %d recordings, want none and %d", len(v.Errors), len(v.Read[gen.TranscriptSuiteFile]), transcriptN)
		}
	}
}

// BenchmarkLoadBrokenSuite loads a suite generated with one mistake in
// each of 20,000 tests (no name beside a runs: the builder reads): 20,000
// errors, each field the builder reads asked about all of them before
// broken searched them sorted (12 s a load, 48 s at 40,000).
func BenchmarkLoadBrokenSuite(b *testing.B) {
	dir := b.TempDir()
	for name, text := range map[string]string{
		"suite.yml": "tests:\n" + strings.Repeat("  - {type: agent, runs: 3, cassette: c.json}\n", 20_000),
		"c.json":    `{"mcptest_cassette": 1, "runs": []}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Chdir(dir)
	b.ReportAllocs()
	for b.Loop() {
		_, err := engine.LoadSuite("suite.yml")
		var l diag.List
		if !errors.As(err, &l) || len(l) != 20_000 {
			b.Fatalf("%d errors (%v), want 20,000", len(l), err)
		}
	}
}
