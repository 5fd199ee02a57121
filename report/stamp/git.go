package stamp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mcptest/mcptest/report"
)

// gitTimeout bounds each git command GitSource runs: provenance is worth
// a moment, never a stalled run.
const gitTimeout = 2 * time.Second

// SourceAhead starts reading where a run's suite, in dir, came from, and
// returns what waits for it: the CI's words (Source) when getenv names
// them, else, unless noGit is set, what git says (GitSource), its
// processes started at once on a goroutine of their own, so that a run
// that starts them as it starts (and waits for them before it writes
// into the tree) does not wait for them at its end.
func SourceAhead(getenv func(string) string, noGit bool, dir string) func() *report.Source {
	if s := Source(getenv); s != nil || noGit {
		return func() *report.Source { return s }
	}
	done := make(chan *report.Source, 1)
	go func() { done <- GitSource(dir) }()
	return sync.OnceValue(func() *report.Source { return <-done })
}

// GitSource reads where the suite in dir came from out of git, for a run
// off CI: the remote origin's URL with any credentials removed, the
// branch, the commit and whether the working tree has changes (Dirty).
// It never fails: without git, outside a repository, past the timeout or
// with output it cannot read, it returns what it could read, nil for
// nothing. A dir that no repository can hold (mayBeRepository) is
// answered nil without starting git, whose answer there is always exit
// 128: its start and its search cost about 2 ms of CPU that a run on
// every core takes from its cases, where a run on one core had a core
// spare for it.
func GitSource(dir string) *report.Source {
	if !mayBeRepository(dir, os.Getenv) {
		return nil
	}
	return gitSource(dir)
}

// mayBeRepository reports whether git could find a repository for dir:
// false only when GIT_DIR is unset and neither dir nor any directory
// above it holds an entry named .git (a repository's directory, the file
// of a worktree or a submodule, or anything else of that name) or is
// itself a repository's directory (a bare one: HEAD beside objects, which
// git takes as one and whose core.worktree may name a work tree), on the
// path as given (made absolute) and on the path its links resolve to,
// which is the one git walks up. git finds a repository in no other way.
// Anything it cannot check (a path that does not resolve, an entry it may
// not stat) answers true, and git decides as before.
func mayBeRepository(dir string, getenv func(string) string) bool {
	if getenv("GIT_DIR") != "" {
		return true
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return true
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return true
	}
	for _, p := range []string{abs, real} {
		for d := p; ; d = filepath.Dir(d) {
			if maybe(d, ".git") || (maybe(d, "HEAD") && maybe(d, "objects")) {
				return true
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return false
}

// maybe reports whether dir may hold an entry named name: it is there, or
// not known to be absent.
func maybe(dir, name string) bool {
	_, err := os.Lstat(filepath.Join(dir, name))
	return !errors.Is(err, fs.ErrNotExist)
}

// gitSource is GitSource with git started whatever dir is.
func gitSource(dir string) *report.Source {
	var s report.Source
	if out, ok := git(dir, "status", "--porcelain=v2", "--branch"); ok {
		s = readStatus(out)
	}
	if s.Commit == "" {
		return nil // not a repository, or one with no commit yet
	}
	if out, ok := git(dir, "config", "--get", "remote.origin.url"); ok {
		s.Repo = RemoteURL(strings.TrimSpace(string(out)))
	}
	return &s
}

// git runs git in dir with a timeout, prompting for nothing and taking no
// lock (GIT_OPTIONAL_LOCKS=0: status does not refresh the index), and
// returns its stdout when it succeeded.
func git(dir string, args ...string) ([]byte, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &out, max: 1 << 20}
	if err := cmd.Run(); err != nil {
		return nil, false
	}
	return out.Bytes(), true
}

// limitedBuffer keeps the first max bytes written to it and drops the
// rest, so a huge status cannot fill the memory.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// readStatus reads `git status --porcelain=v2 --branch`: the commit
// (branch.oid, absent before the first commit), the branch (branch.head,
// absent when detached) and any change line, which makes the tree dirty.
func readStatus(out []byte) report.Source {
	var s report.Source
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# branch.oid "):
			if oid := strings.TrimPrefix(line, "# branch.oid "); oid != "(initial)" && oneLine(oid) {
				s.Commit = oid
			}
		case strings.HasPrefix(line, "# branch.head "):
			if head := strings.TrimPrefix(line, "# branch.head "); head != "(detached)" && oneLine(head) {
				s.Branch = head
			}
		case strings.HasPrefix(line, "#"), line == "":
		default:
			s.Dirty = true
		}
	}
	return s
}

// RemoteURL is a remote's URL as an envelope may carry it: the user and
// password of a URL (https://user:token@host/o/r.git), its query and its
// fragment removed; a scp-like address (git@host:o/r.git) is kept, its user
// being no secret; "" for one that is not one line of printable text.
func RemoteURL(raw string) string {
	if !oneLine(raw) {
		return ""
	}
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && u.Host != "" {
		u.User, u.RawQuery, u.Fragment, u.ForceQuery = nil, "", "", false
		return u.String()
	}
	if i := strings.Index(raw, "@"); i >= 0 && strings.Contains(raw[:i], ":") {
		return raw[i+1:] // user:password@host:path, as no remote should be written
	}
	return raw
}

// oneLine reports whether s is non-empty printable text with no control
// character.
func oneLine(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) < 0
}
