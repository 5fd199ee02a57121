package annotate

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestAPIURLRedactorRules: the user-info of any URL is removed (also with
// its colon escaped as %3A); the password, or a lone user name, is
// removed wherever it stands from 8 characters on (the shortest token),
// with its path- and query-escaped forms; 7 characters are left, a user
// name beside a password is left, and without user-info only URLs change.
func TestAPIURLRedactorRules(t *testing.T) {
	for _, tc := range []struct{ api, in, want string }{
		{"https://u:12345678@ghe.example/api", "token 12345678 here", "token *** here"},
		{"https://u:1234567@ghe.example/api", "token 1234567 here", "token 1234567 here"},
		{"https://u:1234567@ghe.example/api", "see https://u:1234567@ghe.example/x", "see https://***@ghe.example/x"},
		{"https://abcdefgh@ghe.example/api", "user abcdefgh alone", "user *** alone"},
		{"https://abcdefgh:passpass@ghe.example/api", "user abcdefgh, pass passpass", "user abcdefgh, pass ***"},
		{"https://u:p%2Fq%2Br%3Dst@ghe.example/api", "raw p/q+r=st path p%2Fq+r=st query p%2Fq%2Br%3Dst", "raw *** path *** query ***"},
		{"https://u:p%2Fq%2Br%3Ds@ghe.example/api", "7 raw p/q+r=s query p%2Fq%2Br%3Ds", "7 raw p/q+r=s query ***"},
		{"https://u:50%25off!!@ghe.example/api", "raw 50%off!! doubled 50%25off!!", "raw *** doubled ***"},
		{"https://ghe.example/api", "at https://x:y@h.example/ and h%3A//x:y@h.example/", "at https://***@h.example/ and h%3A//***@h.example/"},
		{"https://ghe.example/api", "plain 12345678 stays", "plain 12345678 stays"},
		{"  https://u:tok3n-value@ghe.example/api  ", "tok3n-value", "***"},
		{"://bad url", "https://a:b@c.example/", "https://***@c.example/"},
	} {
		if got := APIURLRedactor(tc.api)(tc.in); got != tc.want {
			t.Errorf("APIURLRedactor(%q)(%q) = %q, want %q", tc.api, tc.in, got, tc.want)
		}
	}
}

// TestIgnorableBounds: a character that a culture-aware comparison skips
// (C0 controls but the line breaks, DEL, the C1 controls, format
// characters) between the two colons still makes a command, and is
// escaped; a space, a printable character or a no-break space between them
// does not.
func TestIgnorableBounds(t *testing.T) {
	for _, tc := range []struct {
		between string
		escaped bool
	}{
		{"\x00", true}, {"\x1f", true}, {"\x7f", true}, {"\u0080", true}, {"\u009f", true}, {"\u200b", true}, {"\u0301", true},
		{" ", false}, {"~", false}, {"\u00a0", false}, {"a", false},
	} {
		in := ":" + tc.between + ":error::x"
		got := LogText(in)
		if escaped := strings.HasPrefix(got, `\u003a`); escaped != tc.escaped {
			t.Errorf("LogText(%q) = %q; escaped %v, want %v", in, got, escaped, tc.escaped)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"#\x1f#[x", "#\x1f#\\u005bx"},
		{"# #[x", "# #[x"},
		{"#[x", "#[x"},
		{"x\r\n  ::e::x", "x\r\n  \\u003a:e::x"},
		{"a::b", "a::b"},
		{":", ":"},
		{"::", `\u003a:`},
	} {
		if got := LogText(tc.in); got != tc.want {
			t.Errorf("LogText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCommandsRules: through Commands, each allowed command reaches the log
// as a command with the secrets redacted, but add-mask, which must carry
// the secret to mask it; a command not ours, a line with a CR, or one
// without its second "::" is log text.
func TestCommandsRules(t *testing.T) {
	redact := strings.NewReplacer("s3cr3t", "***").Replace
	for _, tc := range []struct{ in, want string }{
		{"::error file=a::s3cr3t", "::error file=a::***"},
		{"::warning::w", "::warning::w"},
		{"::notice::n", "::notice::n"},
		{"::debug::d", "::debug::d"},
		{"::group::g", "::group::g"},
		{"::endgroup::", "::endgroup::"},
		{"::add-mask::s3cr3t", "::add-mask::s3cr3t"},
		{"::stop-commands::s3cr3t", `\u003a:stop-commands::***`},
		{"::set-output name=x::y", `\u003a:set-output name=x::y`},
		{"::error file=a", `\u003a:error file=a`},
		{"::error::a\rb", `\u003a:error::a` + "\r" + "b"},
		{"::error::x ##[group]y", `::error::x ##\u005bgroup]y`},
	} {
		var out bytes.Buffer
		l := NewRunnerLog(&out, redact)
		_, _ = l.Commands().Write([]byte(tc.in + "\n"))
		if got := out.String(); got != tc.want+"\n" {
			t.Errorf("Commands: %q reached the log as %q, want %q", tc.in, got, tc.want+"\n")
		}
	}
}

// TestRunnerLogWrites: text reaches the log whole lines at a time (a line
// ended by LF or CR), redacted before it is neutralised, the rest held
// until the next write or Flush; a command through Commands ends the line
// held first.
func TestRunnerLogWrites(t *testing.T) {
	var out bytes.Buffer
	l := NewRunnerLog(&out, strings.NewReplacer("SECRET", "::x").Replace)
	_, _ = l.Write([]byte(":"))
	if out.Len() != 0 {
		t.Errorf("a line without a break was written: %q", out.String())
	}
	_, _ = l.Write([]byte(":error::a\rSECRET"))
	if got := out.String(); got != `\u003a:error::a`+"\r" {
		t.Errorf("after a CR: %q", got)
	}
	_, _ = l.Commands().Write([]byte("::notice::n\n"))
	_ = l.Flush()
	_ = l.Flush()
	if got, want := out.String(), `\u003a:error::a`+"\r"+`\u003a:x`+"\n::notice::n\n"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

// TestRunnerLogWriteCounts: Write reports every byte it took, held or
// written; a line break at the very start is a line and is written at
// once; an error of the log comes back from Write, Flush and Commands,
// with no byte counted.
func TestRunnerLogWriteCounts(t *testing.T) {
	var out bytes.Buffer
	l := NewRunnerLog(&out, nil)
	for _, p := range []string{"\n", "held", " line\r", ""} {
		if n, err := l.Write([]byte(p)); n != len(p) || err != nil {
			t.Errorf("Write(%q) = %d, %v; want %d, nil", p, n, err, len(p))
		}
		if p == "\n" && out.String() != "\n" {
			t.Errorf("a lone line break was held: log %q", out.String())
		}
	}
	if n, err := l.Commands().Write([]byte("::notice::n\n")); n != 12 || err != nil {
		t.Errorf("Commands().Write = %d, %v; want 12, nil", n, err)
	}
	if got := out.String(); got != "\nheld line\r::notice::n\n" {
		t.Errorf("log %q", got)
	}
	bad := NewRunnerLog(errWriter{}, nil)
	if n, err := bad.Write([]byte("x\n")); n != 0 || err == nil {
		t.Errorf("Write to a failing log = %d, %v; want 0 and the error", n, err)
	}
	if _, err := bad.Write([]byte("held")); err != nil {
		t.Errorf("Write of a held line to a failing log: %v", err)
	}
	if err := bad.Flush(); err == nil {
		t.Error("Flush to a failing log: no error")
	}
	if n, err := bad.Commands().Write([]byte("::notice::n\n")); n != 0 || err == nil {
		t.Errorf("Commands().Write to a failing log = %d, %v; want 0 and the error", n, err)
	}
	_, _ = bad.Write([]byte("held"))
	if n, err := bad.Commands().Write([]byte("::notice::n\n")); n != 0 || err == nil {
		t.Errorf("Commands().Write after a held line to a failing log = %d, %v; want 0 and the error", n, err)
	}
}

// TestAPIURLRedactorLongestFirst: a form of the secret that starts with
// another (a password ending in "%", whose escaped form adds "25") is
// replaced whole.
func TestAPIURLRedactorLongestFirst(t *testing.T) {
	redact := APIURLRedactor("https://u:abcdefgh%25@ghe.example/api")
	for in, want := range map[string]string{
		"escaped abcdefgh%25 end": "escaped *** end",
		"raw abcdefgh% end":       "raw *** end",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLogTextLeavesText: only a `[` after two `#` completes a legacy
// command; other text after `##` (a C# heading, `###`) is left as it is,
// byte for byte.
func TestLogTextLeavesText(t *testing.T) {
	for in, want := range map[string]string{
		"##x":            "##x",
		"C## and F##.":   "C## and F##.",
		"### heading":    "### heading",
		"a ##[b":         `a ##\u005bb`,
		"#[## [ #x#[":    "#[## [ #x#[",
		"## [ ##\u200b[": "## [ ##\u200b" + `\u005b`,
	} {
		if got := LogText(in); got != want {
			t.Errorf("LogText(%q) = %q, want %q", in, got, want)
		}
	}
}
