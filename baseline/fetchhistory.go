package baseline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
)

// MaxHistory is the most baselines a history fetch reads: a page of
// workflow runs.
const MaxHistory = 100

// Fetched is one baseline a history fetch kept: the run that supplied it
// and the file its envelope was written to.
type Fetched struct {
	RunID  int64
	RunURL string
	SHA    string
	File   string
}

// FetchedHistory is the baselines of the last runs of the default branch,
// oldest first, each written to its own file in Dir.
type FetchedHistory struct {
	Dir  string
	Runs []Fetched
	// Skipped says why other runs or artifacts were passed over.
	Skipped []string
}

// Files are the envelopes' files, oldest first.
func (h *FetchedHistory) Files() []string {
	out := make([]string, len(h.Runs))
	for i, r := range h.Runs {
		out[i] = r.File
	}
	return out
}

// HistoryFile is the name a history fetch gives the envelope of run id:
// the id zero-padded, so the names sort as the runs were made.
func HistoryFile(id int64) string {
	return fmt.Sprintf("baseline-run-%020d.json", id)
}

// FetchHistory fetches the baseline envelopes of the last n runs of the
// baseline workflow on the default branch (at most MaxHistory) into dir,
// which must exist: the runs FetchBaseline would accept, with every one of
// its checks (walk), newest first until n are kept. Each envelope is
// written to dir by rename (HistoryFile), once its artifact, entry and
// envelope have passed every check; one is held in memory at a time. It
// returns a *Missing error when no run supplies one, another error when
// the API failed or dir cannot be written. opt.Budget bounds the whole
// fetch; when it is spent the baselines kept so far are the answer, with a
// skipped line saying so, or a *Missing when there are none.
func (g *GitHub) FetchHistory(ctx context.Context, opt FetchOptions, n int, dir string) (*FetchedHistory, error) {
	if n <= 0 {
		return nil, errors.New("a history of 0 baselines")
	}
	n = min(n, MaxHistory)
	if opt.MaxRuns < n {
		opt.MaxRuns = min(max(2*n, 30), MaxHistory)
	}
	h := &FetchedHistory{Dir: dir}
	var w *walked
	err := Budgeted(ctx, opt.Budget, func(ctx context.Context) error {
		var err error
		w, err = g.walk(ctx, opt, false, func(r *github.WorkflowRun, _ *report.Envelope, data []byte) (bool, error) {
			file := filepath.Join(dir, HistoryFile(r.GetID()))
			if err := safefile.WriteFile(file, data, 0o644); err != nil {
				return false, fmt.Errorf("write the baseline of run %d: %w", r.GetID(), err)
			}
			h.Runs = append(h.Runs, Fetched{RunID: r.GetID(), RunURL: r.GetHTMLURL(), SHA: r.GetHeadSHA(), File: file})
			return len(h.Runs) < n, nil
		})
		return err
	})
	var te *TimeoutError
	switch {
	case errors.As(err, &te) && len(h.Runs) > 0:
		h.Skipped = append(h.Skipped, fmt.Sprintf("the runs before run %d: %s", h.Runs[len(h.Runs)-1].RunID, te.Error()))
	case errors.As(err, &te):
		return nil, &Missing{Reason: te.Error()}
	case err != nil:
		return nil, err
	case len(h.Runs) == 0:
		return nil, w.missing(opt)
	default:
		h.Skipped = w.skipped
	}
	for i, j := 0, len(h.Runs)-1; i < j; i, j = i+1, j-1 {
		h.Runs[i], h.Runs[j] = h.Runs[j], h.Runs[i]
	}
	return h, nil
}

// TempHistoryDir makes the directory a history fetch writes into, under
// base (the runner's temporary directory; "" is the system's).
func TempHistoryDir(base string) (string, error) {
	if base != "" {
		if err := os.MkdirAll(base, 0o755); err != nil {
			return "", err
		}
	}
	return os.MkdirTemp(base, "mcptest-history-")
}

// HistorySource names the baselines `mcptest history --github` reads: the
// repository (owner/name; "" is GITHUB_REPOSITORY), the baseline workflow,
// artifact and entry (defaults: mcptest-baseline.yml, mcptest-baseline,
// mcptest-report.json), how many (N), the size cap and the time budget.
type HistorySource struct {
	Repo               string
	Workflow, Artifact string
	Entry              string
	N                  int
	MaxBytes           int64
	Budget             time.Duration
	// UserAgent names the caller to the API.
	UserAgent string
}

// FetchGitHubHistory is the command line's way to FetchHistory: the API
// at GITHUB_API_URL with GITHUB_TOKEN (or GH_TOKEN), as a workflow step or
// a developer with the gh CLI's token has them, from getenv. A missing
// repository or token is wrong input (diag.InputError).
func FetchGitHubHistory(ctx context.Context, getenv func(string) string, src HistorySource, dir string) (*FetchedHistory, error) {
	repo := src.Repo
	if repo == "" {
		repo = getenv("GITHUB_REPOSITORY")
	}
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, diag.Input("--github: the repository %s is not owner/name (set --repo or GITHUB_REPOSITORY)", quote(repo))
	}
	token := getenv("GITHUB_TOKEN")
	if token == "" {
		token = getenv("GH_TOKEN")
	}
	if token == "" {
		return nil, diag.Input("--github: no token: set GITHUB_TOKEN (in a workflow, ${{ github.token }} with actions: read) or GH_TOKEN")
	}
	gh, err := NewGitHub(GitHubOptions{APIURL: getenv("GITHUB_API_URL"), Token: token, UserAgent: src.UserAgent})
	if err != nil {
		return nil, diag.Input("--github: %v", err)
	}
	opt := FetchOptions{Owner: owner, Repo: name, Workflow: or(src.Workflow, "mcptest-baseline.yml"), Artifact: or(src.Artifact, "mcptest-baseline"),
		Entry: or(src.Entry, "mcptest-report.json"), MaxBytes: src.MaxBytes, Budget: src.Budget}
	return gh.FetchHistory(ctx, opt, src.N, dir)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// GitHubHistoryDir fetches the history FetchGitHubHistory fetches into a
// new temporary directory and returns it with a function that removes it:
// the directory `mcptest history --github` folds. Each run passed over is
// said on skipped.
func GitHubHistoryDir(ctx context.Context, getenv func(string) string, src HistorySource, skipped func(string)) (dir string, done func(), err error) {
	dir, err = TempHistoryDir("")
	if err != nil {
		return "", nil, fmt.Errorf("--github: no temporary directory: %w", err)
	}
	done = func() { os.RemoveAll(dir) }
	h, err := FetchGitHubHistory(ctx, getenv, src, dir)
	var m *Missing
	switch {
	case errors.As(err, &m):
		for _, s := range m.Skipped {
			skipped(s)
		}
		done()
		return "", nil, diag.Input("--github: no baseline: %s", m.Reason)
	case err != nil:
		done()
		return "", nil, err
	}
	for _, s := range h.Skipped {
		skipped(s)
	}
	return dir, done, nil
}
