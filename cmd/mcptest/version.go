package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

// commit and date are the release's commit and build time (RFC 3339),
// set with -ldflags by the release build; empty elsewhere.
var (
	commit = ""
	date   = ""
)

func init() {
	bi, _ := debug.ReadBuildInfo()
	version, commit, date = buildVersion(version, commit, date, bi)
}

// buildVersion fills what -ldflags left unset from the binary's build info:
// a `go install github.com/mcptest/mcptest/cmd/mcptest@v1.2.3` build carries
// its module version, and a build from a clone its VCS revision and time.
// The leading "v" of a module version is dropped, as goreleaser does.
func buildVersion(ver, rev, at string, bi *debug.BuildInfo) (string, string, string) {
	if bi == nil {
		return ver, rev, at
	}
	if v := bi.Main.Version; ldflagsUnset(ver) && v != "" && v != "(devel)" {
		ver = strings.TrimPrefix(v, "v")
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && rev == "":
			rev = s.Value
		case s.Key == "vcs.time" && at == "":
			at = s.Value
		}
	}
	return ver, rev, at
}

// sourceVersion is version's value in the source tree.
const sourceVersion = "0.1.0"

// ldflagsUnset reports whether the release build left version alone.
func ldflagsUnset(v string) bool { return v == sourceVersion }

// writeVersion prints `mcptest VERSION`, then the commit and build date
// when the build recorded them, then the Go version and platform.
func writeVersion(w io.Writer) {
	fmt.Fprintf(w, "mcptest %s\n", version)
	// goreleaser stamps "none" and the zero time when it cannot read git.
	if commit != "" && commit != "none" {
		fmt.Fprintf(w, "commit:   %s\n", commit)
	}
	if date != "" && !strings.HasPrefix(date, "0001-") {
		fmt.Fprintf(w, "built:    %s\n", date)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(w, "go:       %s\n", bi.GoVersion)
	}
}

// buildID identifies this build for the result cache: the version when the
// build was stamped (a release, or `go install ...@vX`), else the digest of
// the executable itself, so a development build (`go run`, `go build` in a
// clone) never serves results another build computed. "" when the
// executable cannot be read, which turns the cache off.
func buildID() string {
	if !ldflagsUnset(version) {
		return version
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return "dev-" + hex.EncodeToString(h.Sum(nil))
}
