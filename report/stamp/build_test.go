package stamp

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestBuildComplete pins where the version comes from: -ldflags first,
// then the module version of a `go install ...@vX` build, then the source
// tree's.
func TestBuildComplete(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-11-23T10:00:00Z"}}
	tests := []struct {
		name string
		b    Build
		bi   *debug.BuildInfo
		want Build
	}{
		{"no build info", Build{Version: SourceVersion}, nil, Build{Version: SourceVersion}},
		{"go install @v1.4.0", Build{Version: SourceVersion}, &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, Build{Version: "1.4.0"}},
		{"go install @commit", Build{Version: SourceVersion}, &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261123100000-0123456789ab"}},
			Build{"0.0.0-20261123100000-0123456789ab", "0123456789ab", "2026-11-23T10:00:00Z"}},
		{"go install @commit after v1.4.0", Build{Version: SourceVersion}, &debug.BuildInfo{Main: debug.Module{Version: "v1.4.1-0.20261123100000-0123456789ab"}},
			Build{"1.4.1-0.20261123100000-0123456789ab", "0123456789ab", "2026-11-23T10:00:00Z"}},
		{"clone build", Build{Version: SourceVersion}, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, Build{SourceVersion, "0123abc", "2026-11-23T10:00:00Z"}},
		{"release ldflags win", Build{"1.5.0", "fff", "2026-01-01T00:00:00Z"}, &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: vcs}, Build{"1.5.0", "fff", "2026-01-01T00:00:00Z"}},
	}
	for _, tt := range tests {
		if got := tt.b.Complete(tt.bi); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestBuildWrite: the commit and date show only when recorded, and not
// goreleaser's placeholders.
func TestBuildWrite(t *testing.T) {
	var b strings.Builder
	Build{"1.2.3", "none", "0001-01-01T00:00:00Z"}.Write(&b)
	if !strings.HasPrefix(b.String(), "mcptest 1.2.3\n") || strings.Contains(b.String(), "commit:") || strings.Contains(b.String(), "committed:") {
		t.Errorf("placeholders shown:\n%s", b.String())
	}
	b.Reset()
	Build{"1.2.3", "abc", "2026-11-23T10:00:00Z"}.Write(&b)
	if !strings.Contains(b.String(), "commit:    abc\ncommitted: 2026-11-23T10:00:00Z\n") {
		t.Errorf("commit and date not shown:\n%s", b.String())
	}
}

// TestBuildCacheKey: a stamped build is keyed by its version, an unstamped
// one (this test binary) by the digest of its executable.
func TestBuildCacheKey(t *testing.T) {
	if k := (Build{Version: "1.4.0"}).CacheKey(); k != "1.4.0" {
		t.Errorf("a release: %q", k)
	}
	k := Build{Version: SourceVersion}.CacheKey()
	if !strings.HasPrefix(k, "dev-") || len(k) != len("dev-")+64 || (Build{Version: SourceVersion}).CacheKey() != k {
		t.Errorf("a development build: %q, want dev- and a stable sha256", k)
	}
}

// TestBuildRef: a release names its tag; the source tree's version, a
// pseudo-version and a version with build metadata name main.
func TestBuildRef(t *testing.T) {
	for v, want := range map[string]string{
		"1.4.0":                               "v1.4.0",
		"1.5.0-rc.1":                          "v1.5.0-rc.1",
		SourceVersion:                         "main",
		"":                                    "main",
		"0.0.0-20261127100000-abcdef123456":   "main",
		"1.4.1-0.20261127100000-abcdef123456": "main",
		"1.4.0+dirty":                         "main",
	} {
		if got := (Build{Version: v}).Ref(); got != want {
			t.Errorf("%q: ref %q, want %q", v, got, want)
		}
	}
}
