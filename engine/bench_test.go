package engine_test

// The benchmarks of `mcptest run` over generated cassettes (see
// cassette/gen and docs/benchmarks.md):
//
//   - BenchmarkRun: the whole run path minus printing (load the suite,
//     replay every cassette, compute every gate, encode the JSON report).
//   - BenchmarkReadDecode: the baseline, reading every cassette file and
//     decoding it with encoding/json into `any`, nothing more.
//   - BenchmarkRunVsDecode: both, alternated in one process, reporting the
//     ratio of their medians as run/decode.
//   - BenchmarkPeakRSS: the peak resident set of the real `mcptest run`
//     process over 500, 2,000 and 8,000 cassettes read by one test.
//   - BenchmarkLiveHeap: the heap a run keeps reachable, in process, for the
//     same sizes, and its growth per cassette.
//
// TestPeakMemoryFlat checks the peak in both shapes with the cache off; it runs only with
// MCPTEST_MEMTEST=1 and without -short.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// benchN is the number of cassettes the time benchmarks read: the figure
// the requirement names.
const benchN = 2000

// rssSizes are the numbers of cassettes the peak-memory measures compare.
var rssSizes = []int{500, 2000, 8000}

// corpus returns a directory holding n cassettes generated with
// gen.DefaultSeed and the suites over them. Generating 8,000 takes several
// seconds, so the directory is kept under os.TempDir()/mcptest-bench,
// named by n, the seed and a digest of what the generator makes now (a
// changed generator gets a new directory). A directory is complete once its
// marker file exists; it is built beside and renamed into place.
func corpus(tb testing.TB, n int) string {
	tb.Helper()
	key := digest(gen.Cassette(gen.DefaultSeed, 0), gen.Cassette(gen.DefaultSeed, n-1), gen.Suite(n, 0), gen.Suite(n, gen.GroupSize), gen.CaseSuite(gen.DefaultSeed, n))
	return benchDir(tb, fmt.Sprintf("n%d-seed%d-%s", n, gen.DefaultSeed, key), func(tmp string) error {
		_, err := gen.Write(tmp, n, gen.DefaultSeed)
		return err
	})
}

// digest names generated content by the first 12 hex digits of the sha256
// of samples of it.
func digest(samples ...[]byte) string {
	h := sha256.New()
	for _, s := range samples {
		h.Write(s)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// benchDir returns os.TempDir()/mcptest-bench/name, writing it with write
// first when it is not there: a directory is complete once its marker file
// exists; it is built beside and renamed into place, and when another
// process got there first, its directory is used.
func benchDir(tb testing.TB, name string, write func(tmp string) error) string {
	tb.Helper()
	root := filepath.Join(os.TempDir(), "mcptest-bench")
	dir := filepath.Join(root, name)
	const marker = ".complete"
	if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
		return dir
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	tmp, err := os.MkdirTemp(root, "building-")
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	if err := write(tmp); err != nil {
		os.RemoveAll(tmp)
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, marker), nil, 0o644); err != nil {
		os.RemoveAll(tmp)
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(filepath.Join(dir, marker)); statErr != nil {
			tb.Fatal(err)
		}
		return dir
	}
	tb.Logf("generated %s (%v)", dir, time.Since(start).Round(time.Millisecond))
	return dir
}

func cassetteFiles(tb testing.TB, dir string) ([]string, int64) {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, gen.CassetteDir, "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no cassettes in %s: %v", dir, err)
	}
	var total int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			tb.Fatal(err)
		}
		total += fi.Size()
	}
	return files, total
}

// runSuite is `mcptest run --reporter json` minus the printing: load the
// suite, replay it, and encode the report.
func runSuite(suite string, w io.Writer) (*report.Envelope, error) {
	s, err := engine.LoadSuite(suite)
	if err != nil {
		return nil, err
	}
	env, err := engine.Run(s, engine.Options{Version: "bench"})
	if err != nil {
		return nil, err
	}
	rep, err := annotate.New("json", annotate.Options{})
	if err != nil {
		return nil, err
	}
	return env, rep.Report(w, env)
}

// readDecode is the baseline: read every file and decode it into `any`,
// listing the directory first as the runner must.
func readDecode(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, gen.CassetteDir, "*.json"))
	if err != nil {
		return err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// checkPasses runs the suite once and fails unless every case passed, so a
// benchmark never times an error path.
func checkPasses(tb testing.TB, suite string) {
	tb.Helper()
	env, err := runSuite(suite, io.Discard)
	if err != nil {
		tb.Fatal(err)
	}
	if env.Verdict != report.Pass {
		tb.Fatalf("%s: verdict %s, want pass", suite, env.Verdict)
	}
}

func BenchmarkRun(b *testing.B) {
	for _, layout := range []struct{ name, suite string }{
		{"", gen.SuiteFile},
		{"/layout=grouped", gen.GroupedSuiteFile},
	} {
		b.Run(fmt.Sprintf("cassettes=%d%s", benchN, layout.name), func(b *testing.B) {
			dir := corpus(b, benchN)
			_, size := cassetteFiles(b, dir)
			suite := filepath.Join(dir, layout.suite)
			checkPasses(b, suite)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := runSuite(suite, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReadDecode(b *testing.B) {
	b.Run(fmt.Sprintf("cassettes=%d", benchN), func(b *testing.B) {
		dir := corpus(b, benchN)
		_, size := cassetteFiles(b, dir)
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if err := readDecode(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRunVsDecode times one read+decode pass and one run pass per
// iteration, alternating which goes first, each from a collected heap, and
// reports the ratio of the median run to the median read+decode. An
// iteration is both passes; use -benchtime 5x or more for a stable median.
func BenchmarkRunVsDecode(b *testing.B) {
	b.Run(fmt.Sprintf("cassettes=%d", benchN), func(b *testing.B) {
		dir := corpus(b, benchN)
		suite := filepath.Join(dir, gen.SuiteFile)
		checkPasses(b, suite)
		var runs, decodes []time.Duration
		timed := func(f func() error) time.Duration {
			runtime.GC()
			start := time.Now()
			if err := f(); err != nil {
				b.Fatal(err)
			}
			return time.Since(start)
		}
		run := func() error { _, err := runSuite(suite, io.Discard); return err }
		decode := func() error { return readDecode(dir) }
		for i := 0; b.Loop(); i++ {
			if i%2 == 0 {
				decodes = append(decodes, timed(decode))
				runs = append(runs, timed(run))
			} else {
				runs = append(runs, timed(run))
				decodes = append(decodes, timed(decode))
			}
		}
		r, d := median(runs), median(decodes)
		b.ReportMetric(float64(r)/float64(d), "run/decode")
		b.ReportMetric(float64(r.Microseconds())/1000, "run-ms")
		b.ReportMetric(float64(d.Microseconds())/1000, "decode-ms")
	})
}

// median returns the median of xs: durations or KiB.
func median[T ~int64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkPeakRSS runs the real binary, `mcptest run --config suite.yml
// --reporter json --output FILE --no-cache`, over 500, 2,000 and 8,000
// cassettes read by one test, and reports the peak resident set of each as
// maxrss-KiB/N (the median over the iterations: a single peak depends on
// when the garbage collector ran), their ratio as rss-8000/500, the floor
// the measure cannot go below (see launcherSource) as floor-KiB, and the
// target for the 8,000, 1.5 × the 500 + 16 MiB, as limit-KiB; it fails
// over the target.
func BenchmarkPeakRSS(b *testing.B) {
	tools := buildTools(b)
	dirs := make([]string, len(rssSizes))
	for i, n := range rssSizes {
		dirs[i] = corpus(b, n)
	}
	peaks := make([][]int64, len(rssSizes))
	for b.Loop() {
		for i, dir := range dirs {
			peaks[i] = append(peaks[i], tools.peakRSS(b, dir))
		}
	}
	med := make([]int64, len(rssSizes))
	for i, n := range rssSizes {
		med[i] = median(peaks[i])
		b.ReportMetric(float64(med[i]), fmt.Sprintf("maxrss-KiB/%d", n))
		b.Logf("peak RSS over %d cassettes, KiB: %v", n, peaks[i])
	}
	b.ReportMetric(float64(med[len(med)-1])/float64(med[0]), fmt.Sprintf("rss-%d/%d", rssSizes[len(rssSizes)-1], rssSizes[0]))
	b.ReportMetric(float64(tools.floor(b)), "floor-KiB")
	limit := rssLimit(med[0])
	b.ReportMetric(float64(limit), "limit-KiB")
	if z := med[len(med)-1]; z > limit {
		b.Errorf("peak RSS grows with the number of cassettes: %d KiB over %d, above the limit of 1.5 × %d KiB + 16 MiB = %d KiB", z, rssSizes[len(rssSizes)-1], med[0], limit)
	}
}

// BenchmarkLiveHeap measures, in this process, what a run keeps reachable:
// every 100 cassettes it collects garbage and reads the live heap, and it
// reports the mean as live-KiB/N for 500, 2,000 and 8,000 cassettes, and
// the growth per cassette between the first and last as live-B/cassette.
// Unlike the peak resident set it has no noise from when the collector
// runs, so it shows any state that grows with the number of cassettes.
// It runs the suite as the CLI does, from the suite's directory.
func BenchmarkLiveHeap(b *testing.B) {
	live := make([]float64, len(rssSizes))
	for b.Loop() {
		for i, n := range rssSizes {
			dir := corpus(b, n)
			b.Chdir(dir)
			s, err := engine.LoadSuite(gen.SuiteFile)
			if err != nil {
				b.Fatal(err)
			}
			var sum, count uint64
			var ms runtime.MemStats
			sampled := 0
			_, err = engine.Run(s, engine.Options{Progress: func(p engine.Progress) {
				if p.Files%100 == 50 && p.Files != sampled {
					sampled = p.Files
					runtime.GC()
					runtime.ReadMemStats(&ms)
					sum += ms.HeapAlloc
					count++
				}
			}})
			if err != nil {
				b.Fatal(err)
			}
			live[i] = float64(sum) / float64(count)
		}
	}
	for i, n := range rssSizes {
		b.ReportMetric(live[i]/1024, fmt.Sprintf("live-KiB/%d", n))
	}
	last := len(rssSizes) - 1
	b.ReportMetric((live[last]-live[0])/float64(rssSizes[last]-rssSizes[0]), "live-B/cassette")
}

// TestPeakMemoryFlat checks that the peak resident set of `mcptest run`
// does not grow with the number of cassettes, in both shapes a suite
// reads many cassettes in: one test over the whole directory (suite.yml)
// and one test per cassette (suite-cases.yml). Over the large corpus a
// run may exceed its peak over 500 cassettes by half plus 16 MiB at most
// (each the median of three runs). Every run has the cache off
// (--no-cache, and a store of its own): a run served from .mcptest/cache
// reads no cassette and would hide any growth. It builds the binary and
// reads 8,500 generated cassettes, so it runs only when asked:
//
//	MCPTEST_MEMTEST=1 go test -run TestPeakMemoryFlat -v -timeout 60m ./engine
//
// MCPTEST_MEMTEST_N sets the large corpus (default 8000; the issue's
// range is 500 to 32000, generated once into $TMPDIR/mcptest-bench, 900 MB).
func TestPeakMemoryFlat(t *testing.T) {
	if testing.Short() || os.Getenv("MCPTEST_MEMTEST") != "1" {
		t.Skip("set MCPTEST_MEMTEST=1 (and drop -short) to measure the peak memory of mcptest run")
	}
	tools := buildTools(t)
	small, large := rssSizes[0], memtestLarge(t)
	for _, shape := range rssShapes {
		t.Run(shape.name, func(t *testing.T) {
			peak := func(n int) int64 {
				dir := corpus(t, n)
				var ps []int64
				for range 3 {
					ps = append(ps, shape.peak(tools, t, dir, n))
				}
				t.Logf("peak RSS over %d cassettes, KiB: %v", n, ps)
				return median(ps)
			}
			a, z := peak(small), peak(large)
			limit := rssLimit(a)
			t.Logf("peak RSS: %d KiB over %d cassettes, %d KiB over %d (limit %d KiB; measuring floor %d KiB)",
				a, small, z, large, limit, tools.floor(t))
			if z > limit {
				t.Errorf("peak RSS grows with the number of cassettes: %d KiB over %d cassettes, %d KiB over %d, above the limit of 1.5 × %d KiB + 16 MiB = %d KiB",
					a, small, z, large, a, limit)
			}
		})
	}
}

// rssLimit is the flat-memory target: the peak over the large corpus may
// exceed the peak a over 500 cassettes by half, plus 16 MiB (KiB).
func rssLimit(a int64) int64 {
	return int64(caseRSSFactor*float64(a)) + caseRSSSlack
}

// memtestLarge is the large corpus of TestPeakMemoryFlat:
// MCPTEST_MEMTEST_N, else the largest of rssSizes.
func memtestLarge(tb testing.TB) int {
	v := os.Getenv("MCPTEST_MEMTEST_N")
	if v == "" {
		return rssSizes[len(rssSizes)-1]
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= rssSizes[0] || n > gen.MaxN {
		tb.Fatalf("MCPTEST_MEMTEST_N=%q: want a number of cassettes from %d to %d", v, rssSizes[0]+1, gen.MaxN)
	}
	return n
}

// rssShapes are the two ways a suite reads a corpus whose peak memory is
// measured: one test over the directory, one test per cassette.
var rssShapes = []struct {
	name string
	peak func(t tools, tb testing.TB, dir string, n int) int64
}{
	{"shape=directory", func(t tools, tb testing.TB, dir string, _ int) int64 { return t.peakRSS(tb, dir) }},
	{"shape=case-per-cassette", func(t tools, tb testing.TB, dir string, n int) int64 { return t.casesPeak(tb, dir, n) }},
}

// tools are the binaries the memory measures run.
type tools struct {
	mcptest, launcher string
}

// launcherSource is a program that runs its arguments as a command and
// prints the command's peak resident set in KiB, its exit code, and the
// seconds it took, wall clock and CPU (user and system).
//
// It exists because the obvious measure is wrong: Go starts a child with
// clone(CLONE_VM|CLONE_VFORK), so until exec the child shares the parent's
// memory, and Linux folds that memory's high-water mark into the child's
// ru_maxrss at exec. A child started straight from this test would report
// at least the test process's own peak (hundreds of MiB after generating
// cassettes). Started from the small launcher, it reports at most the
// launcher's few MiB of floor plus its own.
const launcherSource = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(125)
	}
	fmt.Println(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, cmd.ProcessState.ExitCode(),
		time.Since(start).Seconds(), (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds())
}
`

// buildTools builds mcptest and the launcher into a temporary directory
// with the go command on PATH.
func buildTools(tb testing.TB) tools {
	tb.Helper()
	if runtime.GOOS != "linux" {
		tb.Skip("peak RSS is measured with Linux's ru_maxrss (KiB)")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("no go command on PATH to build mcptest")
	}
	dir := tb.TempDir()
	t := tools{mcptest: filepath.Join(dir, "mcptest"), launcher: filepath.Join(dir, "launcher")}
	build := exec.Command(goCmd, "build", "-o", t.mcptest, "github.com/mcptest/mcptest/cmd/mcptest")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("go build mcptest: %v\n%s", err, out)
	}
	src := filepath.Join(dir, "launcher-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		tb.Fatal(err)
	}
	for name, text := range map[string]string{"go.mod": "module launcher\n\ngo 1.22\n", "main.go": launcherSource} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	build = exec.Command(goCmd, "build", "-o", t.launcher, ".")
	build.Dir = src
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("go build launcher: %v\n%s", err, out)
	}
	return t
}

// peakRSS runs `mcptest run --config suite.yml --reporter json --output
// FILE --no-cache` in a corpus directory through the launcher, with a
// store of its own, and returns its peak resident set in KiB. The run must
// pass and report on every cassette. GOGC and GOMEMLIMIT are dropped from
// its environment, so it runs as users run it.
func (t tools) peakRSS(tb testing.TB, dir string) int64 {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), "report.json")
	l := t.launchEnv(tb, dir, []string{"MCPTEST_DIR=" + tb.TempDir()},
		t.mcptest, "run", "--config", gen.SuiteFile, "--reporter", "json", "--output", out, "--no-cache")
	kib, code, stderr := l.kib, l.code, l.stderr
	if code != 0 {
		tb.Fatalf("mcptest run in %s: exit code %d\n%s", dir, code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	var env struct {
		Verdict string `json:"verdict"`
		Cases   []struct {
			Cassettes struct {
				Files int `json:"files"`
			} `json:"cassettes"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		tb.Fatalf("read report: %v", err)
	}
	files, _ := cassetteFiles(tb, dir)
	if env.Verdict != "pass" || len(env.Cases) != 1 || env.Cases[0].Cassettes.Files != len(files) {
		tb.Fatalf("mcptest run in %s: verdict %q over %d cases, want one passing case over %d cassettes", dir, env.Verdict, len(env.Cases), len(files))
	}
	return kib
}

// floor is the peak resident set the launcher reports for a program that
// allocates nothing: the launcher's own, below which no measure can go.
func (t tools) floor(tb testing.TB) int64 {
	tb.Helper()
	kib, _, _ := t.launch(tb, "", "/bin/true")
	return kib
}

func (t tools) launch(tb testing.TB, dir string, args ...string) (kib int64, code int, stderr string) {
	tb.Helper()
	l := t.launchEnv(tb, dir, nil, args...)
	return l.kib, l.code, l.stderr
}

// launched is what the launcher reports of one command.
type launched struct {
	kib       int64
	code      int
	wall, cpu time.Duration
	stderr    string
}

// launchEnv runs args through the launcher in dir, with env added to the
// environment (GOGC and GOMEMLIMIT removed).
func (t tools) launchEnv(tb testing.TB, dir string, env []string, args ...string) launched {
	tb.Helper()
	cmd := exec.Command(t.launcher, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("launch %v: %v\n%s", args, err, errb.String())
	}
	f := strings.Fields(string(out))
	if len(f) != 4 {
		tb.Fatalf("launch %v: unexpected output %q", args, out)
	}
	kib, err1 := strconv.ParseInt(f[0], 10, 64)
	code, err2 := strconv.Atoi(f[1])
	wall, err3 := strconv.ParseFloat(f[2], 64)
	cpu, err4 := strconv.ParseFloat(f[3], 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		tb.Fatalf("launch %v: unexpected output %q", args, out)
	}
	return launched{kib: kib, code: code, wall: time.Duration(wall * float64(time.Second)),
		cpu: time.Duration(cpu * float64(time.Second)), stderr: errb.String()}
}

// manyCallsDir returns a directory holding gen.ManyCalls(1,000 runs, 1,000
// calls), a 53 MB cassette of 1,000,000 calls, as cassette.json, and a
// suite with one test over it, suite.yml; it is kept under
// os.TempDir()/mcptest-bench like the corpus.
func manyCallsDir(tb testing.TB) (dir string, size int64) {
	tb.Helper()
	dir = filepath.Join(os.TempDir(), "mcptest-bench", "many-calls-1000x1000")
	file := filepath.Join(dir, "cassette.json")
	if fi, err := os.Stat(filepath.Join(dir, "suite.yml")); err == nil && fi.Size() > 0 {
		if fi, err := os.Stat(file); err == nil {
			return dir, fi.Size()
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	var buf strings.Builder
	if err := gen.ManyCalls(&buf, 1000, 1000); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(buf.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	suite := "agents:\n  - name: a million calls\n    cassette: cassette.json\n    expect:\n      - target: final_response\n        matcher: { contains: done }\n"
	if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite), 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir, int64(buf.Len())
}

// BenchmarkPeakRSSManyCalls runs the real binary, `mcptest run --config
// suite.yml --reporter json --no-cache`, over one 53 MB cassette of 1,000,000 calls
// (gen.ManyCalls) and reports its peak resident set (maxrss-KiB, the
// median over the iterations) and that peak per byte of the cassette
// (rss/file), which the reader keeps within 4.
//
//	go test ./engine -run '^$' -bench PeakRSSManyCalls -benchtime 3x
func BenchmarkPeakRSSManyCalls(b *testing.B) {
	tools := buildTools(b)
	dir, size := manyCallsDir(b)
	out := filepath.Join(b.TempDir(), "report.json")
	var peaks []int64
	for b.Loop() {
		kib, code, stderr := tools.launch(b, dir, tools.mcptest, "run", "--config", "suite.yml", "--reporter", "json", "--output", out, "--no-cache")
		if code != 0 {
			b.Fatalf("mcptest run: exit code %d\n%s", code, stderr)
		}
		peaks = append(peaks, kib)
	}
	med := median(peaks)
	b.ReportMetric(float64(med), "maxrss-KiB")
	b.ReportMetric(float64(med<<10)/float64(size), "rss/file")
}
