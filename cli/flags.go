package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// NewFlagSet returns a flag set for a command: Parse prints its help (the
// synopsis and every flag, see WriteHelp) on stdout for --help, and returns
// a one-line *FlagError for a wrong flag, with a did-you-mean from suggest
// (the nearest of the names it is given, "" for none; nil suggests only
// from the synopsis's values).
func NewFlagSet(name, synopsis string, stdout io.Writer, suggest func(word string, names []string) string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package's own message is dropped: FlagError says it better.
	fs.SetOutput(&output{Writer: io.Discard, stdout: stdout, synopsis: synopsis, suggest: suggest,
		help: func(w io.Writer) { WriteHelp(w, synopsis, fs) }})
	fs.Usage = func() {}
	return fs
}

// output is a flag set's output: the flag package's messages are
// discarded; help is how Parse prints the command's help on stdout.
type output struct {
	io.Writer
	stdout   io.Writer
	synopsis string
	suggest  func(string, []string) string
	help     func(io.Writer)
}

// WriteHelp prints a synopsis and every flag of fs the way the docs write
// them: --name VALUE, the usage indented below, the default.
func WriteHelp(w io.Writer, synopsis string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n", synopsis)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprint(w, "\nflags:\n")
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if value != "" {
			line += " " + value
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// Parse parses flags that may stand before or after the positional
// arguments, as users type them (`mcptest run suite.yml --filter x`), and
// returns the positional ones; everything after a `--` is positional. On
// --help it prints the help on stdout and returns flag.ErrHelp; on a wrong
// flag it returns a *FlagError (for a flag set of NewFlagSet) or the flag
// package's error.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			o, ok := fs.Output().(*output)
			switch {
			case !ok:
				return nil, err
			case errors.Is(err, flag.ErrHelp):
				o.help(o.stdout)
				return nil, err
			}
			return nil, o.flagError(fs, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// IsHelp reports whether arg asks for help: -h, -help or --help.
func IsHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help"
}

// SplitCommand splits a command line at its first `--`: the flags before,
// the argv of a command to start after (nil without a `--`).
func SplitCommand(args []string) (flags, command []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

// StringList is a repeatable string flag.
type StringList []string

func (s *StringList) String() string     { return strings.Join(*s, ",") }
func (s *StringList) Set(v string) error { *s = append(*s, v); return nil }

// Duration is a flag holding a positive duration such as 30s or 2m; 0 is
// unset.
type Duration time.Duration

func (d *Duration) String() string {
	if d == nil || *d == 0 {
		return ""
	}
	return time.Duration(*d).String()
}

// Set parses a positive Go duration; a bare number is refused with the
// unit it lacks.
func (d *Duration) Set(s string) error {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return fmt.Errorf("%s has no unit: write %ss (seconds) or 2m", s, s)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return errors.New("expected a positive duration such as 30s, 2m or 1m30s")
	}
	*d = Duration(v)
	return nil
}

// Given reports whether the flag called name was given on the command line
// (not only defaulted).
func Given(fs *flag.FlagSet, name string) (set bool) {
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
