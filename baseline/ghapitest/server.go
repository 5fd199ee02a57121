package ghapitest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Run is a workflow run the server knows.
type Run struct {
	ID         int64
	Workflow   string // file name: mcptest-baseline.yml
	Event      string
	HeadBranch string
	HeadRepo   string // owner/name
	HeadSHA    string
	Status     string // completed
	Conclusion string // success
	Artifacts  []*Artifact
}

// Artifact is a run's artifact; Zip is what its download serves.
type Artifact struct {
	ID      int64
	Name    string
	Size    int64 // size_in_bytes as listed; len(Zip) when 0
	Expired bool
	Gone    bool // the download answers 410
	Zip     []byte
	// Chunked serves the download without a Content-Length, so its size
	// is only known once read.
	Chunked bool
	// Digest is the digest listed: "" lists the zip's own sha256, as
	// upload-artifact v4 records it; NoDigest lists null, as for an
	// artifact of an older upload-artifact; anything else is listed as it
	// is (a forged or corrupt artifact).
	Digest string
	// ListedRun is the workflow_run.id the listing gives; 0 is the run's.
	ListedRun int64
}

// NoDigest as an Artifact's Digest lists the digest as null.
const NoDigest = "null"

// PR is a pull request.
type PR struct {
	Number            int
	HeadRef, HeadSHA  string
	HeadRepo, BaseSHA string
}

// Comment is an issue comment.
type Comment struct {
	ID    int64
	Issue int
	Body  string
	User  string
}

// Issue is an issue.
type Issue struct {
	Number      int
	Title, Body string
	State       string
	Labels      []string
}

// Server is the stand-in. Set its fields before the code under test runs;
// read them after (under Lock when concurrent).
type Server struct {
	*httptest.Server
	// Blob serves the signed artifact URLs, on another host, as GitHub's
	// storage does.
	Blob *httptest.Server

	sync.Mutex
	Owner, Name, DefaultBranch string
	Runs                       []*Run
	PRs                        []*PR
	Comments                   []*Comment
	Issues                     []*Issue
	// ForbidWrites answers 403 to every comment and issue write, as a
	// fork's read-only token gets.
	ForbidWrites bool
	// ListAll lists every run for any workflow, branch and status asked
	// for: a listing that ignores its filters, whose runs the client must
	// check one by one.
	ListAll bool
	// Fail5xx answers 502 to the next n requests of an operation id;
	// RateLimit answers a secondary rate limit (403 with Retry-After 0).
	Fail5xx   map[string]int
	RateLimit map[string]int
	// Hang holds the next n requests of an operation id for Hold before
	// answering, so the client's per-attempt timeout fires.
	Hang map[string]int
	Hold time.Duration
	// Delay holds every answer, of the API and of the signed artifact
	// URLs, for this long (or until the client gives up): a slow API.
	Delay time.Duration
	// Log lists the operations served, in order: "issues/create-comment".
	Log []string
	// BotLogin is the author of what the token writes.
	BotLogin string
	// Prefix is the API's path prefix: "/api/v3" on GitHub Enterprise
	// Server. Every request must carry it.
	Prefix string

	t      testing.TB
	spec   *Spec
	nextID int64
}

// New starts a stand-in for repository owner/name on loopback; the test
// fails on any request the description does not allow.
func New(t testing.TB, spec *Spec, owner, name string) *Server {
	s := &Server{Owner: owner, Name: name, DefaultBranch: "main", t: t, spec: spec, nextID: 9000,
		Fail5xx: map[string]int{}, RateLimit: map[string]int{}, Hang: map[string]int{}, BotLogin: "github-actions[bot]"}
	s.Server = httptest.NewServer(http.HandlerFunc(s.api))
	s.Blob = httptest.NewServer(http.HandlerFunc(s.blob))
	t.Cleanup(func() { s.Server.Close(); s.Blob.Close() })
	return s
}

// Full is owner/name.
func (s *Server) Full() string { return s.Owner + "/" + s.Name }

// Count counts the served operations with the id.
func (s *Server) Count(id string) int {
	s.Lock()
	defer s.Unlock()
	n := 0
	for _, l := range s.Log {
		if l == id {
			n++
		}
	}
	return n
}

func (s *Server) id() int64 { s.nextID++; return s.nextID }

// api serves one request to the API: checked against the description,
// held or failed as the test asked, then answered by its operation's
// handler.
func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if !s.delay(r) {
		return
	}
	opID, vars, ok := s.check(w, r, body)
	if !ok || s.hang(r, opID) {
		return
	}
	s.Lock()
	defer s.Unlock()
	s.Log = append(s.Log, opID)
	if s.refuse(w, opID, vars) {
		return
	}
	c := call{w: &checked{ResponseWriter: w, s: s, opID: opID}, r: r, vars: vars, q: r.URL.Query()}
	_ = json.Unmarshal(body, &c.in)
	h, ok := handlers[opID]
	if !ok {
		s.t.Errorf("GitHub API stand-in: %s %s (%s) is described but this stand-in does not serve it", r.Method, r.URL.Path, opID)
		writeJSON(w, 501, map[string]any{"message": "not served by the stand-in"})
		return
	}
	h(s, c)
}

// check checks a request against the API's description: under the
// prefix, a described operation with valid parameters and body, with an
// Authorization header. A request that fails is answered and fails the
// test.
func (s *Server) check(w http.ResponseWriter, r *http.Request, body []byte) (opID string, vars map[string]string, ok bool) {
	path, ok := strings.CutPrefix(r.URL.EscapedPath(), s.Prefix)
	if !ok {
		s.t.Errorf("GitHub API stand-in: %s %s is not under the API prefix %s", r.Method, r.URL.Path, s.Prefix)
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found"})
		return "", nil, false
	}
	opID, vars, err := s.spec.Check(r.Method, path, r.URL.Query(), body)
	if err != nil {
		s.t.Errorf("GitHub API stand-in: %v", err)
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": err.Error()})
		return "", nil, false
	}
	if r.Header.Get("Authorization") == "" {
		s.t.Errorf("GitHub API stand-in: %s %s without an Authorization header", r.Method, r.URL.Path)
	}
	return opID, vars, true
}

// hang holds a request to an operation in Hang for Hold (or until the
// client leaves) without answering; it reports whether it did.
func (s *Server) hang(r *http.Request, opID string) bool {
	s.Lock()
	hang := s.Hang[opID] > 0
	if hang {
		s.Hang[opID]--
	}
	s.Unlock()
	if hang {
		select {
		case <-time.After(s.Hold):
		case <-r.Context().Done():
		}
	}
	return hang
}

// refuse answers what the test set the stand-in to refuse: another
// repository (404), a 5xx, a secondary rate limit, a write with a
// read-only token. It reports whether it answered.
func (s *Server) refuse(w http.ResponseWriter, opID string, vars map[string]string) bool {
	switch {
	case vars["owner"] != s.Owner || vars["repo"] != s.Name:
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found"})
	case s.Fail5xx[opID] > 0:
		s.Fail5xx[opID]--
		writeJSON(w, http.StatusBadGateway, map[string]any{"message": "Server Error"})
	case s.RateLimit[opID] > 0:
		s.RateLimit[opID]--
		w.Header().Set("Retry-After", "0")
		writeJSON(w, http.StatusForbidden, map[string]any{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."})
	case s.ForbidWrites && (strings.HasPrefix(opID, "issues/create") || strings.HasPrefix(opID, "issues/update")):
		writeJSON(w, http.StatusForbidden, map[string]any{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest"})
	default:
		return false
	}
	return true
}

// call is one request a handler answers: its path variables, query and
// JSON body; w checks the answer against the description.
type call struct {
	w    http.ResponseWriter
	r    *http.Request
	vars map[string]string
	q    url.Values
	in   map[string]any
}

// handlers answer the operations the stand-in serves, by operation id.
var handlers = map[string]func(*Server, call){
	"repos/get":                           (*Server).getRepo,
	"repos/compare-commits-with-basehead": (*Server).compareCommits,
	"actions/list-workflow-runs":          (*Server).listRuns,
	"actions/list-workflow-run-artifacts": (*Server).listArtifacts,
	"actions/download-artifact":           (*Server).downloadArtifact,
	"pulls/list":                          (*Server).listPulls,
	"issues/list-comments":                (*Server).listComments,
	"issues/create-comment":               (*Server).createComment,
	"issues/update-comment":               (*Server).updateComment,
	"issues/list-for-repo":                (*Server).listIssues,
	"issues/create":                       (*Server).createIssue,
	"issues/update":                       (*Server).updateIssue,
}

func (s *Server) getRepo(c call) {
	repo := s.like("repos/get", "200", nil, s.repo())
	delete(repo, "parent") // GitHub's example is a fork; ours is not
	delete(repo, "source")
	writeJSON(c.w, 200, repo)
}

func (s *Server) compareCommits(c call) {
	base, _, _ := strings.Cut(c.vars["basehead"], "...")
	writeJSON(c.w, 200, s.like("repos/compare-commits-with-basehead", "200", nil, map[string]any{"status": "ahead", "ahead_by": 1, "behind_by": 0, "total_commits": 1,
		"merge_base_commit": map[string]any{"sha": base}, "base_commit": map[string]any{"sha": base}}))
}

func (s *Server) listRuns(c call) {
	var runs []any
	for i := len(s.Runs) - 1; i >= 0; i-- { // newest first
		run := s.Runs[i]
		if !s.ListAll && (run.Workflow != c.vars["workflow_id"] || (c.q.Get("branch") != "" && run.HeadBranch != c.q.Get("branch")) ||
			(c.q.Get("status") == "success" && run.Conclusion != "success")) {
			continue
		}
		runs = append(runs, s.like("actions/list-workflow-runs", "200", []string{"workflow_runs"}, s.runJSON(run)))
	}
	writeJSON(c.w, 200, map[string]any{"total_count": len(runs), "workflow_runs": orEmpty(runs)})
}

func (s *Server) listArtifacts(c call) {
	id, _ := strconv.ParseInt(c.vars["run_id"], 10, 64)
	var arts []any
	for _, run := range s.Runs {
		if run.ID != id {
			continue
		}
		for _, a := range run.Artifacts {
			if c.q.Get("name") == "" || c.q.Get("name") == a.Name {
				arts = append(arts, s.like("actions/list-workflow-run-artifacts", "200", []string{"artifacts"}, s.artifactJSON(run, a)))
			}
		}
	}
	writeJSON(c.w, 200, map[string]any{"total_count": len(arts), "artifacts": orEmpty(arts)})
}

func (s *Server) downloadArtifact(c call) {
	id, _ := strconv.ParseInt(c.vars["artifact_id"], 10, 64)
	for _, run := range s.Runs {
		for _, a := range run.Artifacts {
			if a.ID != id {
				continue
			}
			if a.Gone || a.Expired {
				writeJSON(c.w, http.StatusGone, map[string]any{"message": "Artifact has expired"})
				return
			}
			c.w.Header().Set("Location", fmt.Sprintf("%s/artifacts/%d.zip?sig=SECRET-SIGNATURE&se=%d", s.Blob.URL, id, time.Now().Add(time.Minute).Unix()))
			c.w.WriteHeader(http.StatusFound)
			return
		}
	}
	writeJSON(c.w, 404, map[string]any{"message": "Not Found"})
}

func (s *Server) listPulls(c call) {
	var prs []any
	for _, pr := range s.PRs {
		owner, _, _ := strings.Cut(pr.HeadRepo, "/")
		if h := c.q.Get("head"); h != "" && h != owner+":"+pr.HeadRef {
			continue
		}
		prs = append(prs, s.like("pulls/list", "200", nil, s.prJSON(pr)))
	}
	writeJSON(c.w, 200, orEmpty(prs))
}

func (s *Server) listComments(c call) {
	n, _ := strconv.Atoi(c.vars["issue_number"])
	var all []any
	for _, cm := range s.Comments {
		if cm.Issue == n {
			all = append(all, s.like("issues/list-comments", "200", nil, s.commentJSON(cm)))
		}
	}
	s.paginate(c.w, c.r, all)
}

func (s *Server) createComment(c call) {
	n, _ := strconv.Atoi(c.vars["issue_number"])
	cm := &Comment{ID: s.id(), Issue: n, Body: c.in["body"].(string), User: s.BotLogin}
	s.Comments = append(s.Comments, cm)
	writeJSON(c.w, 201, s.like("issues/create-comment", "201", nil, s.commentJSON(cm)))
}

func (s *Server) updateComment(c call) {
	id, _ := strconv.ParseInt(c.vars["comment_id"], 10, 64)
	for _, cm := range s.Comments {
		if cm.ID != id {
			continue
		}
		if cm.User != s.BotLogin {
			writeJSON(c.w, 403, map[string]any{"message": "Resource not accessible by integration"})
			return
		}
		cm.Body = c.in["body"].(string)
		writeJSON(c.w, 200, s.like("issues/update-comment", "200", nil, s.commentJSON(cm)))
		return
	}
	writeJSON(c.w, 404, map[string]any{"message": "Not Found"})
}

func (s *Server) listIssues(c call) {
	var all []any
	for _, is := range s.Issues {
		if st := c.q.Get("state"); st != "" && st != "all" && st != is.State {
			continue
		}
		if l := c.q.Get("labels"); l != "" && !contains(is.Labels, l) {
			continue
		}
		all = append(all, s.issue("issues/list-for-repo", "200", is))
	}
	s.paginate(c.w, c.r, all)
}

func (s *Server) createIssue(c call) {
	is := &Issue{Number: 100 + len(s.Issues), State: "open"}
	is.Title, _ = c.in["title"].(string)
	is.Body, _ = c.in["body"].(string)
	if ls, ok := c.in["labels"].([]any); ok {
		for _, l := range ls {
			if str, ok := l.(string); ok {
				is.Labels = append(is.Labels, str)
			}
		}
	}
	s.Issues = append(s.Issues, is)
	writeJSON(c.w, 201, s.issue("issues/create", "201", is))
}

func (s *Server) updateIssue(c call) {
	n, _ := strconv.Atoi(c.vars["issue_number"])
	for _, is := range s.Issues {
		if is.Number != n {
			continue
		}
		if v, ok := c.in["title"].(string); ok {
			is.Title = v
		}
		if v, ok := c.in["body"].(string); ok {
			is.Body = v
		}
		if v, ok := c.in["state"].(string); ok {
			is.State = v
		}
		writeJSON(c.w, 200, s.issue("issues/update", "200", is))
		return
	}
	writeJSON(c.w, 404, map[string]any{"message": "Not Found"})
}

// blob serves signed artifact URLs; a request carrying credentials fails
// the test, as the token must never leave the API host.
func (s *Server) blob(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		s.t.Errorf("GitHub API stand-in: the signed artifact URL was fetched with an Authorization header")
	}
	if !s.delay(r) {
		return
	}
	if r.URL.Query().Get("sig") != "SECRET-SIGNATURE" {
		http.Error(w, "bad signature", http.StatusForbidden)
		return
	}
	idText := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/artifacts/"), ".zip")
	id, _ := strconv.ParseInt(idText, 10, 64)
	s.Lock()
	defer s.Unlock()
	s.Log = append(s.Log, "blob")
	for _, run := range s.Runs {
		for _, a := range run.Artifacts {
			if a.ID == id {
				w.Header().Set("Content-Type", "application/zip")
				if !a.Chunked {
					w.Header().Set("Content-Length", strconv.Itoa(len(a.Zip)))
				}
				_, _ = w.Write(a.Zip)
				return
			}
		}
	}
	http.NotFound(w, r)
}

// delay waits Delay before an answer; false when the client gave up first,
// and then there is nothing to answer.
func (s *Server) delay(r *http.Request) bool {
	s.Lock()
	d := s.Delay
	s.Unlock()
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
		return false
	}
}

func (s *Server) paginate(w http.ResponseWriter, r *http.Request, all []any) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 || per > 100 {
		per = 30
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page <= 0 {
		page = 1
	}
	lo, hi := min((page-1)*per, len(all)), min(page*per, len(all))
	if hi < len(all) {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(page+1))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, s.URL, u.RequestURI()))
	}
	writeJSON(w, 200, orEmpty(all[lo:hi]))
}

func (s *Server) repo() map[string]any {
	return map[string]any{"id": 1296269, "name": s.Name, "full_name": s.Full(), "default_branch": s.DefaultBranch, "private": false,
		"owner":    map[string]any{"login": s.Owner, "id": 1, "type": "Organization"},
		"html_url": "https://github.com/" + s.Full(), "fork": false, "language": "Go"}
}

func (s *Server) runJSON(r *Run) map[string]any {
	owner, name, _ := strings.Cut(r.HeadRepo, "/")
	return map[string]any{"id": r.ID, "name": "mcptest baseline", "head_branch": r.HeadBranch, "head_sha": r.HeadSHA,
		"path": ".github/workflows/" + r.Workflow, "run_number": r.ID % 1000, "event": r.Event, "status": r.Status,
		"conclusion": r.Conclusion, "workflow_id": 161335, "html_url": fmt.Sprintf("https://github.com/%s/actions/runs/%d", s.Full(), r.ID),
		"created_at": "2026-11-20T10:00:00Z", "updated_at": "2026-11-20T10:05:00Z",
		"repository":      s.repo(),
		"head_repository": map[string]any{"id": 2, "name": name, "full_name": r.HeadRepo, "owner": map[string]any{"login": owner}},
		"pull_requests":   []any{}}
}

func (s *Server) artifactJSON(r *Run, a *Artifact) map[string]any {
	size := a.Size
	if size == 0 {
		size = int64(len(a.Zip))
	}
	var digest any = a.Digest
	switch a.Digest {
	case "":
		sum := sha256.Sum256(a.Zip)
		digest = "sha256:" + hex.EncodeToString(sum[:])
	case NoDigest:
		digest = nil
	}
	runID := r.ID
	if a.ListedRun != 0 {
		runID = a.ListedRun
	}
	return map[string]any{"id": a.ID, "node_id": "MDg6QXJ0aWZhY3QxMQ==", "name": a.Name, "size_in_bytes": size, "digest": digest,
		"url":                  fmt.Sprintf("%s/repos/%s/actions/artifacts/%d", s.URL, s.Full(), a.ID),
		"archive_download_url": fmt.Sprintf("%s/repos/%s/actions/artifacts/%d/zip", s.URL, s.Full(), a.ID),
		"expired":              a.Expired, "created_at": "2026-11-20T10:05:00Z", "expires_at": "2027-02-18T10:05:00Z",
		"workflow_run": map[string]any{"id": runID, "repository_id": 1296269, "head_branch": r.HeadBranch, "head_sha": r.HeadSHA}}
}

func (s *Server) prJSON(p *PR) map[string]any {
	owner, name, _ := strings.Cut(p.HeadRepo, "/")
	return map[string]any{"number": p.Number, "state": "open", "title": "a change", "requested_teams": []any{},
		"head": map[string]any{"ref": p.HeadRef, "sha": p.HeadSHA, "label": owner + ":" + p.HeadRef,
			"repo": map[string]any{"name": name, "full_name": p.HeadRepo, "fork": p.HeadRepo != s.Full(), "owner": map[string]any{"login": owner}}},
		"base": map[string]any{"ref": s.DefaultBranch, "sha": p.BaseSHA, "repo": s.repo()}}
}

func (s *Server) commentJSON(c *Comment) map[string]any {
	return map[string]any{"id": c.ID, "body": c.Body, "user": map[string]any{"login": c.User, "type": "Bot"},
		"html_url":   fmt.Sprintf("https://github.com/%s/pull/%d#issuecomment-%d", s.Full(), c.Issue, c.ID),
		"created_at": "2026-11-20T10:05:00Z", "updated_at": "2026-11-20T10:05:00Z"}
}

func (s *Server) issueJSON(is *Issue) map[string]any {
	labels := []any{}
	for _, l := range is.Labels {
		labels = append(labels, map[string]any{"name": l})
	}
	return map[string]any{"number": is.Number, "id": 500000 + is.Number, "title": is.Title, "body": is.Body, "state": is.State,
		"labels": labels, "user": map[string]any{"login": s.BotLogin}, "html_url": fmt.Sprintf("https://github.com/%s/issues/%d", s.Full(), is.Number)}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func orEmpty(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func contains(list []string, csv string) bool {
	want := strings.Split(csv, ",")
	sort.Strings(want)
	for _, w := range want {
		found := false
		for _, l := range list {
			if l == w {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// like returns GitHub's own example of an operation's answer (the first
// item of a list, or the list's object) with the fields of over laid on it,
// maps merged key by key: realistic payloads with our values.
func (s *Server) like(opID, status string, path []string, over map[string]any) map[string]any {
	ex := s.spec.Example(opID, status)
	for _, k := range path {
		if m, ok := ex.(map[string]any); ok {
			ex = m[k]
		}
	}
	if l, ok := ex.([]any); ok && len(l) > 0 {
		ex = l[0]
	}
	base, ok := ex.(map[string]any)
	if !ok {
		base = map[string]any{}
	}
	merge(base, over)
	return base
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// issue is an issue answer; GitHub's example is of an issue that is a pull
// request, which ours are not.
func (s *Server) issue(opID, status string, is *Issue) map[string]any {
	m := s.like(opID, status, nil, s.issueJSON(is))
	delete(m, "pull_request")
	m["labels"] = s.issueJSON(is)["labels"]
	return m
}

// checked validates every JSON answer against the description, so the
// stand-in's payloads are GitHub's shapes, not guesses.
type checked struct {
	http.ResponseWriter
	s      *Server
	opID   string
	status int
}

func (c *checked) WriteHeader(code int) {
	c.status = code
	c.ResponseWriter.WriteHeader(code)
}

func (c *checked) Write(b []byte) (int, error) {
	if c.status >= 200 && c.status < 300 {
		if err := c.s.spec.CheckResponse(c.opID, c.status, b); err != nil {
			c.s.t.Errorf("GitHub API stand-in: its own %d answer to %s does not match the description: %v", c.status, c.opID, err)
		}
	}
	return c.ResponseWriter.Write(b)
}
