package stamp

import (
	"regexp"
	"testing"
	"time"

	"github.com/mcptest/mcptest/report"
)

func TestNewRunIDSortsByTime(t *testing.T) {
	shape := regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{26}$`)
	t0 := time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC)
	a, b := NewRunID(t0), NewRunID(t0.Add(time.Millisecond))
	if !shape.MatchString(a) || !shape.MatchString(b) {
		t.Fatalf("ids %q %q are not ULIDs", a, b)
	}
	if a[:10] >= b[:10] {
		t.Errorf("time part %q is not before %q", a[:10], b[:10])
	}
	if c := NewRunID(t0); c == a {
		t.Errorf("two ids of the same millisecond are equal: %q", c)
	}
}

func TestSourceAndEnvironment(t *testing.T) {
	env := map[string]string{"GITHUB_REPOSITORY": "acme/agents", "GITHUB_SHA": "cafe", "GITHUB_REF_NAME": "main",
		"GITHUB_ACTIONS": "true", "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"}
	get := func(k string) string { return env[k] }
	if s := Source(get); *s != (report.Source{Repo: "acme/agents", Branch: "main", Commit: "cafe"}) {
		t.Errorf("source %+v", *s)
	}
	env["GITHUB_HEAD_REF"] = "feature"
	if s := Source(get); s.Branch != "feature" {
		t.Errorf("branch %q, want the head ref of a pull request", s.Branch)
	}
	if e := Environment(get); e.CI != "github-actions" || e.Runner != "Linux/X64" {
		t.Errorf("environment %+v", *e)
	}
	none := func(string) string { return "" }
	if Source(none) != nil {
		t.Error("a source without any CI variable")
	}
	if e := Environment(func(k string) string { return map[string]string{"CI": "1"}[k] }); e.CI != "ci" || e.Runner != "" {
		t.Errorf("environment on a generic CI %+v", *e)
	}
}

// TestOnCI: CI or GITHUB_ACTIONS set to any true value of strconv.ParseBool.
func TestOnCI(t *testing.T) {
	for env, want := range map[[2]string]bool{
		{"", ""}: false, {"true", ""}: true, {"1", ""}: true, {"", "TRUE"}: true,
		{"false", "0"}: false, {"yes", ""}: false,
	} {
		get := func(k string) string {
			return map[string]string{"CI": env[0], "GITHUB_ACTIONS": env[1]}[k]
		}
		if got := OnCI(get); got != want {
			t.Errorf("OnCI with CI=%q GITHUB_ACTIONS=%q = %v, want %v", env[0], env[1], got, want)
		}
	}
}

// TestRemoteURL: a remote's credentials, query and fragment never reach
// the envelope; a line that is not one line of text is dropped.
func TestRemoteURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/o/r.git":                       "https://github.com/o/r.git",
		"https://x-access-token:ghs_secret@github.com/o/r": "https://github.com/o/r",
		"https://user@example.com/o/r.git?token=abc#frag":  "https://example.com/o/r.git",
		"ssh://git@github.com/o/r.git":                     "ssh://github.com/o/r.git",
		"git@github.com:o/r.git":                           "git@github.com:o/r.git",
		"user:secret@github.com:o/r.git":                   "github.com:o/r.git",
		"/srv/git/r.git":                                   "/srv/git/r.git",
		"https://github.com/o/r\x1b[2J":                    "",
		"":                                                 "",
	} {
		if got := RemoteURL(in); got != want {
			t.Errorf("RemoteURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadStatus reads git's porcelain v2 status: the commit, the branch,
// a change; no commit before the first, no branch when detached.
func TestReadStatus(t *testing.T) {
	for in, want := range map[string]report.Source{
		"# branch.oid 0123abc\n# branch.head main\n":                                 {Commit: "0123abc", Branch: "main"},
		"# branch.oid 0123abc\n# branch.head (detached)\n1 .M N... 100644 a b c f\n": {Commit: "0123abc", Dirty: true},
		"# branch.oid (initial)\n# branch.head main\n? new.txt\n":                    {Branch: "main", Dirty: true},
		"": {},
	} {
		if got := readStatus([]byte(in)); got != want {
			t.Errorf("%q: %+v, want %+v", in, got, want)
		}
	}
	if s := GitSource(t.TempDir()); s != nil {
		t.Errorf("a directory outside any repository has a source: %+v", s)
	}
}
