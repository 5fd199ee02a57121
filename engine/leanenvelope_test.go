package engine_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
	"github.com/mcptest/mcptest/report"
)

// The per-case byte bound of the envelope (docs/reports.md): a passing
// case of an agent test is at most leanFixed bytes, plus leanPerFinding
// for each of its findings and leanPerTool for each tool it called; on the
// generator corpus the mean passing case is at most leanMean. A failing
// case is held to the same bound plus leanPerFailedRun for each run that
// failed (its verdict row names the checks it failed) once its evidence is
// left out, and its evidence to 32 KiB of compact JSON.
const (
	leanMean         = 2048
	leanFixed        = 1536
	leanPerFinding   = 192
	leanPerTool      = 96
	leanPerFailedRun = 160
	leanEvidence     = 32 << 10
)

// leanBound is the most bytes a case of an agent test may take in the
// envelope, its evidence aside.
func leanBound(c *report.CaseResult) int {
	failed := 0
	if c.Reliability != nil {
		for _, r := range c.Reliability.Rows {
			if !r.Passed {
				failed++
			}
		}
	}
	return leanFixed + leanPerFinding*len(c.Findings) + leanPerTool*len(c.Tools) + leanPerFailedRun*failed
}

// envelopeCases returns each case of an envelope the JSON reporter wrote:
// its line (the case's bytes, without the comma between two) and the case
// decoded from it.
func envelopeCases(t *testing.T, data []byte) ([][]byte, []*report.CaseResult) {
	t.Helper()
	var lines [][]byte
	var cases []*report.CaseResult
	in := false
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		switch {
		case bytes.Equal(line, []byte(`  "cases": [`)):
			in = true
		case in && bytes.HasPrefix(line, []byte("    {")):
			line = bytes.TrimSuffix(bytes.TrimPrefix(line, []byte("    ")), []byte(","))
			var c report.CaseResult
			if err := json.Unmarshal(line, &c); err != nil {
				t.Fatalf("a case line is not one case: %v\n%s", err, clip(line))
			}
			lines = append(lines, line)
			cases = append(cases, &c)
		case in:
			in = false
		}
	}
	return lines, cases
}

// TestLeanEnvelopeCaseBytes runs the built binary over drawn generator
// corpora (one test per cassette, from drawn seeds and sizes) and holds
// every case of the envelope to the per-case byte bound, the mean passing
// case to 2 KiB, a failing case's evidence to 32 KiB; the offered tools
// stored once per catalog give the tool coverage the per-case lists of
// envelopes before them gave, and such an envelope still reads (report
// in every format, the comparison with the lean one finding no change,
// history); the run's shards merged are the run, byte for byte.
func TestLeanEnvelopeCaseBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary over generated corpora")
	}
	tools := buildTools(t)
	rng := rand.New(rand.NewPCG(40, 3))
	for d := range 3 {
		seed := rng.Uint64()
		lc := &leanCorpus{t: t, bin: tools.mcptest, n: 60 + rng.IntN(200), dir: t.TempDir(), suite: gen.CaseSuiteFile}
		if _, err := gen.Write(lc.dir, lc.n, seed); err != nil {
			t.Fatal(err)
		}
		lc.at = fmt.Sprintf("corpus %d (%d cassettes, seed %d)", d, lc.n, seed)
		lc.mcptest("run", "--config", gen.CaseSuiteFile, "--format", "json", "--output", "whole.json", "--no-cache")
		data := lc.read("whole.json")
		lines, cases := envelopeCases(t, data)
		if len(cases) != lc.n {
			t.Fatalf("%s: %d case lines, want %d", lc.at, len(cases), lc.n)
		}
		checkCaseBytes(t, lc.at, lines, cases)
		lc.checkFailingBytes()
		env, err := report.Read(bytes.NewReader(data), "whole.json")
		if err != nil {
			t.Fatal(err)
		}
		lc.checkOldReads(data, checkCatalogs(t, lc.at, env))
		lc.checkCached(data)
		lc.checkMerged(data, 2+d)
	}
}

// leanCorpus is one drawn corpus of TestLeanEnvelopeCaseBytes and the
// built binary run in its directory.
type leanCorpus struct {
	t                   *testing.T
	bin, dir, at, suite string
	n                   int
}

// mcptest runs the binary in the corpus's directory, its workspace store
// there and every case cacheable, and returns its stdout; an exit over 1
// fails the test.
func (lc *leanCorpus) mcptest(args ...string) []byte {
	lc.t.Helper()
	cmd := exec.Command(lc.bin, args...)
	cmd.Dir = lc.dir
	cmd.Env = append(os.Environ(), "CI=", "GITHUB_ACTIONS=", "MCPTEST_DIR="+filepath.Join(lc.dir, ".store"), "MCPTEST_CACHE_MIN_BYTES=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() > 1 {
			lc.t.Fatalf("%s: mcptest %v: %v\n%s", lc.at, args, err, stderr.Bytes())
		}
	}
	return stdout.Bytes()
}

func (lc *leanCorpus) read(name string) []byte {
	lc.t.Helper()
	data, err := os.ReadFile(filepath.Join(lc.dir, name))
	if err != nil {
		lc.t.Fatal(err)
	}
	return data
}

func (lc *leanCorpus) write(name string, data []byte) {
	lc.t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(lc.dir, name)), 0o755); err != nil {
		lc.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lc.dir, name), data, 0o644); err != nil {
		lc.t.Fatal(err)
	}
}

// checkFailingBytes runs the corpus's suite with every case's floor out of
// reach (recall at least 101), so every case fails and carries the
// evidence of its failing runs, and holds each to the per-case bound.
func (lc *leanCorpus) checkFailingBytes() {
	t := lc.t
	suite := string(lc.read(gen.CaseSuiteFile))
	if strings.Count(suite, `{ ">=": 50 }`) != lc.n {
		t.Fatalf("%s: the generated suite no longer sets one floor a case:\n%s", lc.at, clip([]byte(suite)))
	}
	lc.write("failing.yml", []byte(strings.ReplaceAll(suite, `{ ">=": 50 }`, `{ ">=": 101 }`)))
	lc.mcptest("run", "--config", "failing.yml", "--format", "json", "--output", "failing.json", "--no-cache")
	lines, cases := envelopeCases(t, lc.read("failing.json"))
	evidence := 0
	for _, c := range cases {
		if c.Verdict != report.Fail {
			t.Fatalf("%s: case %q is %s under a floor out of reach", lc.at, c.Name, c.Verdict)
		}
		if len(c.Evidence) > 0 {
			evidence++
		}
	}
	if len(cases) != lc.n || evidence == 0 {
		t.Fatalf("%s: %d failing cases, %d with evidence", lc.at, len(cases), evidence)
	}
	checkCaseBytes(t, lc.at+", every case failing", lines, cases)
}

// checkOldReads writes the envelope as mcptest wrote it before catalogs
// (old: every offered tool in its case at calls 0, indented) and holds
// that it reads as the lean one (data) does: the HTML report's tool
// coverage, the text, agent, JUnit and SARIF reports, a comparison of the
// two that finds every case the same, the viewer's snapshot and history
// over both.
func (lc *leanCorpus) checkOldReads(data []byte, old *report.Envelope) {
	t := lc.t
	oldJSON, err := json.MarshalIndent(old, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	lc.write("old.json", oldJSON)
	html := func(name string) string {
		lc.mcptest("report", name, "--format", "html", "--output", name+".html")
		return coverageSection(t, string(lc.read(name+".html")))
	}
	if a, b := html("whole.json"), html("old.json"); a != b {
		t.Errorf("%s: the HTML report's tool coverage differs between the lean envelope and the one before catalogs:\n%s\n---\n%s", lc.at, clip([]byte(a)), clip([]byte(b)))
	}
	for _, format := range []string{"text", "agent", "junit", "sarif"} {
		if a, b := lc.mcptest("report", "old.json", "--format", format), lc.mcptest("report", "whole.json", "--format", format); !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s: report --format %s differs between the lean envelope and the one before catalogs", lc.at, format)
		}
	}
	var cmp struct {
		Summary struct{ Cases, Same int }
	}
	out := lc.mcptest("report", "old.json", "--compare", "whole.json", "--format", "json", "--fail-on", "none")
	if err := json.Unmarshal(out, &cmp); err != nil || cmp.Summary.Cases != lc.n || cmp.Summary.Same != lc.n {
		t.Errorf("%s: the comparison of the envelope before catalogs with the lean one: %+v, %v\n%s", lc.at, cmp, err, clip(out))
	}
	for _, name := range []string{"old.json", "whole.json"} {
		lc.mcptest("view", name, "--snapshot", name+".snapshot.html", "--no-serve")
		if page := lc.read(name + ".snapshot.html"); len(page) < 1000 {
			t.Errorf("%s: view --snapshot of %s wrote %d bytes", lc.at, name, len(page))
		}
	}
	lc.write("runs/old.json", oldJSON)
	lc.write("runs/whole.json", data)
	var hist struct{ Runs []json.RawMessage }
	if out := lc.mcptest("history", "runs", "--format", "json"); json.Unmarshal(out, &hist) != nil || len(hist.Runs) != 2 {
		t.Errorf("%s: history over the envelope before catalogs and the lean one: %s", lc.at, clip(out))
	}
}

// checkCached holds that the run served from the cache is the run: its
// cases name the same catalogs and the envelope holds them.
func (lc *leanCorpus) checkCached(data []byte) {
	t := lc.t
	for _, name := range []string{"cold.json", "warm.json"} {
		lc.mcptest("run", "--config", gen.CaseSuiteFile, "--format", "json", "--output", name)
		served := lc.read(name)
		var head struct{ Run report.RunInfo }
		if err := json.Unmarshal(served, &head); err != nil || name == "warm.json" && head.Run.Cached != lc.n {
			t.Errorf("%s: %s served %d cases from the cache (%v), want %d", lc.at, name, head.Run.Cached, err, lc.n)
		}
		if a, b := withoutRunClock(t, data), withoutRunClock(t, withoutCached(t, served)); !bytes.Equal(a, b) {
			t.Errorf("%s: the run served from the cache (%s) differs from the run:\n%s\n---\n%s", lc.at, name, clip(a), clip(b))
		}
	}
}

// checkMerged holds that the run's shards, merged, are the run.
func (lc *leanCorpus) checkMerged(data []byte, shards int) {
	var names []string
	for i := 1; i <= shards; i++ {
		name := "shard-" + strconv.Itoa(i) + ".json"
		lc.mcptest("run", "--config", lc.suite, "--format", "json", "--output", name, "--no-cache", "--shard", fmt.Sprintf("%d/%d", i, shards))
		names = append(names, name)
	}
	lc.mcptest(append([]string{"report", "merge", "--output", "merged.json"}, names...)...)
	if a, b := withoutRunClock(lc.t, data), withoutRunClock(lc.t, lc.read("merged.json")); !bytes.Equal(a, b) {
		lc.t.Errorf("%s: the merged shards differ from the run:\n%s\n---\n%s", lc.at, clip(a), clip(b))
	}
}

// withoutCached is a JSON report without its run's count of cases served
// from the cache.
func withoutCached(t *testing.T, data []byte) []byte {
	t.Helper()
	var env map[string]any
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	if run, ok := env["run"].(map[string]any); ok {
		delete(run, "cached")
	}
	out, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkCaseBytes holds each case to the per-case bound and the mean
// passing case to leanMean.
func checkCaseBytes(t *testing.T, at string, lines [][]byte, cases []*report.CaseResult) {
	t.Helper()
	passing, sum, most, failMost, closest := 0, 0, 0, 0, -1<<31
	for i, c := range cases {
		size := len(lines[i])
		if c.Verdict == report.Pass {
			passing++
			sum += size
			most = max(most, size)
			if len(c.Evidence) > 0 {
				t.Errorf("%s: passing case %q carries evidence", at, c.Name)
			}
		}
		evidence := 0
		if len(c.Evidence) > 0 {
			e, err := json.Marshal(c.Evidence)
			if err != nil {
				t.Fatal(err)
			}
			evidence = len(e) + len(`,"evidence":`)
		}
		if evidence > leanEvidence+len(`,"evidence":`) {
			t.Errorf("%s: case %q carries %d bytes of evidence, over %d", at, c.Name, evidence, leanEvidence)
		}
		if c.Verdict != report.Pass {
			failMost = max(failMost, size)
		}
		closest = max(closest, size-evidence-leanBound(c))
		if size-evidence > leanBound(c) {
			t.Errorf("%s: %s case %q is %d bytes (%d of evidence), over its bound %d (%d findings, %d tools called):\n%s",
				at, c.Verdict, c.Name, size, evidence, leanBound(c), len(c.Findings), len(c.Tools), clip(lines[i]))
		}
	}
	if passing == 0 {
		t.Logf("%s: no passing case; %d failing, the largest %d bytes; the closest to its bound %d bytes under it", at, len(cases), failMost, -closest)
		return
	}
	if mean := sum / passing; mean > leanMean {
		t.Errorf("%s: the mean passing case is %d bytes, over %d", at, mean, leanMean)
	}
	t.Logf("%s: %d passing cases, mean %d bytes, largest %d; the closest to its bound %d bytes under it", at, passing, sum/passing, most, -closest)
}

// checkCatalogs holds the envelope's catalogs: each case's catalog is
// there, within their bound; and returns the envelope as mcptest wrote it
// before catalogs (every offered tool in each case's tools, calls 0),
// whose tool coverage must be the lean one's.
func checkCatalogs(t *testing.T, at string, env *report.Envelope) *report.Envelope {
	t.Helper()
	data, err := json.Marshal(env.Catalogs)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > report.MaxCatalogBytes || len(env.Catalogs) == 0 || env.CatalogsFrom != "" {
		t.Errorf("%s: %d catalogs, %d bytes, from %q", at, len(env.Catalogs), len(data), env.CatalogsFrom)
	}
	old := *env
	old.Catalogs = nil
	old.Cases = nil
	offered := 0
	for _, c := range env.Cases {
		if c.Catalog == "" {
			t.Errorf("%s: case %q names no catalog", at, c.Name)
		}
		o := *c
		o.Tools = env.CaseTools(c)
		o.Catalog = ""
		for _, u := range o.Tools {
			if u.Calls == 0 {
				offered++
			}
		}
		old.Cases = append(old.Cases, &o)
	}
	if offered == 0 {
		t.Errorf("%s: no case was offered a tool it did not call", at)
	}
	if a, b := env.ToolCoverage(), old.ToolCoverage(); !reflect.DeepEqual(a, b) || len(a.Uncovered) == 0 {
		t.Errorf("%s: the tool coverage of the lean envelope differs from the per-case lists':\n%+v\n%+v", at, a, b)
	}
	return &old
}

// coverageSection is the HTML report's tool coverage: from its heading to
// the next section.
func coverageSection(t *testing.T, page string) string {
	t.Helper()
	start := strings.Index(page, "Tool coverage")
	if start < 0 {
		t.Fatalf("no tool coverage in the HTML report:\n%s", clip([]byte(page)))
	}
	end := strings.Index(page[start:], "</section>")
	if end < 0 {
		end = len(page) - start
	}
	return page[start : start+end]
}

// TestLeanEnvelopeCatalogBound runs the built binary over 1,000 recordings
// whose catalogs (1 to 80 tools) all differ, 3 times report.MaxCatalogBytes: the
// envelope keeps the catalogs of the smallest digests that fit and names
// the first one left out (catalogs_from), every case still names its own,
// and the run's shards, merged, keep the same catalogs: the merge is the
// run, byte for byte.
func TestLeanEnvelopeCatalogBound(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary over 1,000 recordings")
	}
	tools := buildTools(t)
	lc := &leanCorpus{t: t, bin: tools.mcptest, n: 1000, dir: t.TempDir(), at: "1,000 distinct catalogs", suite: "suite.yml"}
	lc.writeDistinctCatalogs()
	lc.mcptest("run", "--config", "suite.yml", "--format", "json", "--output", "whole.json", "--no-cache")
	data := lc.read("whole.json")
	env, err := report.Read(bytes.NewReader(data), "whole.json")
	if err != nil {
		t.Fatal(err)
	}
	kept, err := json.Marshal(env.Catalogs)
	if err != nil {
		t.Fatal(err)
	}
	if env.CatalogsFrom == "" || len(kept) > report.MaxCatalogBytes || len(env.Catalogs) == 0 || len(env.Catalogs) >= lc.n {
		t.Errorf("%d catalogs kept (%d bytes), from %q: want the bound met", len(env.Catalogs), len(kept), env.CatalogsFrom)
	}
	for i, c := range env.Catalogs {
		if c.SHA256 >= env.CatalogsFrom || i > 0 && c.SHA256 <= env.Catalogs[i-1].SHA256 {
			t.Fatalf("catalog %d (%.12s) out of digest order or past %.12s", i, c.SHA256, env.CatalogsFrom)
		}
	}
	known := map[string]bool{}
	for _, c := range env.Catalogs {
		known[c.SHA256] = true
	}
	past := 0
	for _, c := range env.Cases {
		if c.Catalog == "" || c.Verdict != report.Pass {
			t.Fatalf("case %q: catalog %q, verdict %s", c.Name, c.Catalog, c.Verdict)
		}
		if !known[c.Catalog] {
			past++
			if c.Catalog < env.CatalogsFrom {
				t.Errorf("case %q names catalog %.12s, below catalogs_from and not kept", c.Name, c.Catalog)
			}
		}
	}
	cov := env.ToolCoverage()
	want := past
	for _, c := range env.Catalogs {
		want += len(c.Servers[0].Tools)
	}
	if past == 0 || cov.Known != want {
		t.Errorf("%d cases past the bound; coverage knows %d tools, want %d", past, cov.Known, want)
	}
	t.Logf("%d catalogs kept (%d bytes), %d cases past the bound", len(env.Catalogs), len(kept), past)
	// Each of two shards holds more catalogs than the bound too: the
	// merge applies each one's catalogs_from.
	lc.checkMerged(data, 2)
	for _, name := range []string{"shard-1.json", "shard-2.json"} {
		var head struct {
			CatalogsFrom string `json:"catalogs_from"`
		}
		if err := json.Unmarshal(lc.read(name), &head); err != nil || head.CatalogsFrom == "" {
			t.Errorf("%s: catalogs_from %q (%v): want the shard over the bound", name, head.CatalogsFrom, err)
		}
	}
}

// writeDistinctCatalogs writes lc.n recordings, the i-th offering 1 to 80
// tools no other offers and calling the first, and suite.yml, one test a
// recording.
func (lc *leanCorpus) writeDistinctCatalogs() {
	var suite strings.Builder
	suite.WriteString("tests:\n")
	for i := range lc.n {
		var cat strings.Builder
		for j := range 1 + (i*37)%80 {
			if j > 0 {
				cat.WriteByte(',')
			}
			fmt.Fprintf(&cat, `{"name":"tool_%04d_%02d"}`, i, j)
		}
		lc.write(fmt.Sprintf("c/%04d.json", i), fmt.Appendf(nil,
			`{"mcptest_cassette":1,"catalog":{"s":{"tools":[%s]}},"runs":[{"turns":[{"calls":[{"server":"s","tool":"tool_%04d_00","arguments":{}}],"final_response":"done"}]}]}`,
			cat.String(), i))
		fmt.Fprintf(&suite, "  - name: case %04d\n    type: agent\n    cassette: c/%04d.json\n    expect:\n      - target: final_response\n        matcher: { regex: \"done\" }\n", i, i)
	}
	lc.write("suite.yml", []byte(suite.String()))
}
