package stamp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
)

// SourceVersion is mcptest's version in the source tree; a release build
// sets its own with -ldflags.
const SourceVersion = "0.1.0"

// Ref is the git ref of the repository this build was released from: its
// tag, v<version>, or main for a development build (the source tree's own
// version, a pseudo-version, a version with build metadata such as
// +dirty).
func (b Build) Ref() string {
	v := b.Version
	if v == "" || v == SourceVersion || pseudoVersion.MatchString(v) || strings.ContainsAny(v, "+ /") {
		return "main"
	}
	return "v" + v
}

// Build is the mcptest build that makes a run: its version, and the
// commit and build time (RFC 3339) when the build recorded them.
type Build struct {
	Version, Commit, Date string
}

// Complete fills what -ldflags left unset from the binary's build info: a
// `go install github.com/mcptest/mcptest/cmd/mcptest@v1.2.3` build carries
// its module version, and a build from a clone its VCS revision and time.
// The leading "v" of a module version is dropped, as goreleaser does.
func (b Build) Complete(bi *debug.BuildInfo) Build {
	if bi == nil {
		return b
	}
	if v := bi.Main.Version; b.Version == SourceVersion && v != "" && v != "(devel)" {
		b.Version = strings.TrimPrefix(v, "v")
		b = b.fromPseudoVersion(v)
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && b.Commit == "":
			b.Commit = s.Value
		case s.Key == "vcs.time" && b.Date == "":
			b.Date = s.Value
		}
	}
	return b
}

// pseudoVersion is the end of a Go pseudo-version
// (v0.0.0-20261123100000-0123456789ab): the commit's UTC time and the
// first 12 hex digits of its hash.
var pseudoVersion = regexp.MustCompile(`[-.](\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})-([0-9a-f]{12})(\+incompatible)?$`)

// fromPseudoVersion fills the commit (abbreviated, as the module version
// has it) and its date from a `go install ...@COMMIT` build's module
// version, which the go command builds without VCS stamping.
func (b Build) fromPseudoVersion(v string) Build {
	m := pseudoVersion.FindStringSubmatch(v)
	if m == nil {
		return b
	}
	if b.Commit == "" {
		b.Commit = m[7]
	}
	if b.Date == "" {
		b.Date = fmt.Sprintf("%s-%s-%sT%s:%s:%sZ", m[1], m[2], m[3], m[4], m[5], m[6])
	}
	return b
}

// Write prints `mcptest VERSION`, then the commit and its date when the
// build recorded them, then the Go version. The date is the commit's, and
// named so: goreleaser stamps the commit's date (a reproducible build) and
// a clone's build info carries the commit's time (vcs.time); neither is
// when the binary was built.
func (b Build) Write(w io.Writer) {
	fmt.Fprintf(w, "mcptest %s\n", b.Version)
	// goreleaser stamps "none" and the zero time when it cannot read git.
	if b.Commit != "" && b.Commit != "none" {
		fmt.Fprintf(w, "commit:    %s\n", b.Commit)
	}
	if b.Date != "" && !strings.HasPrefix(b.Date, "0001-") {
		fmt.Fprintf(w, "committed: %s\n", b.Date)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(w, "go:        %s\n", bi.GoVersion)
	}
}

// CacheKey identifies the build for the result cache: the version when the
// build was stamped (a release, or `go install ...@vX`), else the digest
// of the executable itself, so a development build (`go run`, `go build`
// in a clone) never serves results another build computed. "" when the
// executable cannot be read, which turns the cache off.
func (b Build) CacheKey() string {
	if b.Version != SourceVersion {
		return b.Version
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
