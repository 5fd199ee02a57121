package annotate

import (
	"fmt"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A GitHub Actions runner reads every line a step prints and runs two kinds
// of line as workflow commands (actions/runner, ActionCommand.cs):
//
//   - `::name props::data`: the line, after its leading white space, starts
//     with `::`;
//   - `##[name props]data`: the legacy form, matched anywhere in the line.
//
// The runner splits lines at LF and at CR, and its comparisons are
// culture-aware, so characters that compare as nothing (format characters,
// controls, combining marks) may sit between the characters of a pattern.
// RunnerLog and LogText neutralise both forms in untrusted text by writing
// the character that completes a pattern as a \u escape: `::error::x`
// becomes `\u003a:error::x` and `##[error]x` becomes `##\u005berror]x`.
// Inside a JSON string the escape decodes to the same character, so a JSON
// document printed under the runner keeps its value.

// RunnerLog is the one writer between mcptest and a runner's log. Text
// written to it is untrusted: each line is redacted and neutralised (see
// LogText) before it reaches the log, whole lines at a time, so a command
// cannot be assembled across writes. The workflow commands mcptest emits
// itself go through Commands, the only way to reach the log unchanged.
// A RunnerLog is safe for concurrent use; Flush writes a last line that
// has no line break.
type RunnerLog struct {
	mu      sync.Mutex
	w       io.Writer
	redact  func(string) string
	pending []byte
}

// NewRunnerLog returns a RunnerLog writing to w. redact, when not nil, is
// applied to every line first (it removes the caller's secrets).
func NewRunnerLog(w io.Writer, redact func(string) string) *RunnerLog {
	return &RunnerLog{w: w, redact: redact}
}

// Write implements io.Writer for untrusted text. It writes every complete
// line of what it holds (ended by LF or CR) and keeps the rest for the
// next write or Flush.
func (l *RunnerLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, p...)
	end := lastBreak(l.pending)
	if end < 0 {
		return len(p), nil
	}
	out := l.clean(string(l.pending[:end+1]))
	l.pending = append(l.pending[:0], l.pending[end+1:]...)
	if _, err := io.WriteString(l.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes the line still held, which has no line break yet.
func (l *RunnerLog) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flushLocked("")
}

func (l *RunnerLog) flushLocked(end string) error {
	if len(l.pending) == 0 {
		return nil
	}
	out := l.clean(string(l.pending)) + end
	l.pending = l.pending[:0]
	_, err := io.WriteString(l.w, out)
	return err
}

func (l *RunnerLog) clean(s string) string {
	if l.redact != nil {
		s = l.redact(s)
	}
	return LogText(s)
}

// Commands returns the writer for the workflow commands mcptest emits
// itself (give it to go-githubactions, which escapes their properties and
// data). Each line written to it must be a command of an allowed name
// (error, warning, notice, debug, group, endgroup, add-mask): such a line
// reaches the log as a command, with a legacy `##[` inside it still
// neutralised and, but for add-mask, the secrets redacted. Any other line,
// `::stop-commands::` and `::echo::` included, is treated as untrusted
// text. A line held by Write is ended first, so a command always starts a
// line.
func (l *RunnerLog) Commands() io.Writer { return commandWriter{l} }

type commandWriter struct{ l *RunnerLog }

func (c commandWriter) Write(p []byte) (int, error) {
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.flushLocked("\n"); err != nil {
		return 0, err
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line == "" {
			continue
		}
		body := strings.TrimSuffix(line, "\n")
		switch name, ok := commandName(body); {
		case !ok:
			b.WriteString(l.clean(body))
		case name == "add-mask":
			b.WriteString(neutralize(body, false))
		default:
			if l.redact != nil {
				body = l.redact(body)
			}
			b.WriteString(neutralize(body, false))
		}
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(l.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// allowedCommands are the workflow commands mcptest emits.
var allowedCommands = map[string]bool{"error": true, "warning": true, "notice": true, "debug": true, "group": true, "endgroup": true, "add-mask": true}

// commandName reads the name of a well-formed `::name props::data` line
// of an allowed command.
func commandName(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, "::")
	if !ok || strings.ContainsRune(line, '\r') {
		return "", false
	}
	info, _, ok := strings.Cut(rest, "::")
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(info, " ")
	return name, allowedCommands[name]
}

// LogText neutralises untrusted text for a runner's log: in each line (LF
// and CR both end one) a leading `::` (after white space) and a `##[`
// anywhere, with characters that compare as nothing between theirs, have
// their last character written as a \u escape. Other text is unchanged,
// byte for byte.
func LogText(s string) string {
	return neutralize(s, true)
}

// LogLineCol neutralises one line as LogText does and maps col, a 1-based
// column in characters of s, to the same character's column in the result,
// so a caret printed under the line still points at it.
func LogLineCol(s string, col int) (string, int) {
	marks := commandMarks(s, true)
	if len(marks) == 0 {
		return s, col
	}
	out := neutralizeAt(s, marks)
	shift, n := 0, 1
	for i, r := range s {
		if n >= col {
			break
		}
		if len(marks) > 0 && marks[0] == i {
			shift += utf8.RuneCountInString(escapeRune(r)) - 1
			marks = marks[1:]
		}
		n++
	}
	return out, col + shift
}

func neutralize(s string, lead bool) string {
	return neutralizeAt(s, commandMarks(s, lead))
}

func neutralizeAt(s string, marks []int) string {
	if len(marks) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range marks {
		r, n := utf8.DecodeRuneInString(s[m:])
		b.WriteString(s[last:m])
		b.WriteString(escapeRune(r))
		last = m + n
	}
	b.WriteString(s[last:])
	return b.String()
}

func escapeRune(r rune) string { return fmt.Sprintf(`\u%04x`, r) }

// commandMarks returns the byte offsets of the characters that complete a
// command pattern: the first `:` of a leading `::` (when lead is set, and
// for every line after the first) and the `[` of a `##[`.
func commandMarks(s string, lead bool) []int {
	var marks []int
	var p1, p2 rune // the last two significant characters of the line
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n' || r == '\r':
			lead, p1, p2 = true, 0, 0
		case ignorable(r) || lead && unicode.IsSpace(r):
		default:
			if lead && r == ':' && nextSignificant(s[i+n:]) == ':' || r == '[' && p1 == '#' && p2 == '#' {
				marks = append(marks, i)
				r = 'x' // the escape ends in a hex digit or letter
			}
			lead, p2, p1 = false, p1, r
		}
		i += n
	}
	return marks
}

// nextSignificant is the first character of s, on the same line, that is
// not ignorable; 0 if there is none.
func nextSignificant(s string) rune {
	for _, r := range s {
		if r == '\n' || r == '\r' {
			return 0
		}
		if !ignorable(r) {
			return r
		}
	}
	return 0
}

// ignorable reports the characters a culture-aware comparison may skip:
// controls (but the line breaks, handled apart), format characters (zero
// width, bidi, BOM, soft hyphen), combining marks, variation selectors and
// the other default-ignorable code points (Hangul fillers and the like).
func ignorable(r rune) bool {
	switch {
	case r == '\n' || r == '\r':
		return false
	case r < 0x80:
		return r < 0x20 || r == 0x7f
	case r < 0xa0:
		return true
	}
	return unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// lastBreak is the index of the last LF or CR in b, or -1.
func lastBreak(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' || b[i] == '\r' {
			return i
		}
	}
	return -1
}

// urlUserInfo matches the user-info of a URL (scheme://user:pass@), also
// with the colon escaped as a workflow-command property escapes it.
var urlUserInfo = regexp.MustCompile(`(://|%3A//)[^/?#@\s"'<>]+@`)

// APIURLRedactor reads the user-info of a GITHUB_API_URL such as
// https://user:token@ghe.example/api/v3 and returns the redact function
// of NewRunnerLog for it: redact removes from a line the user-info of any
// URL (https://***@host), and the password or a lone user name of 8
// characters or more (a token) wherever it stands. Without user-info,
// redact only does the former.
func APIURLRedactor(raw string) (redact func(string) string) {
	userInfo := func(s string) string { return urlUserInfo.ReplaceAllString(s, "${1}***@") }
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return userInfo
	}
	user := u.User.Username()
	pass, hasPass := u.User.Password()
	secret := pass
	if !hasPass {
		secret = user
	}
	var olds []string
	for _, s := range []string{secret, url.PathEscape(secret), url.QueryEscape(secret), strings.ReplaceAll(secret, "%", "%25")} {
		if len(s) >= 8 {
			olds = append(olds, s)
		}
	}
	// Longest first, so a form is replaced whole before a part of it.
	sort.Slice(olds, func(i, j int) bool { return len(olds[i]) > len(olds[j]) })
	var args []string
	for _, o := range olds {
		args = append(args, o, "***")
	}
	r := strings.NewReplacer(args...)
	return func(s string) string { return r.Replace(userInfo(s)) }
}
