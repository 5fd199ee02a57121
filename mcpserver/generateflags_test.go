package mcpserver

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestGenerateFlags: each kind takes its own flags, and the options
// follow them.
func TestGenerateFlags(t *testing.T) {
	for kind, flags := range map[string][]string{
		"suite": {"tool", "cursor", "probe", "no-edge", "no-violation", "include-writes"}, "conformance": nil,
		"redteam": {"tool", "cursor"}, "eval": {"tool", "cursor"},
	} {
		fs := flag.NewFlagSet(kind, flag.ContinueOnError)
		AddGenerateFlags(fs, kind)
		var got []string
		fs.VisitAll(func(f *flag.Flag) { got = append(got, f.Name) })
		if len(got) != len(flags) {
			t.Errorf("%s: flags %v, want %v", kind, got, flags)
		}
		if s, ok := GenerateSynopsis(kind, false); !ok || !strings.HasPrefix(s, "mcptest generate "+kind) {
			t.Errorf("%s: synopsis %q", kind, s)
		}
	}
	if _, ok := GenerateSynopsis("agent-suite", false); ok {
		t.Error("agent-suite is not a scaffold kind")
	}
	fs := flag.NewFlagSet("suite", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g := AddGenerateFlags(fs, "suite")
	if err := fs.Parse([]string{"--no-edge", "--tool", "a", "--tool", "b", "--cursor", "2"}); err != nil {
		t.Fatal(err)
	}
	opt, err := g.Options()
	if err != nil || opt.IncludeEdge || !opt.IncludeViolation || len(opt.Tools) != 2 || opt.Cursor != 2 {
		t.Errorf("options %+v, %v", opt, err)
	}
	fs.Parse([]string{"--cursor", "-1"})
	if _, err := g.Options(); err == nil {
		t.Error("a negative cursor is taken")
	}
}
