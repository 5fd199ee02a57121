package engine

import (
	"errors"
	"testing"
)

// TestCachePolicy: the workspace cache is off with Off, and on CI unless
// Force; a build that cannot identify itself or a directory that cannot be
// had turns it off with the reason; the build is computed only when
// wanted.
func TestCachePolicy(t *testing.T) {
	builds := 0
	build := func() string { builds++; return "b1" }
	dir := func() (string, error) { return "/tmp/cache", nil }
	for _, tc := range []struct {
		name string
		p    CachePolicy
		on   bool
		err  string
	}{
		{"default", CachePolicy{Build: build, Dir: dir}, true, ""},
		{"no-cache", CachePolicy{Off: true, Build: build, Dir: dir}, false, ""},
		{"on CI", CachePolicy{CI: true, Build: build, Dir: dir}, false, ""},
		{"forced on CI", CachePolicy{CI: true, Force: true, Build: build, Dir: dir}, true, ""},
		{"no build", CachePolicy{Build: func() string { return "" }, Dir: dir}, false, "this build cannot identify itself (its executable is unreadable)"},
		{"no dir", CachePolicy{Build: build, Dir: func() (string, error) { return "", errors.New("a link") }}, false, "a link"},
	} {
		builds = 0
		cache, b, err := tc.p.Open()
		if (cache != nil) != tc.on || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("%s: cache %v, err %v", tc.name, cache, err)
		}
		if tc.on && (b != "b1" || cache.(DirCache).Dir != "/tmp/cache") {
			t.Errorf("%s: build %q, cache %v", tc.name, b, cache)
		}
		if !tc.on && b != "" {
			t.Errorf("%s: build %q for a cache that is off", tc.name, b)
		}
		if (tc.p.Off || (tc.p.CI && !tc.p.Force)) && builds != 0 {
			t.Errorf("%s: the build was computed for a cache that is off", tc.name)
		}
	}
}
