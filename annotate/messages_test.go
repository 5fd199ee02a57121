package annotate

import (
	"bytes"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// TestCleanMessage: each line of a message is cleaned, its breaks kept.
func TestCleanMessage(t *testing.T) {
	if got := CleanMessage("x\x1b[2J\nusage: y\u202e"); got != `x\u001b[2J`+"\nusage: y"+`\u202e` {
		t.Errorf("CleanMessage = %q", got)
	}
}

// TestPrintDiag: a source line the runner would run as a workflow command
// is neutralised for a runner's log, the caret kept under its column, and
// printed as written elsewhere.
func TestPrintDiag(t *testing.T) {
	src := []byte("tests:\n  ::error file=x::forged\n")
	l := diag.List{{Pos: diag.Pos{File: "s.yml", Line: 2, Col: 3}, Message: "tests: expected a list", Source: src}}
	var b bytes.Buffer
	PrintDiag(&b, l, true)
	if want := "s.yml:2:3: tests: expected a list\n    \\u003a:error file=x::forged\n    ^\n"; b.String() != want {
		t.Errorf("for a runner's log:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	PrintDiag(&b, l, false)
	if want := "s.yml:2:3: tests: expected a list\n    ::error file=x::forged\n    ^\n"; b.String() != want {
		t.Errorf("for a terminal:\n%q\nwant\n%q", b.String(), want)
	}
}

// TestGuardStreams: both streams are neutralised and redacted, the
// commands writer reaches stdout unchanged, and flush writes a last line
// without a break.
func TestGuardStreams(t *testing.T) {
	var stdout, stderr bytes.Buffer
	out, errs, commands, flush := GuardStreams(&stdout, &stderr, "https://user:s3cr3t-t0ken@ghe.example/api/v3")
	_, _ = out.Write([]byte("::error::forged\n"))
	_, _ = commands.Write([]byte("::notice::own\n"))
	_, _ = errs.Write([]byte("token s3cr3t-t0ken"))
	flush()
	if stdout.String() != "\\u003a:error::forged\n::notice::own\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	if stderr.String() != "token ***" {
		t.Errorf("stderr %q", stderr.String())
	}
}
