package mcpserver

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
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

// TestProposeAgentSuiteInput: no recording, recordings to join to more
// than one, or a catalog beside recordings to join, is wrong input, before
// any file is read.
func TestProposeAgentSuiteInput(t *testing.T) {
	for _, c := range []struct {
		from, join []string
		catalog    string
	}{{nil, nil, ""}, {[]string{"a", "b"}, []string{"c"}, ""}, {[]string{"a"}, []string{"c"}, "catalog.json"}} {
		if _, err := ProposeAgentSuite("", c.from, c.join, c.catalog); !errors.As(err, new(*diag.InputError)) {
			t.Errorf("from %v join %v catalog %q: %v, want wrong input", c.from, c.join, c.catalog, err)
		}
	}
}
