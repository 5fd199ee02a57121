package baseline

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// historyEnvelope is the baseline example's envelope with the support
// agent's certified lower bound set to lower and the legacy agent's
// verdict flipped when pass is set: a baseline with a known figure.
func historyEnvelope(t testing.TB, lower float64, pass bool) []byte {
	t.Helper()
	data, err := os.ReadFile("../examples/baseline/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]any
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	for _, c := range env["cases"].([]any) {
		c := c.(map[string]any)
		switch c["name"] {
		case "support agent answers from the knowledge base":
			c["targets"].(map[string]any)["reliability.certified_lower"] = lower
		case "legacy agent":
			if pass {
				c["verdict"] = "pass"
			}
		}
	}
	out, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func zipEntries(t testing.TB, entries map[string][]byte) []byte {
	if t == nil {
		t = panicTB{}
	}
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(entries[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A refusal is one way a run or its artifact may not supply a baseline:
// how to make such a run, and the words its skipped line carries.
type refusal struct {
	kind string
	make func(r *ghapitest.Run)
	why  string
}

var refusals = []refusal{
	{"expired", func(r *ghapitest.Run) { r.Artifacts[0].Expired = true }, "expired"},
	{"gone", func(r *ghapitest.Run) { r.Artifacts[0].Gone = true }, "410 Gone"},
	{"fork", func(r *ghapitest.Run) { r.HeadRepo = "fork/agents" }, "a fork's branch"},
	{"pull_request", func(r *ghapitest.Run) { r.Event = "pull_request" }, "is not push, schedule or workflow_dispatch"},
	{"forged digest", func(r *ghapitest.Run) {
		r.Artifacts[0].Digest = "sha256:" + strings.Repeat("ab", 32)
	}, "does not match its digest"},
	{"unknown digest", func(r *ghapitest.Run) { r.Artifacts[0].Digest = "md5:0123" }, "is not sha256:<64 hex digits>"},
	{"another run's", func(r *ghapitest.Run) { r.Artifacts[0].ListedRun = 1 }, "says it belongs to run 1"},
	{"climbs out", func(r *ghapitest.Run) {
		r.Artifacts[0].Zip = zipEntries(nil, map[string][]byte{"../mcptest-report.json": []byte("{}")})
	}, "climbs out"},
	{"not an envelope", func(r *ghapitest.Run) {
		r.Artifacts[0].Zip = zipEntries(nil, map[string][]byte{"mcptest-report.json": []byte(`{"cases":[]}`)})
	}, "no schema_version"},
	{"other schema", func(r *ghapitest.Run) {
		r.Artifacts[0].Zip = zipEntries(nil, map[string][]byte{"mcptest-report.json": []byte(`{"schema_version":99}`)})
	}, "schema_version 99"},
	{"over the cap", func(r *ghapitest.Run) { r.Artifacts[0].Size = 1 << 30 }, "over the"},
	{"no artifact", func(r *ghapitest.Run) { r.Artifacts[0].Name = "other" }, "no artifact named"},
	// The stand-in lists these although the request filters them out
	// (ListAll): each run's own fields are checked all the same.
	{"other branch", func(r *ghapitest.Run) { r.HeadBranch = "feature" }, "is not the default branch"},
	{"other workflow", func(r *ghapitest.Run) { r.Workflow = "mcptest-pr.yml" }, "is a run of workflow \".github/workflows/mcptest-pr.yml\", not mcptest-baseline.yml"},
	{"failed", func(r *ghapitest.Run) { r.Conclusion = "failure" }, "did not succeed"},
}

// historyRun is a run of the baseline workflow on main that uploaded env.
func historyRun(id int64, env []byte, t testing.TB) *ghapitest.Run {
	return &ghapitest.Run{ID: id, Workflow: "mcptest-baseline.yml", Event: "push", HeadBranch: "main", HeadRepo: "acme/agents",
		HeadSHA: fmt.Sprintf("%040x", id), Status: "completed", Conclusion: "success",
		Artifacts: []*ghapitest.Artifact{{ID: id * 10, Name: "mcptest-baseline", Zip: zipEntries(t, map[string][]byte{"mcptest-report.json": env})}}}
}

func historyGitHub(t *testing.T, srv *ghapitest.Server) *GitHub {
	t.Helper()
	gh, err := NewGitHub(GitHubOptions{APIURL: srv.URL, Token: "ghs_test", Retries: 1, RetryDelay: time.Millisecond, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return gh
}

var historyOpts = FetchOptions{Owner: "acme", Repo: "agents", Workflow: "mcptest-baseline.yml", Artifact: "mcptest-baseline", Entry: "mcptest-report.json", MaxBytes: 8 << 20}

// TestFetchHistoryTrust is a generator test: histories of runs nobody
// wrote by hand, each run good or refused in one of the ways the baseline
// fetch refuses (expired, gone, a fork's, a pull request's, a forged or
// unknown digest, an artifact listed under another run, an entry that
// climbs out, not an envelope, another schema, over the cap, no artifact;
// and, from a listing that ignores its filters, another branch's, another
// workflow's, a failed run).
// FetchHistory keeps exactly the newest n good runs, oldest first, each
// written to its file with the bytes of its envelope; every refused run
// among those it looked at is skipped with the line FetchBaseline gives
// the same run alone; and FetchBaseline takes the newest good run, the
// history's last.
func TestFetchHistoryTrust(t *testing.T) {
	spec := ghapitest.Require(t)
	checked := map[string]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 42))
		srv := ghapitest.New(t, spec, "acme", "agents")
		srv.ListAll = true
		gh := historyGitHub(t, srv)
		var good []int64
		kinds := map[int64]refusal{}
		want := map[int64][]byte{}
		runs := 4 + rng.IntN(10)
		for i := 0; i < runs; i++ {
			id := int64(100 + i)
			env := historyEnvelope(t, float64(rng.IntN(100)), rng.IntN(2) == 0)
			r := historyRun(id, env, t)
			if rng.IntN(3) == 0 {
				ref := refusals[rng.IntN(len(refusals))]
				ref.make(r)
				kinds[id] = ref
			} else {
				good = append(good, id)
				want[id] = env
			}
			srv.Runs = append(srv.Runs, r)
		}
		n := 1 + rng.IntN(6)
		dir := t.TempDir()
		h, err := gh.FetchHistory(context.Background(), historyOpts, n, dir)
		if len(good) == 0 {
			var m *Missing
			if !errors.As(err, &m) {
				t.Fatalf("seed %d: no good run: %v, want no baseline", seed, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		wantIDs := good[max(0, len(good)-n):]
		var got []int64
		for _, f := range h.Runs {
			got = append(got, f.RunID)
			data, err := os.ReadFile(f.File)
			if err != nil || !bytes.Equal(data, want[f.RunID]) {
				t.Errorf("seed %d: run %d's file holds %d bytes (%v), want its envelope's %d", seed, f.RunID, len(data), err, len(want[f.RunID]))
			}
			if filepath.Dir(f.File) != dir || filepath.Base(f.File) != HistoryFile(f.RunID) {
				t.Errorf("seed %d: run %d written to %s", seed, f.RunID, f.File)
			}
		}
		if !slices.Equal(got, wantIDs) {
			t.Fatalf("seed %d: history %v, want the newest %d good runs oldest first %v (refused: %v)", seed, got, n, wantIDs, kinds)
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != len(got) {
			t.Errorf("seed %d: %d files in the directory, want %d: a refused artifact was written", seed, len(entries), len(got))
		}
		for id, ref := range kinds {
			if id < wantIDs[0] {
				continue // older than the window: never looked at
			}
			checked[ref.kind] = true
			line := skippedLine(h.Skipped, id)
			if !strings.Contains(line, ref.why) {
				t.Errorf("seed %d: run %d (%s) skipped as %q, want %q", seed, id, ref.kind, line, ref.why)
			}
			alone := ghapitest.New(t, spec, "acme", "agents")
			alone.ListAll = true
			for _, r := range srv.Runs {
				if r.ID == id {
					alone.Runs = []*ghapitest.Run{r}
				}
			}
			_, err := historyGitHub(t, alone).FetchBaseline(context.Background(), historyOpts)
			var m *Missing
			if !errors.As(err, &m) || skippedLine(m.Skipped, id) != line {
				t.Errorf("seed %d: run %d (%s): the baseline fetch says %v / %q, the history %q", seed, id, ref.kind, err, m, line)
			}
		}
		found, err := gh.FetchBaseline(context.Background(), historyOpts)
		if err != nil || found.RunID != wantIDs[len(wantIDs)-1] {
			t.Errorf("seed %d: the baseline fetch took %v (%v), want the history's newest run %d", seed, found, err, wantIDs[len(wantIDs)-1])
		}
	}
	for _, ref := range refusals {
		if !checked[ref.kind] {
			t.Errorf("no generated history checked a refusal of kind %q", ref.kind)
		}
	}
}

func skippedLine(skipped []string, id int64) string {
	for _, s := range skipped {
		if strings.HasPrefix(s, fmt.Sprintf("run %d: ", id)) {
			return s
		}
	}
	return ""
}

// TestFetchHistoryNoDigest: an artifact of an older upload-artifact lists
// no digest and is taken on its other checks, as before digests.
func TestFetchHistoryNoDigest(t *testing.T) {
	srv := ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
	r := historyRun(7, historyEnvelope(t, 50, true), t)
	r.Artifacts[0].Digest = ghapitest.NoDigest
	srv.Runs = []*ghapitest.Run{r}
	h, err := historyGitHub(t, srv).FetchHistory(context.Background(), historyOpts, 3, t.TempDir())
	if err != nil || len(h.Runs) != 1 {
		t.Fatalf("%+v, %v; want run 7", h, err)
	}
}

// TestFetchHistoryBudget: when the budget is spent part way, the baselines
// kept so far are the history, and a skipped line says the rest was not
// read.
func TestFetchHistoryBudget(t *testing.T) {
	srv := ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
	for i := int64(1); i <= 3; i++ {
		srv.Runs = append(srv.Runs, historyRun(i, historyEnvelope(t, float64(80-i), false), t))
	}
	gh := historyGitHub(t, srv)
	// Every answer is held 200 ms: the repository and the runs, then the
	// newest run's three requests fit in 1.5 s, the next run's do not.
	srv.Delay = 200 * time.Millisecond
	opt := historyOpts
	opt.Budget = 1500 * time.Millisecond
	h, err := gh.FetchHistory(context.Background(), opt, 3, t.TempDir())
	if err != nil {
		t.Fatalf("%v; want the runs read within the budget", err)
	}
	if len(h.Runs) == 0 || len(h.Runs) == 3 || h.Runs[len(h.Runs)-1].RunID != 3 {
		t.Fatalf("history %+v; want the newest run and not all three", h.Runs)
	}
	if len(h.Skipped) == 0 || !strings.Contains(h.Skipped[len(h.Skipped)-1], "did not answer within 1.5 s") {
		t.Errorf("skipped %q; want the budget named", h.Skipped)
	}
}

// panicTB is a testing.TB for the table's zips, made before any test runs.
type panicTB struct{ testing.TB }

func (panicTB) Helper()           {}
func (panicTB) Fatal(args ...any) { panic(fmt.Sprint(args...)) }

// TestFetchGitHubHistory: the command line's fetch reads the repository,
// the token and the API URL from the environment, and refuses, as wrong
// input, a repository that is not owner/name and a missing token.
func TestFetchGitHubHistory(t *testing.T) {
	srv := ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
	for i := int64(1); i <= 4; i++ {
		srv.Runs = append(srv.Runs, historyRun(i, historyEnvelope(t, float64(60-i), true), t))
	}
	env := map[string]string{"GITHUB_API_URL": srv.URL, "GH_TOKEN": "ghs_x", "GITHUB_REPOSITORY": "acme/agents"}
	h, err := FetchGitHubHistory(context.Background(), func(k string) string { return env[k] }, HistorySource{N: 3}, t.TempDir())
	if err != nil || len(h.Runs) != 3 || h.Runs[0].RunID != 2 || h.Runs[2].RunID != 4 {
		t.Fatalf("%+v, %v; want runs 2, 3, 4", h, err)
	}
	for _, c := range []struct {
		env  map[string]string
		repo string
		want string
	}{
		{map[string]string{"GH_TOKEN": "x"}, "", "is not owner/name"},
		{map[string]string{"GH_TOKEN": "x"}, "a/b/c", "is not owner/name"},
		{map[string]string{}, "acme/agents", "no token"},
	} {
		_, err := FetchGitHubHistory(context.Background(), func(k string) string { return c.env[k] }, HistorySource{Repo: c.repo, N: 3}, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %q: %v, want %q", c.env, c.repo, err, c.want)
		}
	}
}

// FuzzCheckDigest: a listed digest is untrusted. Whatever it holds, the
// check never panics, accepts a zip only when the digest is its own
// SHA-256 (any case of hex) or absent, and says why on one short line.
func FuzzCheckDigest(f *testing.F) {
	f.Add([]byte("zip"), "sha256:"+strings.Repeat("0", 64))
	f.Add([]byte("zip"), "md5:abc")
	f.Add([]byte(""), "sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855")
	f.Add([]byte("x"), "sha256:\n::error::x")
	f.Add([]byte(""), "SHA256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
	f.Fuzz(func(t *testing.T, zipped []byte, digest string) {
		why := checkDigest(zipped, &digest)
		sum := sha256.Sum256(zipped)
		hexSum, ok := strings.CutPrefix(digest, "sha256:")
		own := ok && strings.EqualFold(hexSum, hex.EncodeToString(sum[:]))
		if (why == "") != (own || digest == "") {
			t.Fatalf("digest %q of %d bytes: %q", digest, len(zipped), why)
		}
		if len(why) > 300 || strings.ContainsAny(why, "\r\n") {
			t.Fatalf("a message of %d bytes or with a line break: %q", len(why), why)
		}
	})
}

// TestGitHubHistoryDir: the command line's directory holds the fetched
// envelopes and is removed by done; no baseline is wrong input naming why.
func TestGitHubHistoryDir(t *testing.T) {
	srv := ghapitest.New(t, ghapitest.Require(t), "acme", "agents")
	srv.Runs = []*ghapitest.Run{historyRun(5, historyEnvelope(t, 40, true), t), historyRun(6, historyEnvelope(t, 30, true), t)}
	srv.Runs[1].Artifacts[0].Expired = true
	env := map[string]string{"GITHUB_API_URL": srv.URL, "GITHUB_TOKEN": "ghs_x", "GITHUB_REPOSITORY": "acme/agents"}
	var skipped []string
	dir, done, err := GitHubHistoryDir(context.Background(), func(k string) string { return env[k] }, HistorySource{N: 5}, func(s string) { skipped = append(skipped, s) })
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != HistoryFile(5) || len(skipped) != 1 || !strings.Contains(skipped[0], "run 6: artifact \"mcptest-baseline\" expired") {
		t.Errorf("%v, skipped %q", entries, skipped)
	}
	done()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the directory is left: %v", err)
	}
	srv.Runs = srv.Runs[1:]
	_, _, err = GitHubHistoryDir(context.Background(), func(k string) string { return env[k] }, HistorySource{N: 5}, func(string) {})
	if err == nil || !strings.Contains(err.Error(), "--github: no baseline: no successful run") {
		t.Errorf("%v", err)
	}
}
