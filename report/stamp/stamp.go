package stamp

import (
	"crypto/rand"
	"runtime"
	"strconv"
	"time"

	"github.com/mcptest/mcptest/report"
)

// NewRunID returns a ULID: 48 bits of the milliseconds of t and 80 random
// bits in Crockford base32, 26 characters, so run ids sort by time.
func NewRunID(t time.Time) string {
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var b [16]byte
	ms := uint64(t.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	_, _ = rand.Read(b[6:])
	out := make([]byte, 26)
	// 128 bits → 26 base32 digits, most significant first (2 pad bits).
	var acc uint64
	bits, j := 2, 0
	for _, x := range b {
		acc = acc<<8 | uint64(x)
		bits += 8
		for bits >= 5 {
			bits -= 5
			out[j] = alphabet[(acc>>uint(bits))&31]
			j++
		}
	}
	return string(out[:j])
}

// Run sets the run's id, start time (UTC, RFC 3339) and duration from
// start to now.
func Run(env *report.Envelope, start time.Time) {
	env.Run.ID = NewRunID(start)
	env.Run.StartedAt = start.UTC().Format(time.RFC3339)
	env.Run.DurationMS = time.Since(start).Milliseconds()
}

// Source reads the repository, branch and commit from the CI environment
// (GITHUB_REPOSITORY, GITHUB_HEAD_REF or else GITHUB_REF_NAME, GITHUB_SHA);
// nil when none is set.
func Source(getenv func(string) string) *report.Source {
	s := report.Source{Repo: getenv("GITHUB_REPOSITORY"), Commit: getenv("GITHUB_SHA")}
	s.Branch = getenv("GITHUB_HEAD_REF")
	if s.Branch == "" {
		s.Branch = getenv("GITHUB_REF_NAME")
	}
	if s == (report.Source{}) {
		return nil
	}
	return &s
}

// Environment records where the run happens: the binary's platform and, on
// CI, which CI system and runner.
func Environment(getenv func(string) string) *report.Environment {
	e := &report.Environment{Platform: runtime.GOOS + "/" + runtime.GOARCH}
	switch {
	case getenv("GITHUB_ACTIONS") == "true":
		e.CI = "github-actions"
		if os, arch := getenv("RUNNER_OS"), getenv("RUNNER_ARCH"); os != "" || arch != "" {
			e.Runner = os + "/" + arch
		}
	case getenv("CI") != "":
		e.CI = "ci"
	}
	return e
}

// OnCI reports whether the run happens on CI: CI or GITHUB_ACTIONS set to
// a value strconv.ParseBool reads as true (true, 1, TRUE, ...).
func OnCI(getenv func(string) string) bool {
	for _, k := range []string{"CI", "GITHUB_ACTIONS"} {
		if on, err := strconv.ParseBool(getenv(k)); err == nil && on {
			return true
		}
	}
	return false
}
