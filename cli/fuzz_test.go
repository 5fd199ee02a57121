package cli

import (
	"io"
	"strings"
	"testing"
)

// FuzzParse: whatever a command line holds, Parse and the duration flag
// return values or errors, never panic, and every positional argument
// comes from the command line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a --name n b", "--help", "--bogus", "-- --name x", "--timeout 30", "--timeout 1m30s --tag a --tag b", "--name"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, " ")
		fs := NewFlagSet("x", "mcptest x [--name N] [--mode a|b]", io.Discard, func(w string, names []string) string { return names[len(w)%len(names)] })
		fs.String("name", "", "a `N`")
		var d Duration
		fs.Var(&d, "timeout", "a `D`")
		var l StringList
		fs.Var(&l, "tag", "a `T`")
		pos, err := Parse(fs, args)
		if err != nil && pos != nil {
			t.Errorf("Parse(%q) = %q with the error %v", args, pos, err)
		}
		for _, p := range pos {
			if !strings.Contains(line, p) {
				t.Errorf("positional %q is not in %q", p, line)
			}
		}
	})
}
