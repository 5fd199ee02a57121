package baseline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/mcptest/mcptest/report"

	"github.com/google/go-github/v62/github"

	"github.com/mcptest/mcptest/internal/safefile"
)

// GitHub talks to the GitHub REST API for the Action: the baseline
// artifact and the PR comment and drift issue (through Client). Every call
// goes to APIURL (GITHUB_API_URL, so GitHub Enterprise Server works) and is
// retried with back-off on 5xx answers, rate limits and timeouts.
type GitHub struct {
	// Client is the go-github client, authenticated and retrying.
	Client *github.Client
	// raw sends authenticated requests without following redirects.
	raw *http.Client
	// plain fetches signed download URLs: no Authorization header.
	plain *http.Client
}

// GitHubOptions configure NewGitHub.
type GitHubOptions struct {
	APIURL string // GITHUB_API_URL; "" means https://api.github.com
	Token  string
	// Retries is how many times a failed request is tried again (default 4);
	// RetryDelay the first back-off (default 1s), doubled each time.
	Retries    int
	RetryDelay time.Duration
	// Timeout bounds each attempt (default 30s).
	Timeout time.Duration
	// UserAgent names the caller.
	UserAgent string
	// MaxAnswerBytes caps each answer of the API (not the artifact
	// downloads, which FetchOptions.MaxBytes caps); default 32 MiB.
	MaxAnswerBytes int64
}

// NewGitHub returns a client for the API at opt.APIURL. User-info in the
// URL (user:password@) is taken out of it: it is sent as basic
// authentication when there is no token, and it never appears in a request
// URL, so no error, log line or message can carry it.
func NewGitHub(opt GitHubOptions) (*GitHub, error) {
	if opt.APIURL == "" {
		opt.APIURL = "https://api.github.com"
	}
	base, err := url.Parse(strings.TrimSuffix(opt.APIURL, "/") + "/")
	if err != nil {
		return nil, errors.New("GITHUB_API_URL is not a URL (it does not parse)")
	}
	if (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q is not an http(s) URL", RedactURL(base))
	}
	user := base.User
	base.User = nil
	if opt.Retries == 0 {
		opt.Retries = 4
	}
	if opt.RetryDelay == 0 {
		opt.RetryDelay = time.Second
	}
	if opt.Timeout == 0 {
		opt.Timeout = 30 * time.Second
	}
	if opt.MaxAnswerBytes == 0 {
		opt.MaxAnswerBytes = 32 << 20
	}
	retry := &retryTransport{next: http.DefaultTransport, retries: opt.Retries, delay: opt.RetryDelay, timeout: opt.Timeout}
	authed := &authTransport{next: retry, token: opt.Token, user: user, host: base.Host, max: opt.MaxAnswerBytes}
	g := &GitHub{
		Client: github.NewClient(&http.Client{Transport: authed, CheckRedirect: sameHost(base.Host)}),
		raw: &http.Client{Transport: authed, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
		plain: &http.Client{Transport: retry},
	}
	g.Client.BaseURL = base
	g.Client.UploadURL = base
	if opt.UserAgent != "" {
		g.Client.UserAgent = opt.UserAgent
	}
	return g, nil
}

// sameHost follows the API's redirects on its own host (a renamed
// repository) and answers with the redirect itself when it leads to another
// host, where signed URLs live: an error of the client names the URL it
// failed on, and a signed URL must never be printed.
func sameHost(host string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != host {
			return http.ErrUseLastResponse
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// authTransport adds the token (or, without one, the API URL's user-info
// as basic authentication) to requests for the API host only, so a
// redirect to another host (a signed download URL) never carries it. Each
// answer's body is cut at max bytes.
type authTransport struct {
	next  http.RoundTripper
	token string
	user  *url.Userinfo
	host  string
	max   int64
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == t.host && (t.token != "" || t.user != nil) {
		req = req.Clone(req.Context())
		if t.token != "" {
			req.Header.Set("Authorization", "Bearer "+t.token)
		} else {
			pw, _ := t.user.Password()
			req.SetBasicAuth(t.user.Username(), pw)
		}
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: t.max, max: t.max}
	return resp, nil
}

// cappedBody fails a read that goes past max bytes: an API answer that
// never ends is refused instead of decoded without end.
type cappedBody struct {
	io.ReadCloser
	left, max int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the API's answer is over the %s cap", safefile.Size(b.max))
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// retryTransport tries a request again on a network error or timeout, a
// 5xx answer, a 429, and a 403 that is a rate limit (Retry-After, or no
// requests remaining), waiting Retry-After when given (up to a minute) or
// an exponential back-off with jitter. Each attempt is bounded by timeout
// and by the request's deadline, whichever comes first; when the wait
// before the next try would pass the deadline, the last answer (or error)
// is returned at once instead.
type retryTransport struct {
	next    http.RoundTripper
	retries int
	delay   time.Duration
	timeout time.Duration
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	delay := t.delay
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 && req.Body != nil {
			if req.GetBody == nil {
				return nil, fmt.Errorf("%s %s: cannot retry a request whose body cannot be re-read", req.Method, RedactURL(req.URL))
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r = req.Clone(req.Context())
			r.Body = body
		}
		ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
		resp, err := t.next.RoundTrip(r.WithContext(ctx))
		wait, again := retryable(resp, err, delay)
		if !again || attempt >= t.retries || req.Context().Err() != nil || !fits(req.Context(), wait) {
			if err != nil {
				cancel()
				return nil, err
			}
			resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
			return resp, nil
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		cancel()
		select {
		case <-time.After(wait):
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
		delay *= 2
	}
}

// fits reports whether a wait of d ends before ctx's deadline.
func fits(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) > d
}

type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func retryable(resp *http.Response, err error, delay time.Duration) (time.Duration, bool) {
	backoff := delay + time.Duration(rand.Int64N(int64(delay)/2+1))
	if err != nil {
		return backoff, true
	}
	limited := resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode == http.StatusForbidden && (resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") == "0"))
	if resp.StatusCode < 500 && !limited {
		return 0, false
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			return min(time.Duration(n)*time.Second, time.Minute), true
		}
	}
	if limited && resp.Header.Get("X-RateLimit-Reset") != "" {
		if n, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			if d := time.Until(time.Unix(n, 0)); d > 0 {
				return min(d, time.Minute), true
			}
		}
	}
	return backoff, true
}

// RedactURL is u for a message: without user-info (user:password@), query
// (where signed URLs keep their signature) or fragment.
func RedactURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = "", false, "", ""
	return c.String()
}

// TimeoutError says that the API did not answer within the time budget of
// a use of it (api-timeout).
type TimeoutError struct {
	Budget time.Duration
}

func (e *TimeoutError) Error() string {
	return "the API did not answer within " + Seconds(e.Budget)
}

// Seconds renders a budget for a message: "2 s", "1.5 s", "120 s".
func Seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// Budgeted calls f with a context whose deadline is budget from now (no
// deadline when budget is 0), so every request f makes, each attempt and
// each wait between attempts, ends by then. When f fails because the
// budget is spent, the error is a *TimeoutError.
//
// A wait before a retry that would pass the deadline is not begun: the
// last answer is the result, so an API that keeps answering 503 with a
// long Retry-After says so at once instead of using up the budget.
func Budgeted(ctx context.Context, budget time.Duration, f func(context.Context) error) error {
	if budget <= 0 {
		return f(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	err := f(ctx)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &TimeoutError{Budget: budget}
	}
	return err
}

// APIError is an answer of the API that is not a success, with its status.
type APIError struct {
	Op     string
	Status int
	Msg    string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: HTTP %d", e.Op, e.Status)
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Forbidden reports whether err is a 403 or 404 answer: a read-only token
// (a fork's pull request) or missing permissions.
func Forbidden(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status == http.StatusForbidden || ae.Status == http.StatusNotFound
	}
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil {
		return ge.Response.StatusCode == http.StatusForbidden || ge.Response.StatusCode == http.StatusNotFound
	}
	return false
}

// FetchOptions say which baseline to fetch.
type FetchOptions struct {
	Owner, Repo string
	// Workflow is the file name of the workflow that uploads the baseline
	// (mcptest-baseline.yml).
	Workflow string
	// Artifact is the artifact's name, Entry the file inside it.
	Artifact, Entry string
	// MaxBytes caps the artifact (zip) and the entry (default 64 MiB).
	MaxBytes int64
	// Base and Head are the pull request's base and head commits; when
	// both are set, the run of their merge base is preferred.
	Base, Head string
	// MaxRuns bounds how many runs are looked at (default 30).
	MaxRuns int
	// Budget bounds the whole fetch, every request and retry included; 0
	// is no bound. When it is spent the answer is a *Missing saying so.
	Budget time.Duration
}

// Found is a baseline taken from a run of the default branch.
type Found struct {
	Envelope *report.Envelope
	RunID    int64
	RunURL   string
	SHA      string
	// Skipped says why other runs or artifacts were passed over.
	Skipped []string
}

// Missing is the "no baseline" answer: nothing usable was found. It is a
// stated mode, not a failure; Reason says why.
type Missing struct {
	Reason  string
	Skipped []string
}

func (m *Missing) Error() string { return "no baseline: " + m.Reason }

// The events whose runs may supply a baseline.
var baselineEvents = map[string]bool{"push": true, "schedule": true, "workflow_dispatch": true}

// FetchBaseline finds the baseline envelope of the default branch in the
// order of action.md: the default branch; its successful runs of the
// baseline workflow, the merge base's first, then newest first; only runs
// of an accepted event, from the repository itself, on the default branch,
// that succeeded; the named artifact, not expired, under the cap; its zip
// downloaded from the signed URL without credentials; the one expected
// entry; a run envelope. It returns a *Missing error when there is no
// usable baseline, another error when the API failed. When opt.Budget is
// spent, the *Missing reason is "the API did not answer within N s".
func (g *GitHub) FetchBaseline(ctx context.Context, opt FetchOptions) (*Found, error) {
	var found *Found
	err := Budgeted(ctx, opt.Budget, func(ctx context.Context) error {
		var err error
		found, err = g.fetchBaseline(ctx, opt)
		return err
	})
	var te *TimeoutError
	if errors.As(err, &te) {
		return nil, &Missing{Reason: te.Error()}
	}
	return found, err
}

func (g *GitHub) fetchBaseline(ctx context.Context, opt FetchOptions) (*Found, error) {
	var found *Found
	w, err := g.walk(ctx, opt, true, func(r *github.WorkflowRun, env *report.Envelope, _ []byte) (bool, error) {
		found = &Found{Envelope: env, RunID: r.GetID(), RunURL: r.GetHTMLURL(), SHA: r.GetHeadSHA()}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if found != nil {
		found.Skipped = w.skipped
		return found, nil
	}
	return nil, w.missing(opt)
}

// walked is what a walk over the baseline workflow's runs saw: the
// default branch, how many runs were listed, and why runs were passed
// over.
type walked struct {
	def     string
	listed  int
	skipped []string
}

// missing is the "no baseline" answer of a walk that kept nothing.
func (w *walked) missing(opt FetchOptions) *Missing {
	reason := fmt.Sprintf("no successful run of %s on %s has a usable %q artifact", opt.Workflow, w.def, opt.Artifact)
	if w.listed == 0 {
		reason = fmt.Sprintf("workflow %s has no successful run on %s yet (first run?)", opt.Workflow, w.def)
	}
	return &Missing{Reason: reason, Skipped: w.skipped}
}

// walk is the one path every baseline the Action reads takes, one
// (FetchBaseline) or the last N (FetchHistory): the default branch; the
// successful runs of the baseline workflow on it, newest first (the merge
// base's first when mergeBaseFirst and the options name a pull request's
// base and head); only runs that pass rejectRun (an accepted event, the
// repository itself, the default branch, success); each one's named
// artifact through runBaseline (listed for that run, not expired, under
// the cap, its download matching its digest, the one expected entry, a run
// envelope of this schema_version). keep is called with each accepted
// run's envelope and the entry's bytes, in that order, until it returns
// false. A run passed over is said in skipped; err is an API failure.
func (g *GitHub) walk(ctx context.Context, opt FetchOptions, mergeBaseFirst bool, keep func(*github.WorkflowRun, *report.Envelope, []byte) (bool, error)) (*walked, error) {
	if opt.MaxBytes == 0 {
		opt.MaxBytes = 64 << 20
	}
	if opt.MaxRuns == 0 {
		opt.MaxRuns = 30
	}
	repo, _, err := g.Client.Repositories.Get(ctx, opt.Owner, opt.Repo)
	if err != nil {
		return nil, fmt.Errorf("get repository %s/%s: %w", opt.Owner, opt.Repo, err)
	}
	w := &walked{def: repo.GetDefaultBranch()}
	full := repo.GetFullName()
	var mergeBase string
	if mergeBaseFirst && opt.Base != "" && opt.Head != "" {
		cmp, _, err := g.Client.Repositories.CompareCommits(ctx, opt.Owner, opt.Repo, opt.Base, opt.Head, &github.ListOptions{PerPage: 1})
		if err == nil {
			mergeBase = cmp.GetMergeBaseCommit().GetSHA()
		}
	}
	// go-github v62 does not decode a run's workflow path: a request of our
	// own, so rejectRun can check it.
	u := fmt.Sprintf("repos/%s/%s/actions/workflows/%s/runs?branch=%s&status=success&per_page=%d", url.PathEscape(opt.Owner), url.PathEscape(opt.Repo),
		url.PathEscape(opt.Workflow), url.QueryEscape(w.def), min(opt.MaxRuns, 100))
	req, err := g.Client.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	var runs struct {
		WorkflowRuns []*listedRun `json:"workflow_runs"`
	}
	if _, err := g.Client.Do(ctx, req, &runs); err != nil {
		if Forbidden(err) {
			return nil, &Missing{Reason: fmt.Sprintf("the runs of workflow %q cannot be listed (%v): is the file name right, and may the token read actions?", opt.Workflow, err)}
		}
		return nil, fmt.Errorf("list runs of workflow %s: %w", opt.Workflow, err)
	}
	ordered := make([]*listedRun, 0, len(runs.WorkflowRuns))
	for _, r := range runs.WorkflowRuns {
		if r == nil {
			continue
		}
		if mergeBase != "" && r.GetHeadSHA() == mergeBase {
			ordered = append([]*listedRun{r}, ordered...)
		} else {
			ordered = append(ordered, r)
		}
	}
	w.listed = len(ordered)
	for _, r := range ordered {
		if why := rejectRun(r, w.def, full, opt.Workflow); why != "" {
			w.skipped = append(w.skipped, fmt.Sprintf("run %d: %s", r.GetID(), why))
			continue
		}
		env, data, why, err := g.runBaseline(ctx, opt, r.GetID())
		if err != nil {
			return nil, err
		}
		if why != "" {
			w.skipped = append(w.skipped, fmt.Sprintf("run %d: %s", r.GetID(), why))
			continue
		}
		more, err := keep(&r.WorkflowRun, env, data)
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	return w, nil
}

// rejectRun says why a run may not supply a baseline, or "". The listing
// asked for the runs of workflow on the default branch that succeeded; each
// run's own fields are checked all the same, so a listing that ignored a
// filter (or was answered by something else) supplies nothing.
func rejectRun(r *listedRun, def, full, workflow string) string {
	switch {
	case !baselineEvents[r.GetEvent()]:
		return fmt.Sprintf("event %s is not push, schedule or workflow_dispatch", quote(r.GetEvent()))
	case r.GetHeadRepository().GetFullName() != full:
		return fmt.Sprintf("its head repository %s is not %s (a fork's branch)", quote(r.GetHeadRepository().GetFullName()), full)
	case r.GetHeadBranch() != def:
		return fmt.Sprintf("branch %s is not the default branch %s", quote(r.GetHeadBranch()), def)
	case r.GetStatus() != "completed" || r.GetConclusion() != "success":
		return fmt.Sprintf("it did not succeed (%s/%s)", quote(r.GetStatus()), quote(r.GetConclusion()))
	case workflow != "" && r.Path != nil && *r.Path != "" && runWorkflow(*r.Path) != workflow:
		return fmt.Sprintf("it is a run of workflow %s, not %s", quote(*r.Path), workflow)
	}
	return ""
}

// listedRun is a workflow run as the API lists it, with its workflow's
// path (go-github v62 does not decode it).
type listedRun struct {
	github.WorkflowRun
	Path *string `json:"path"`
}

// runWorkflow is the file name of a run's workflow path
// (".github/workflows/mcptest-baseline.yml", with or without "@ref").
func runWorkflow(p string) string {
	p, _, _ = strings.Cut(p, "@")
	return path.Base(p)
}

// runBaseline reads the baseline artifact of one run: the envelope and
// the entry's bytes; why says why the run has none usable.
func (g *GitHub) runBaseline(ctx context.Context, opt FetchOptions, runID int64) (*report.Envelope, []byte, string, error) {
	data, why, err := g.RunArtifact(ctx, opt.Owner, opt.Repo, runID, opt.Artifact, opt.Entry, opt.MaxBytes)
	if err != nil || why != "" {
		return nil, nil, why, err
	}
	env, err := ReadBaseline(bytes.NewReader(data), fmt.Sprintf("artifact %s of run %d", opt.Artifact, runID))
	if err != nil {
		return nil, nil, err.Error(), nil
	}
	if env.SchemaVersion != report.SchemaVersion {
		return nil, nil, fmt.Sprintf("its envelope has schema_version %d, this mcptest reads %d", env.SchemaVersion, report.SchemaVersion), nil
	}
	return env, data, "", nil
}

// RunArtifact downloads the artifact called name of a run and returns its
// entry. why says why it is unusable (absent, expired, too large, a bad
// archive); err is an API failure.
func (g *GitHub) RunArtifact(ctx context.Context, owner, repo string, runID int64, name, entry string, max int64) (data []byte, why string, err error) {
	// go-github v62 has no name filter: a request of our own.
	u := fmt.Sprintf("repos/%s/%s/actions/runs/%d/artifacts?name=%s&per_page=100", url.PathEscape(owner), url.PathEscape(repo), runID, url.QueryEscape(name))
	req, err := g.Client.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	var list struct {
		Artifacts []*listedArtifact `json:"artifacts"`
	}
	if _, err := g.Client.Do(ctx, req, &list); err != nil {
		if Forbidden(err) {
			return nil, fmt.Sprintf("its artifacts cannot be listed: %v", err), nil
		}
		return nil, "", fmt.Errorf("list artifacts of run %d: %w", runID, err)
	}
	var art *listedArtifact
	for _, a := range list.Artifacts {
		if a != nil && a.GetName() == name {
			art = a
			break
		}
	}
	switch {
	case art == nil:
		return nil, fmt.Sprintf("no artifact named %q", name), nil
	case art.WorkflowRun != nil && art.WorkflowRun.GetID() != 0 && art.WorkflowRun.GetID() != runID:
		return nil, fmt.Sprintf("artifact %q is listed under run %d but says it belongs to run %d", name, runID, art.WorkflowRun.GetID()), nil
	case art.GetExpired():
		return nil, fmt.Sprintf("artifact %q expired", name), nil
	case art.GetSizeInBytes() > max:
		return nil, fmt.Sprintf("artifact %q is %d bytes, over the %d-byte cap", name, art.GetSizeInBytes(), max), nil
	}
	zipped, why, err := g.download(ctx, owner, repo, art.GetID(), max)
	if err != nil || why != "" {
		return nil, why, err
	}
	if why := checkDigest(zipped, art.Digest); why != "" {
		return nil, fmt.Sprintf("artifact %q: %s", name, why), nil
	}
	out, err := ReadArtifactEntry(zipped, entry, max)
	if err != nil {
		return nil, err.Error(), nil
	}
	return out, "", nil
}

// listedArtifact is an artifact as the API lists it, with the digest
// upload-artifact v4 and later record (go-github v62 does not decode it).
type listedArtifact struct {
	github.Artifact
	Digest *string `json:"digest"`
}

// checkDigest says why a downloaded zip does not match the digest the API
// lists for it ("sha256:<hex>"), or "". An artifact of an older
// upload-artifact has none (null), and is checked by its size alone; a
// digest of another form is refused, not skipped, so a listing cannot turn
// the check off by naming an algorithm this mcptest does not know.
func checkDigest(zipped []byte, digest *string) string {
	if digest == nil || *digest == "" {
		return ""
	}
	hexSum, ok := strings.CutPrefix(*digest, "sha256:")
	if !ok || len(hexSum) != sha256.Size*2 {
		return fmt.Sprintf("its digest %s is not sha256:<64 hex digits>", quote(*digest))
	}
	sum := sha256.Sum256(zipped)
	if !strings.EqualFold(hexSum, hex.EncodeToString(sum[:])) {
		return fmt.Sprintf("its download does not match its digest %s (forged or corrupt)", quote(*digest))
	}
	return ""
}

// download asks for an artifact's zip without following the redirect,
// then fetches the signed URL with a plain client under the byte cap. The
// signed URL is never logged.
func (g *GitHub) download(ctx context.Context, owner, repo string, id, max int64) ([]byte, string, error) {
	u := fmt.Sprintf("repos/%s/%s/actions/artifacts/%d/zip", url.PathEscape(owner), url.PathEscape(repo), id)
	req, err := g.Client.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := g.raw.Do(req.WithContext(ctx))
	if err != nil {
		return nil, "", fmt.Errorf("download artifact %d: %w", id, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusFound, http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusSeeOther:
	case http.StatusGone:
		return nil, fmt.Sprintf("artifact %d expired (410 Gone)", id), nil
	case http.StatusForbidden, http.StatusNotFound:
		return nil, fmt.Sprintf("artifact %d cannot be downloaded (HTTP %d): may the token read actions?", id, resp.StatusCode), nil
	default:
		return nil, "", &APIError{Op: fmt.Sprintf("download artifact %d", id), Status: resp.StatusCode}
	}
	loc, err := resp.Location()
	if err != nil {
		return nil, "", fmt.Errorf("download artifact %d: a redirect without a usable Location", id)
	}
	if loc.Scheme != "https" && loc.Scheme != "http" {
		return nil, "", fmt.Errorf("download artifact %d: the redirect is not to an http(s) URL", id)
	}
	greq, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
	if err != nil {
		return nil, "", fmt.Errorf("download artifact %d: %w", id, err)
	}
	gresp, err := g.plain.Do(greq)
	if err != nil {
		// The error text holds the signed URL: say where, not what.
		return nil, "", fmt.Errorf("download artifact %d from %s: the request failed", id, loc.Host)
	}
	defer gresp.Body.Close()
	if gresp.StatusCode != http.StatusOK {
		if gresp.StatusCode == http.StatusGone || gresp.StatusCode == http.StatusForbidden || gresp.StatusCode == http.StatusNotFound {
			return nil, fmt.Sprintf("the signed download URL of artifact %d answered HTTP %d (expired?)", id, gresp.StatusCode), nil
		}
		return nil, "", &APIError{Op: fmt.Sprintf("download artifact %d from %s", id, loc.Host), Status: gresp.StatusCode}
	}
	if gresp.ContentLength > max {
		return nil, fmt.Sprintf("artifact %d's download is %d bytes, over the %d-byte cap", id, gresp.ContentLength, max), nil
	}
	data, err := safefile.ReadAll("", gresp.Body, max)
	if safefile.IsLimit(err) {
		return nil, fmt.Sprintf("artifact %d's download is over the %d-byte cap", id, max), nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("download artifact %d from %s: read failed", id, loc.Host)
	}
	return data, "", nil
}
