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
// synopsis and every flag, see WriteHelp) on stdout for --help, and the
// flag error and the same help on stderr for a wrong flag.
func NewFlagSet(name, synopsis string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(&output{Writer: stderr, stdout: stdout, help: func(w io.Writer) { WriteHelp(w, synopsis, fs) }})
	// Parse prints the help, on stdout for --help and on stderr after an error.
	fs.Usage = func() {}
	return fs
}

// output is a flag set's output: errors go to the embedded writer
// (stderr); help is how Parse prints the command's help.
type output struct {
	io.Writer
	stdout io.Writer
	help   func(io.Writer)
}

// printHelp prints fs's help to stdout (for --help) or stderr.
func printHelp(fs *flag.FlagSet, toStdout bool) {
	o, ok := fs.Output().(*output)
	switch {
	case !ok:
		fs.PrintDefaults()
	case toStdout:
		o.help(o.stdout)
	default:
		o.help(o.Writer)
	}
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
// flag it prints the help on stderr and returns the flag package's error.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			printHelp(fs, errors.Is(err, flag.ErrHelp))
			return nil, err
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
