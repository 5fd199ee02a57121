package annotate

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcptest/mcptest/annotate/runnertest"
	"github.com/sethvargo/go-githubactions"
)

// modelIgnorable is this test's own idea of what a culture-aware
// comparison may skip, kept apart from the code under test.
func modelIgnorable(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.Other_Default_Ignorable_Code_Point)
}

// commandLike reports a line the runner could take for a command, read
// both ordinally and with the ignorable characters dropped: after leading
// white space it starts with `::`, or it holds `##[` anywhere. It does not
// ask for a registered name or a second `::`, so it is stricter than the
// runner.
func commandLike(line string) bool {
	stripped := strings.Map(func(r rune) rune {
		if modelIgnorable(r) {
			return -1
		}
		return r
	}, line)
	for _, l := range []string{line, stripped} {
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") || strings.Contains(l, "##[") {
			return true
		}
	}
	return false
}

var forged = []string{
	"::error file=x::forged",
	"  ::error file=x::forged",
	"\t \u00a0::warning::forged",
	"##[error title=forged]x",
	`artifact: entry "##[error title=forged]x" climbs out`,
	"::stop-commands::token",
	"::echo::on",
	"::add-mask::",
	"\u200b::error::zero width first",
	":\u200b:error::zero width between",
	"#\u00ad#[error]soft hyphen",
	"#\x00#\u200d[error]nul and joiner",
	"ok line\r::error::after a carriage return",
	"ok line\n##[group]after a line feed",
	"###[[x]",
	`{"name": "##[error]x"}`,
	"",
	"plain text: with a colon :: inside",
	"\xff\xfe::error::invalid bytes first",
}

func TestLogTextNeutralises(t *testing.T) {
	for _, in := range forged {
		out := LogText(in)
		for _, l := range runnertest.Lines(out) {
			if commandLike(l) {
				t.Errorf("LogText(%q) = %q: line %q reads as a command", in, out, l)
			}
		}
		if cmds := runnertest.Commands(out); len(cmds) > 0 {
			t.Errorf("LogText(%q) = %q: the runner runs %v", in, out, cmds)
		}
	}
	for in, want := range map[string]string{
		"  ::error file=x::forged":  `  \u003a:error file=x::forged`,
		"##[error title=forged]x":   `##\u005berror title=forged]x`,
		"plain: text :: stays":      "plain: text :: stays",
		"\xff\xfeinvalid stays":     "\xff\xfeinvalid stays",
		"a\n::x::y\r\n##[z]":        "a\n\\u003a:x::y\r\n##\\u005bz]",
		`{"name": "##[error]x"}`:    `{"name": "##\u005berror]x"}`,
		"mcptest: 3 passed, 0 fail": "mcptest: 3 passed, 0 fail",
	} {
		if got := LogText(in); got != want {
			t.Errorf("LogText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLogLineCol(t *testing.T) {
	for _, c := range []struct {
		in       string
		col      int
		want     string
		wantCol  int
		wantRune rune
	}{
		{"  ::error file=x::forged", 5, `  \u003a:error file=x::forged`, 10, 'e'},
		{"  ::error file=x::forged", 3, `  \u003a:error file=x::forged`, 3, '\\'},
		{"key: ##[warning]x", 9, `key: ##\u005bwarning]x`, 14, 'w'},
		{"no command here", 4, "no command here", 4, 'c'},
	} {
		got, col := LogLineCol(c.in, c.col)
		if got != c.want || col != c.wantCol || []rune(got)[col-1] != c.wantRune {
			t.Errorf("LogLineCol(%q, %d) = %q, %d; want %q, %d", c.in, c.col, got, col, c.want, c.wantCol)
		}
	}
}

// TestRunnerLogCommands: the commands mcptest emits through Commands reach
// the runner as commands, with hostile text escaped inside them; a
// command-looking line written as log text, or a command that is not ours
// to emit, does not.
func TestRunnerLogCommands(t *testing.T) {
	var out bytes.Buffer
	l := NewRunnerLog(&out, strings.NewReplacer("s3cr3t-pass@", "***@").Replace)
	a := githubactions.New(githubactions.WithWriter(l.Commands()), githubactions.WithGetenv(func(string) string { return "" }))
	for _, s := range forged {
		out.Reset()
		_, _ = l.Write([]byte("partial " + s))
		EmitAnnotations(a, []Annotation{{Level: "error", Title: s, File: s, Line: 1, Message: s + " https://u:s3cr3t-pass@ghe.example/api"}})
		_, _ = l.Write([]byte(s + "\n"))
		_, _ = l.Commands().Write([]byte("::stop-commands::" + s + "\n::echo::on\n"))
		_ = l.Flush()
		got := out.String()
		if cmds := runnertest.Commands(got); len(cmds) != 1 || cmds[0] != "error" {
			t.Errorf("%q: the runner runs %v in\n%s", s, cmds, got)
		}
		if strings.Contains(got, "s3cr3t") {
			t.Errorf("%q: the secret reached the log:\n%s", s, got)
		}
	}
}

// FuzzLogText: whatever text is written, however it is cut into writes,
// no line that reaches the runner reads as a command, and text that holds
// no command pattern passes byte for byte.
func FuzzLogText(f *testing.F) {
	for _, s := range forged {
		f.Add(s, 3)
	}
	for _, s := range hostile {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		out := LogText(s)
		for _, l := range runnertest.Lines(out) {
			if commandLike(l) {
				t.Fatalf("LogText(%q) = %q: line %q reads as a command", s, out, l)
			}
		}
		clean := true
		for _, l := range runnertest.Lines(s) {
			clean = clean && !commandLike(l)
		}
		if clean && out != s {
			t.Fatalf("LogText(%q) = %q changed text with no command in it", s, out)
		}
		var buf bytes.Buffer
		l := NewRunnerLog(&buf, nil)
		if cut < 0 || cut > len(s) {
			cut = len(s) / 2
		}
		_, _ = l.Write([]byte(s[:cut]))
		_, _ = l.Write([]byte(s[cut:]))
		_ = l.Flush()
		if buf.String() != out {
			t.Fatalf("written in two parts at %d, %q came out as %q, not %q", cut, s, buf.String(), out)
		}
		if utf8.ValidString(s) != utf8.ValidString(out) {
			t.Fatalf("LogText(%q) = %q changed the encoding's validity", s, out)
		}
	})
}
