package live

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// credentialLog stands in for another host: it records the Authorization
// header of every request it receives.
type credentialLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *credentialLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.seen = append(l.seen, r.Method+" "+r.URL.Path+" Authorization="+r.Header.Get("Authorization"))
	l.mu.Unlock()
	http.Error(w, "nothing here", http.StatusInternalServerError)
}

func (l *credentialLog) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// A server that redirects its client elsewhere never passes the bearer
// token on: a redirect to another origin is not followed, and the token
// goes only to the target's own origin. A redirect within the origin
// still works, token and all.
func TestBearerTokenStaysWithItsOrigin(t *testing.T) {
	other := &credentialLog{}
	elsewhere := httptest.NewServer(other)
	defer elsewhere.Close()
	getenv := func(k string) string { return map[string]string{"TOKEN": "good"}[k] }

	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/stolen", status)
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := Load(ctx, Target{URL: redirector.URL + "/mcp", BearerTokenEnv: "TOKEN"}, getenv)
		cancel()
		redirector.Close()
		if err == nil || !strings.Contains(err.Error(), "redirect from") {
			t.Errorf("HTTP %d to another origin: err %v, want the refused redirect", status, err)
		}
	}
	if got := other.requests(); len(got) > 0 {
		t.Errorf("the other host received %q", got)
	}

	// Within the origin: /old redirects to the real endpoint, which wants
	// the token.
	auth := authServer(t)
	mux := http.NewServeMux()
	same := httptest.NewServer(mux)
	defer same.Close()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		r.URL.Path = "/"
		auth.Config.Handler.ServeHTTP(w, r)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := Load(ctx, Target{URL: same.URL + "/old", BearerTokenEnv: "TOKEN"}, getenv); err != nil {
		t.Errorf("a redirect within the origin: %v", err)
	}
}

func TestOriginOf(t *testing.T) {
	for raw, want := range map[string]string{
		"http://Example.COM/mcp":         "http://example.com:80",
		"http://example.com:80/x":        "http://example.com:80",
		"HTTPS://example.com/":           "https://example.com:443",
		"http://declared@attacker:9/mcp": "http://attacker:9",
		"http://[::1]:8080/mcp":          "http://[::1]:8080",
		"not a url":                      "",
		"http://%zz/":                    "",
	} {
		if got := originOf(raw); got != want {
			t.Errorf("originOf(%q) = %q, want %q", raw, got, want)
		}
	}
}
