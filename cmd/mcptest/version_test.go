package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestBuildVersion pins where the version comes from: -ldflags first, then
// the module version of a `go install ...@vX` build, then the source tree's.
func TestBuildVersion(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-11-23T10:00:00Z"}}
	tests := []struct {
		name                string
		ver, rev, at        string
		bi                  *debug.BuildInfo
		wantV, wantC, wantD string
	}{
		{"no build info", sourceVersion, "", "", nil, sourceVersion, "", ""},
		{"go install @v1.4.0", sourceVersion, "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "1.4.0", "", ""},
		{"clone build", sourceVersion, "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, sourceVersion, "0123abc", "2026-11-23T10:00:00Z"},
		{"release ldflags win", "1.5.0", "fff", "2026-01-01T00:00:00Z", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: vcs}, "1.5.0", "fff", "2026-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		v, c, d := buildVersion(tt.ver, tt.rev, tt.at, tt.bi)
		if v != tt.wantV || c != tt.wantC || d != tt.wantD {
			t.Errorf("%s: got %q %q %q, want %q %q %q", tt.name, v, c, d, tt.wantV, tt.wantC, tt.wantD)
		}
	}
}

// TestVersionFlags checks that --version, -v and `version` print the
// version on stdout and exit 0, as CLIs do.
func TestVersionFlags(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-v"} {
		stdout, stderr, code := mcptest(t, nil, arg)
		if code != ExitOK || stderr != "" || !strings.HasPrefix(stdout, "mcptest "+version+"\n") {
			t.Errorf("mcptest %s: exit %d, stdout %q, stderr %q", arg, code, stdout, stderr)
		}
	}
}

// TestBuildIDOfADevelopmentBuild: an unstamped build (this test binary)
// keys the result cache by the digest of its executable.
func TestBuildIDOfADevelopmentBuild(t *testing.T) {
	id := buildID()
	if !strings.HasPrefix(id, "dev-") || len(id) != len("dev-")+64 || buildID() != id {
		t.Errorf("buildID() = %q, want dev- and a stable sha256", id)
	}
}
