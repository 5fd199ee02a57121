package envstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/internal/rsstest"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/envgen"
	segjson "github.com/segmentio/encoding/json"
)

// millionShards is how many shard envelopes the million-case test merges.
const millionShards = 64

// maxStreamRSS is the peak resident set `report merge` and `report
// --compare` must stay under whatever the number of cases.
const maxStreamRSS = 64 << 20

// mergeTimes and compareTimes bound the wall and CPU time of `report
// merge` and `report --compare` as multiples of one shard's run: issue
// 40's target, less than one shard's run, for both. Each command is held
// to the mean of the shard's runs measured just before and just after it
// (an interleaved A/B). Held instead to the least of the shard's runs
// measured at any time, the merge failed under the project's CI (a run of
// 3.8 s measured while the machine was quiet, the merges at 4.5 to 6.3 s
// while another package's tests held a core: 1.21) though its CPU was
// 0.63 of the run's. Measured so (docs/benchmarks.md, "The million-case
// test's commands held to the shard's runs either side (issue 40,
// 2026-11-30)"): at load 1.6, merge 0.41 and 0.42 (wall and CPU), json
// 0.72 and 0.70, markdown 0.56 and 0.51; beside cmd/mcptest's or
// engine's tests (load 4.5 to 6.6), merge 0.39 to 0.44, json 0.60 to 0.78,
// markdown 0.47 to 0.54.
//
// compareTimesShort is the comparison's bound in the short form (20,000
// cases, a shard's run of 312 cases): there the comparison's fixed costs
// (the process, both heads, the index's start) weigh against a run that
// short, and markdown measured 1.16 times the shard's CPU, json 1.31
// (load 10, held to the least of the shard's runs).
const (
	mergeTimes        = 1
	compareTimes      = 1
	compareTimesShort = 2
)

// The million-case suite is generated, not run (report/envgen): case k
// of [0, n) is one line of compact JSON as the JSON reporter writes it,
// and the pull request's run differs from the baseline as a real one does
// (envgen.PRCase, envgen.BaseCase). The other tests of the package draw
// their cases from it by these names.
type caseSide = envgen.Side

var (
	prCase        = envgen.PRCase
	baseCase      = envgen.BaseCase
	writeCaseJSON = envgen.WriteCase
)

// launchMeasured runs the binary in dir and returns its usage (exit
// status, wall and CPU time, peak RSS), measured from the tests' launcher
// (rsstest.Run), so the envelopes a test generated are not counted in the
// binary's peak, and what it printed on stderr.
func launchMeasured(t *testing.T, dir, bin string, args ...string) (rsstest.Usage, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	u, err := rsstest.Run(t, cmd)
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, stderr.String())
	}
	return u, stderr.String()
}

// runMeasured is launchMeasured for a command that must not fail (exit 0,
// or 1 for failing cases); it logs the usage.
func runMeasured(t *testing.T, dir, bin string, args ...string) (rsstest.Usage, string) {
	t.Helper()
	u, stderr := launchMeasured(t, dir, bin, args...)
	if u.Code != 0 && u.Code != 1 {
		t.Fatalf("%v: exit %d\n%s", args, u.Code, stderr)
	}
	t.Logf("%s %s: %v wall, %v CPU, %.1f MiB", filepath.Base(bin), args[0]+" "+args[1], u.Wall, u.CPU, float64(u.Peak)/(1<<20))
	return u, stderr
}

// millionCases is the number of cases TestMillionCaseMergeAndCompare
// generates: 1,000,000 under .ci/run (MCPTEST_LONG=1) or with
// MCPTEST_MILLION=1, 20,000 in go test's short form.
func millionCases() int {
	if os.Getenv("MCPTEST_MILLION") == "1" || os.Getenv("MCPTEST_LONG") == "1" {
		return 1_000_000
	}
	return 20000
}

// TestMillionCaseMergeAndCompare builds a suite of generated cases as 64
// shard envelopes and a baseline (written as JSON, not run: 1,000,000
// cases under .ci/run, 20,000 otherwise; the pull request's run differs
// from the baseline as caseSide says), merges them with the built binary
// and compares the merged envelope with the baseline: each command stays
// under 64 MiB of peak resident set and takes less wall time and less CPU
// time than a multiple of the run of one shard's worth of generated
// cassettes (mergeTimes, compareTimes), each measured on its process here:
// the shard's run is measured before the first command and after each, a
// command's times are divided by the mean of the runs either side, and a
// command over its bound is measured again, with the run after it, up to
// twice (the machine may be shared: under the project's CI the tests of
// other packages take a core at times); the merged envelope holds every
// case of the run, in suite order, and the comparison counts every case
// as it should; the markdown of the comparison and the Action's job
// summary and PR comment built from it stay within their limits.
func TestMillionCaseMergeAndCompare(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read from rusage on Linux")
	}
	n := millionCases()
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcptest")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/mcptest")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	// One shard's run: its share of the suite as generated cassettes.
	shardDir := filepath.Join(dir, "shard-run")
	if _, err := gen.Write(shardDir, n/millionShards, gen.DefaultSeed); err != nil {
		t.Fatal(err)
	}
	runShard := func() rsstest.Usage {
		u, _ := runMeasured(t, shardDir, bin, "run", "--config", gen.CaseSuiteFile, "--format", "json", "--output", filepath.Join(dir, "shard-run.json"), "--no-cache")
		return u
	}
	// The shard's run is measured before the first command and after
	// each: a command is held to the mean of the runs either side of it
	// (an interleaved A/B), so a load that comes and goes on a shared
	// machine (the tests of other packages) weighs on both sides of the
	// ratio.
	before := runShard()
	within := func(what string, times float64, measure func() rsstest.Usage) {
		t.Helper()
		var ok bool
		var tries []string
		var least rsstest.Usage
		for try := 0; try < 3 && !ok; try++ {
			u := measure()
			after := runShard()
			s := rsstest.Usage{Wall: (before.Wall + after.Wall) / 2, CPU: (before.CPU + after.CPU) / 2}
			before = after
			wall, cpu := float64(u.Wall)/float64(s.Wall), float64(u.CPU)/float64(s.CPU)
			if try == 0 || u.Peak < least.Peak {
				least = u
			}
			ok = wall < times && cpu < times && u.Peak <= maxStreamRSS
			tries = append(tries, fmt.Sprintf("%v wall, %v CPU (%.2f and %.2f times the shard's run either side: %v wall, %v CPU), %.1f MiB peak RSS",
				u.Wall, u.CPU, wall, cpu, s.Wall, s.CPU, float64(u.Peak)/(1<<20)))
		}
		t.Logf("%s of %d cases, against one shard's run of %d cases:\n%s", what, n, n/millionShards, strings.Join(tries, "\n"))
		if least.Peak > maxStreamRSS {
			t.Errorf("%s: peak RSS %.1f MiB, over %d MiB", what, float64(least.Peak)/(1<<20), maxStreamRSS>>20)
		}
		if !ok {
			t.Errorf("%s: not under %g times one shard's run in wall and CPU time in any of %d tries", what, times, len(tries))
		}
	}

	args, err := envgen.WriteSuite(dir, n, millionShards)
	if err != nil {
		t.Fatal(err)
	}
	var stderr string
	within("report merge", mergeTimes, func() rsstest.Usage {
		u, e := runMeasured(t, dir, bin, append([]string{"report", "merge", "--output", "merged.json"}, args...)...)
		stderr = e
		return u
	})
	want := expectFor(n)
	if !strings.Contains(stderr, fmt.Sprintf("%d passed, %d failed", want.run-want.failing, want.failing)) {
		t.Errorf("report merge: %s", stderr)
	}
	checkMerged(t, filepath.Join(dir, "merged.json"), n, want.run)

	for _, format := range []string{"json", "markdown"} {
		out := map[string]string{"json": "comparison.json", "markdown": "comparison.md"}[format]
		times := float64(compareTimes)
		if n < 1000000 {
			times = compareTimesShort
		}
		within("report --compare --format "+format, times, func() rsstest.Usage {
			u, _ := runMeasured(t, dir, bin, "report", "merged.json", "--compare", "baseline.json", "--format", format, "--fail-on", "none", "--output", out)
			return u
		})
	}
	checkComparison(t, dir, want)
}

// expected is what the comparison of the generated suite's runs counts.
type expected struct {
	run, failing, unvouched               int
	same, added, gone, regressions, fixes int
	unchanged                             int
}

func expectFor(n int) expected {
	var e expected
	for k := range n {
		pr, base := envgen.PRCase(k), envgen.BaseCase(k)
		if pr.In {
			e.run++
			if pr.Fail {
				e.failing++
			}
		}
		switch {
		case pr.In && !base.In:
			e.added++
			if pr.Fail {
				e.unvouched++
			}
		case !pr.In && base.In:
			e.gone++
		case pr.In:
			e.same++
			switch {
			case pr.Fail && !base.Fail:
				e.regressions++
			case base.Fail && !pr.Fail:
				e.fixes++
			case pr.F1 == base.F1 && pr.Fail == base.Fail:
				e.unchanged++
			}
		}
	}
	return e
}

// checkMerged reads the merged envelope as a stream: every case of the
// pull request's run once, in suite order, the totals counted.
func checkMerged(t *testing.T, path string, n, run int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr, err := report.NewCaseReader(f, path)
	if err != nil {
		t.Fatal(err)
	}
	k, read := 0, 0
	for {
		raw, err := cr.NextRaw()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var lc leanCase
		name := ""
		if passThrough(raw, &lc) {
			name = string(lc.name)
		} else {
			c, err := cr.Decode(read, raw)
			if err != nil {
				t.Fatal(err)
			}
			name = c.Name
		}
		for k < n && !envgen.PRCase(k).In {
			k++
		}
		if want := envgen.Name(k); name != want {
			t.Fatalf("merged case %d is %q, want %q", read, name, want)
		}
		k++
		read++
	}
	env, err := cr.Envelope()
	if err != nil {
		t.Fatal(err)
	}
	if read != run || env.Totals.Total != run || env.Run.Shard != "" || env.Summary == nil || env.Summary.Cases != int64(run) {
		t.Fatalf("merged: %d cases read, totals %+v, shard %q, summary %+v; want %d", read, env.Totals, env.Run.Shard, env.Summary, run)
	}
}

// checkComparison: the comparison counts every case as the generated runs
// say, the summary it writes is the one its cases add up to, and its
// markdown, the Action's job summary and its PR comment built from it stay
// within their limits.
func checkComparison(t *testing.T, dir string, want expected) {
	t.Helper()
	cmp, sum := readComparison(t, filepath.Join(dir, "comparison.json"))
	w := baseline.Summary{Cases: want.same + want.added + want.gone, Same: want.same, New: want.added, Removed: want.gone,
		Regressions: want.regressions, Fixes: want.fixes, Unchanged: want.unchanged, Failing: want.failing, Unvouched: want.unvouched}
	got := cmp.Summary
	got.Flips = 0 // the flips of a regression or a fix are the comparison's to count: checked against its cases below
	if got != w {
		t.Errorf("comparison summary %+v, want %+v", cmp.Summary, w)
	}
	if sum != cmp.Summary {
		t.Errorf("comparison summary %+v, its cases add up to %+v", cmp.Summary, sum)
	}
	md, err := os.ReadFile(filepath.Join(dir, "comparison.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("comparison markdown: %d bytes", len(md))
	rep := annotate.ActionReport{Env: &report.Envelope{SchemaVersion: 1, Totals: report.Totals{Total: want.run}}, Cmp: cmp, Gate: cmp.Gate, CommentKey: "suite"}
	s := annotate.Summary(rep, "https://github.com", "o/r", 1<<20)
	c := annotate.Comment(rep, "https://github.com", "o/r")
	t.Logf("%d changed cases: job summary %d bytes, PR comment %d characters", len(cmp.Cases), len(s), len([]rune(c)))
	if len(s) > 1<<20 {
		t.Errorf("job summary: %d bytes, over 1 MiB", len(s))
	}
	if len([]rune(c)) > 65536 {
		t.Errorf("PR comment: %d characters, over 65,536", len([]rune(c)))
	}
	if !strings.Contains(c, "generated case 0000000") {
		t.Errorf("the PR comment does not name the first regression:\n%.2000s", c)
	}
}

// readComparison reads a comparison's JSON, as the JSON reporter writes
// it, as a stream of lines: its head and tail, the changed cases (as the
// Action's summary and comment list them), and the summary its cases add
// up to. Each case's line is decoded on a worker of their own.
func readComparison(t *testing.T, path string) (*baseline.Comparison, baseline.Summary) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	work, done := make(chan []comparisonCase, 16), make(chan []comparisonCase, 16)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				for j := range b {
					b[j].err = segjson.Unmarshal(b[j].text, &b[j].d)
					b[j].text = nil
				}
				done <- b
			}
		}()
	}
	var sum baseline.Summary
	var changed []comparisonCase
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for b := range done {
			for _, d := range b {
				if d.err != nil {
					t.Errorf("case %d: %v", d.i, d.err)
					continue
				}
				sum.Add(d.d)
				if d.d.Changed() {
					changed = append(changed, d)
				}
			}
		}
	}()
	doc := splitComparison(t, f, work)
	close(work)
	wg.Wait()
	close(done)
	<-collected
	var cmp baseline.Comparison
	if err := json.Unmarshal(doc, &cmp); err != nil {
		t.Fatalf("comparison head: %v\n%.2000s", err, doc)
	}
	slices.SortFunc(changed, func(a, b comparisonCase) int { return a.i - b.i })
	for _, d := range changed {
		cmp.Cases = append(cmp.Cases, d.d)
	}
	return &cmp, sum
}

// comparisonCase is one case of a comparison read back: its place, its
// line of JSON, and the delta decoded from it.
type comparisonCase struct {
	i    int
	text []byte
	d    baseline.CaseDelta
	err  error
}

// splitComparison reads a comparison's JSON by lines, as the reporter
// writes it (each case one line of compact JSON): it hands each case's
// line to work, 256 at a time, and returns the rest of the document, the
// comparison without its cases.
func splitComparison(t *testing.T, r io.Reader, work chan<- []comparisonCase) []byte {
	t.Helper()
	var head bytes.Buffer
	var batch []comparisonCase
	in, after, cases := false, false, 0
	sc := bufio.NewScanner(bufio.NewReaderSize(r, 1<<20))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case !in && !after && string(line) == `  "cases": [`:
			in = true
		case !in && string(line) == `  "cases": [],`:
			after = true
		case in && (string(line) == "  ]," || string(line) == "  ]"):
			in, after = false, true
		case in:
			// Each case is one line of compact JSON.
			if !bytes.HasPrefix(line, []byte("    {")) {
				t.Fatalf("comparison case %d: not one line of its own: %.200s", cases, line)
			}
			batch = append(batch, comparisonCase{i: cases, text: bytes.Clone(bytes.TrimSuffix(line, []byte(",")))})
			cases++
			if len(batch) == 256 {
				work <- batch
				batch = nil
			}
		default:
			head.Write(line)
			head.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	work <- batch
	doc := bytes.TrimSpace(head.Bytes())
	if i := bytes.LastIndex(doc, []byte("},\n}")); i >= 0 && i == len(doc)-4 {
		doc = append(doc[:i+1:i+1], "\n}"...) // cases was the last member
	}
	return doc
}
