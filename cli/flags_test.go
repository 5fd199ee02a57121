package cli

import (
	"bytes"
	"errors"
	"flag"
	"slices"
	"testing"
	"time"
)

// TestParse: flags stand before or after the positional arguments, `--`
// ends the flags, --help prints the help on stdout and a wrong flag prints
// the error and the help on stderr.
func TestParse(t *testing.T) {
	var stdout, stderr bytes.Buffer
	newFS := func() (*flag.FlagSet, *string) {
		stdout.Reset()
		stderr.Reset()
		fs := NewFlagSet("x", "mcptest x [--name N] [--format text|json] FILE", &stdout, nil)
		fs.String("format", "text", "text or json")
		fs.Int("count", 0, "a number")
		fs.Bool("no-cache", false, "no cache")
		return fs, fs.String("name", "", "the `N` to use")
	}
	fs, name := newFS()
	pos, err := Parse(fs, []string{"a", "--name", "n", "b", "--", "--name", "c"})
	if err != nil || *name != "n" || !slices.Equal(pos, []string{"a", "b", "--name", "c"}) {
		t.Errorf("Parse = %q, %v, name %q", pos, err, *name)
	}
	fs, _ = newFS()
	want := "usage: mcptest x [--name N] [--format text|json] FILE\n\nflags:\n  --count int\n    \ta number\n  --format string\n    \ttext or json (default text)\n  --name N\n    \tthe N to use\n  --no-cache\n    \tno cache\n"
	if _, err := Parse(fs, []string{"--help"}); !errors.Is(err, flag.ErrHelp) || stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("--help: %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag --bogus; 'mcptest help x' lists its flags"},
		{[]string{"--json"}, "unknown flag --json (did you mean --format json?); 'mcptest help x' lists its flags"},
		{[]string{"--na"}, "unknown flag --na (did you mean --name?); 'mcptest help x' lists its flags"},
		{[]string{"--n"}, "unknown flag --n; 'mcptest help x' lists its flags"}, // two flags begin so: neither is likelier
		{[]string{"a", "--name"}, "--name needs a value; 'mcptest help x' lists its flags"},
		{[]string{"--count", "many"}, `--count "many": parse error; 'mcptest help x' lists its flags`},
	} {
		fs, _ = newFS()
		_, err := Parse(fs, c.args)
		var fe *FlagError
		if !errors.As(err, &fe) || err.Error() != c.want || stdout.Len() != 0 || stderr.Len() != 0 {
			t.Errorf("%q: %v, want %q; stdout %q, stderr %q", c.args, err, c.want, stdout.String(), stderr.String())
		}
	}
}

// TestWriteHelp: a default is shown unless it is a zero value, and a
// multi-line usage stays indented.
func TestWriteHelp(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("config", "suite.yml", "the suite `FILE`")
	fs.Bool("json", false, "print JSON\nfor machines")
	var l StringList
	fs.Var(&l, "tag", "a `TAG` (repeatable)")
	var b bytes.Buffer
	WriteHelp(&b, "x", fs)
	want := "usage: x\n\nflags:\n  --config FILE\n    \tthe suite FILE (default suite.yml)\n  --json\n    \tprint JSON\n    \tfor machines\n  --tag TAG\n    \ta TAG (repeatable)\n"
	if b.String() != want {
		t.Errorf("WriteHelp:\n%s\nwant:\n%s", b.String(), want)
	}
	if got := HelpFlags(b.String()); !slices.Equal(got, []string{"--config", "--json", "--tag", "--help"}) {
		t.Errorf("HelpFlags = %q", got)
	}
	b.Reset()
	WriteHelp(&b, "y", flag.NewFlagSet("y", flag.ContinueOnError))
	if b.String() != "usage: y\n" {
		t.Errorf("WriteHelp without flags = %q", b.String())
	}
}

// TestDuration: a positive duration with a unit; a bare number names the
// unit it lacks.
func TestDuration(t *testing.T) {
	var d Duration
	if d.String() != "" || d.Set("1m30s") != nil || time.Duration(d) != 90*time.Second || d.String() != "1m30s" {
		t.Errorf("Duration 1m30s = %v", d)
	}
	for v, want := range map[string]string{
		"30":   "30 has no unit: write 30s (seconds) or 2m",
		"0s":   "expected a positive duration such as 30s, 2m or 1m30s",
		"-5s":  "expected a positive duration such as 30s, 2m or 1m30s",
		"soon": "expected a positive duration such as 30s, 2m or 1m30s",
	} {
		if err := d.Set(v); err == nil || err.Error() != want {
			t.Errorf("Set(%q) = %v, want %s", v, err, want)
		}
	}
}

// TestSplitCommand: the argv after the first `--`, nil without one.
func TestSplitCommand(t *testing.T) {
	flags, cmd := SplitCommand([]string{"--url", "u", "--", "srv", "--", "x"})
	if !slices.Equal(flags, []string{"--url", "u"}) || !slices.Equal(cmd, []string{"srv", "--", "x"}) {
		t.Errorf("SplitCommand = %q, %q", flags, cmd)
	}
	if flags, cmd = SplitCommand([]string{"a"}); cmd != nil || len(flags) != 1 {
		t.Errorf("SplitCommand without -- = %q, %q", flags, cmd)
	}
}

func TestGiven(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("config", "suite.yml", "")
	fs.String("url", "", "")
	if err := fs.Parse([]string{"--url", "http://127.0.0.1:1/mcp"}); err != nil {
		t.Fatal(err)
	}
	if !Given(fs, "url") || Given(fs, "config") || Given(fs, "nope") {
		t.Errorf("Given: url %v, config %v, nope %v; want true, false, false", Given(fs, "url"), Given(fs, "config"), Given(fs, "nope"))
	}
}
