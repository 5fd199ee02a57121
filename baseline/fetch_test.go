package baseline

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestNewGitHubUserInfo: the API URL's user-info authenticates (as basic
// authentication when there is no token) but is in no error, whether the
// API answers 500 or nothing listens; an API URL that is not usable is
// refused without printing it.
func TestNewGitHubUserInfo(t *testing.T) {
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		http.Error(w, `{"message":"Server Error"}`, http.StatusInternalServerError)
	}))
	defer srv.Close()
	withUser := strings.Replace(srv.URL, "://", "://secret-user:secret-pass@", 1)
	for _, c := range []struct{ url, token, auth string }{
		{withUser, "", "Basic c2VjcmV0LXVzZXI6c2VjcmV0LXBhc3M="},
		{withUser, "ghs_x", "Bearer ghs_x"},
		{"http://secret-user:secret-pass@127.0.0.1:1", "ghs_x", ""},
	} {
		auth = nil
		gh, err := NewGitHub(GitHubOptions{APIURL: c.url, Token: c.token, Retries: 1, RetryDelay: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_, err = gh.FetchBaseline(context.Background(), FetchOptions{Owner: "acme", Repo: "agents", Workflow: "w.yml", Artifact: "a", Entry: "e"})
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: error %v; want one without the user-info", c.url, err)
		}
		if c.auth != "" && (len(auth) == 0 || auth[0] != c.auth) {
			t.Errorf("%s token %q: Authorization %q, want %q", c.url, c.token, auth, c.auth)
		}
	}
	for _, u := range []string{"ftp://secret-user:secret-pass@h/x?sig=secret", "http://secret-user:secret-pass@h:bad/", "http://secret-user:secret-pass@/x"} {
		_, err := NewGitHub(GitHubOptions{APIURL: u})
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %v; want a refusal that does not print the user-info", u, err)
		}
	}
}

// TestFetchBudgetRetryAfter: a Retry-After longer than what is left of the
// budget is not waited out: the fetch ends at once with the API's answer
// instead of sleeping until the deadline.
func TestFetchBudgetRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		http.Error(w, `{"message":"Service Unavailable"}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	gh, err := NewGitHub(GitHubOptions{APIURL: srv.URL, Token: "t", RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = gh.FetchBaseline(context.Background(), FetchOptions{Owner: "acme", Repo: "agents", Workflow: "w.yml", Artifact: "a", Entry: "e", Budget: 10 * time.Second})
	var m *Missing
	if err == nil || errors.As(err, &m) || !strings.Contains(err.Error(), "503") {
		t.Errorf("got %v, want the 503 answer", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s: the 60 s Retry-After was waited into the budget", took)
	}
}

// TestAPIAnswerBounded: an API answer that never ends (a broken proxy, a
// hostile server) is read up to a cap and refused, not decoded without
// end.
func TestAPIAnswerBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"default_branch":"`)
		chunk := bytes.Repeat([]byte("a"), 1<<16)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	gh, err := NewGitHub(GitHubOptions{APIURL: srv.URL, Token: "t", RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = gh.FetchBaseline(context.Background(), FetchOptions{Owner: "acme", Repo: "agents", Workflow: "w.yml", Artifact: "a", Entry: "e", Budget: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "over the 32 MiB cap") {
		t.Errorf("got %v, want the answer refused over its cap", err)
	}
}

// TestAPIRedirectNotPrinted: an API call redirected to another host (where
// signed URLs live) is not followed with the API client, so no error can
// carry the signed URL; the answer is the redirect itself.
func TestAPIRedirectNotPrinted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:1/blob?sig=SECRET-SIGNATURE", http.StatusFound)
	}))
	defer srv.Close()
	gh, err := NewGitHub(GitHubOptions{APIURL: srv.URL, Token: "t", Retries: 1, RetryDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = gh.FetchBaseline(context.Background(), FetchOptions{Owner: "acme", Repo: "agents", Workflow: "w.yml", Artifact: "a", Entry: "e"})
	if err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "302") {
		t.Errorf("got %v, want the 302 answer without the signed URL", err)
	}
}
