package main

import (
	"os"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline/ghapitest"
)

// withUserInfo puts user:password in an http URL, as a GITHUB_API_URL
// pointing at a proxy with basic authentication would carry them.
func withUserInfo(u, userinfo string) string {
	return strings.Replace(u, "://", "://"+userinfo+"@", 1)
}

// everything is what a run leaves for anyone to read: its streams, the
// summary, the outputs file and what the API stand-in holds.
func everything(r *runner, res result, srv *ghapitest.Server) string {
	out, _ := os.ReadFile(r.env["GITHUB_OUTPUT"])
	all := res.stdout + res.stderr + res.summary + string(out)
	if srv != nil {
		srv.Lock()
		for _, c := range srv.Comments {
			all += c.Body
		}
		for _, is := range srv.Issues {
			all += is.Title + is.Body
		}
		srv.Unlock()
	}
	return all
}

// TestActionAPIURLNeverPrinted: the user-info of GITHUB_API_URL (and the
// signed query of an artifact download) appears in no stream, summary,
// output or comment, whether the API is unreachable, answers 500, refuses
// the comment, answers well, or the URL itself is not usable.
func TestActionAPIURLNeverPrinted(t *testing.T) {
	const userinfo = "secret-user:secret-pass"
	for _, c := range []struct {
		name  string
		setup func(srv *ghapitest.Server)
		url   func(srv *ghapitest.Server) string
		mode  string
	}{
		{name: "connection refused", url: func(*ghapitest.Server) string { return withUserInfo("http://127.0.0.1:1", userinfo) }},
		{name: "not an http URL", url: func(*ghapitest.Server) string { return withUserInfo("ftp://127.0.0.1:1/x?token=secret-q", userinfo) }},
		{name: "answers 500", setup: func(srv *ghapitest.Server) {
			for _, op := range []string{"repos/get", "issues/list-comments"} {
				srv.Fail5xx[op] = 1000
			}
		}},
		{name: "comment refused", setup: func(srv *ghapitest.Server) {
			srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
			srv.ForbidWrites = true
		}},
		{name: "answers", setup: func(srv *ghapitest.Server) {
			srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
		}},
		{name: "download 500", setup: func(srv *ghapitest.Server) {
			srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
			srv.Fail5xx["actions/download-artifact"] = 1000
		}},
		{name: "drift issue 500", mode: "schedule", setup: func(srv *ghapitest.Server) {
			srv.Runs = []*ghapitest.Run{goodRun(t, 41, "base0001")}
			srv.Fail5xx["issues/list-for-repo"] = 1000
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newServer(t)
			if c.setup != nil {
				c.setup(srv)
			}
			var r *runner
			if c.mode == "schedule" {
				r = newRunner(t, srv, "schedule", map[string]any{"schedule": "0 6 * * *"})
			} else {
				r = newRunner(t, srv, "pull_request", prEvent(7, "acme/agents", "head0001"))
			}
			r.env["GITHUB_API_URL"] = withUserInfo(srv.URL, userinfo)
			r.env["GITHUB_SERVER_URL"] = withUserInfo("https://github.example.com/?token=secret-q#secret-f", userinfo)
			if c.url != nil {
				r.env["GITHUB_API_URL"] = c.url(srv)
			}
			res := r.run()
			all := everything(r, res, srv)
			for _, bad := range []string{"secret", "SECRET-SIGNATURE"} {
				if i := strings.Index(all, bad); i >= 0 {
					t.Errorf("%q is printed: ...%s...", bad, all[max(0, i-120):min(len(all), i+60)])
				}
			}
			if res.code == ExitOK { // the suite fails: never a pass
				t.Errorf("exit 0\n%s%s", res.stdout, res.stderr)
			}
		})
	}
}
