package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// formatFlag is --format, the one flag every command renders its output
// by, with one vocabulary (annotate.Names, and markdown for a comparison):
// each command takes the formats it can write. pretty, the plain report's
// older name, is taken for text (annotate.Canonical).
type formatFlag struct {
	value   string
	allowed []string
}

// addFormat adds --format to fs with the formats the command takes, the
// first being the default.
func addFormat(fs *flag.FlagSet, allowed ...string) *formatFlag {
	f := &formatFlag{value: allowed[0], allowed: allowed}
	fs.Var(f, "format", "how to render the output: `FORMAT`, one of "+strings.Join(allowed, ", ")+" (pretty is an alias of text)")
	return f
}

// String implements flag.Value.
func (f *formatFlag) String() string {
	if f == nil {
		return ""
	}
	return f.value
}

// Set implements flag.Value: a format the command does not take is
// refused with the list it takes and the nearest of them.
func (f *formatFlag) Set(s string) error {
	v := annotate.Canonical(s)
	if !slices.Contains(f.allowed, v) {
		msg := "expected one of " + strings.Join(f.allowed, ", ")
		if near := diag.Suggest(v, f.allowed); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		return fmt.Errorf("%s", msg)
	}
	f.value = v
	return nil
}

// alias adds --name as an alias of --format, its older spelling in this
// command (run's --reporter), kept so scripts that use it keep working.
func (f *formatFlag) alias(fs *flag.FlagSet, name string) {
	fs.Var(f, name, "the older spelling of --format `FORMAT`, kept as an alias")
}

// jsonAlias adds --json as an alias of --format json, the older spelling
// of scenario run and tool-bench run.
func (f *formatFlag) jsonAlias(fs *flag.FlagSet) {
	fs.Var(jsonFlag{f}, "json", "the older spelling of --format json, kept as an alias")
}

// jsonFlag is --json, a boolean flag that sets its --format to json.
type jsonFlag struct{ f *formatFlag }

func (j jsonFlag) String() string   { return "" }
func (j jsonFlag) IsBoolFlag() bool { return true }

// Set implements flag.Value: --json (or --json=true) is --format json;
// --json=false leaves the format as it is.
func (j jsonFlag) Set(s string) error {
	switch s {
	case "true":
		return j.f.Set("json")
	case "false":
		return nil
	}
	return fmt.Errorf("expected true or false")
}

// outputsFlag is --output of run and report: FILE is where the --format
// report goes, as it always was; FORMAT=FILE, repeatable, writes one more
// report of the same run in FORMAT to FILE (a file whose name has an = in
// it is given as ./name=x).
type outputsFlag struct {
	file    string
	extra   []extraOutput
	formats []string // the formats FORMAT=FILE takes
}

// extraOutput is one FORMAT=FILE of --output.
type extraOutput struct{ format, file string }

// formatWord is what may stand before the = of FORMAT=FILE.
func formatWord(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") == ""
}

// String implements flag.Value.
func (o *outputsFlag) String() string {
	if o == nil {
		return ""
	}
	return o.file
}

// Set implements flag.Value.
func (o *outputsFlag) Set(s string) error {
	if word, file, ok := strings.Cut(s, "="); ok && formatWord(word) {
		format := annotate.Canonical(word)
		switch {
		case !slices.Contains(o.formats, format):
			return fmt.Errorf("%s=: expected FORMAT=FILE with FORMAT one of %s", word, strings.Join(o.formats, ", "))
		case file == "" || file == "-":
			return fmt.Errorf("%s=: expected a file after the = (the --format report is the one that goes to stdout)", word)
		}
		o.extra = append(o.extra, extraOutput{format, file})
		return nil
	}
	if o.file != "" {
		return fmt.Errorf("a second FILE (after %s): give FORMAT=FILE for each report beyond the --format one", o.file)
	}
	o.file = s
	return nil
}

// check refuses two reports to one file.
func (o *outputsFlag) check() error {
	seen := map[string]bool{}
	if o.file != "" && o.file != "-" {
		seen[o.file] = true
	}
	for _, x := range o.extra {
		if seen[x.file] {
			return inputErr("--output: %s is given for two reports", x.file)
		}
		seen[x.file] = true
	}
	return nil
}

// allJSON reports whether every report is json, the one format a run
// streams to disk as it goes (annotate.NewRunOutput).
func (o *outputsFlag) allJSON(format string) bool {
	for _, x := range o.extra {
		if x.format != "json" {
			return false
		}
	}
	return format == "json"
}

// writeExtra writes each FORMAT=FILE report of env by rename
// (annotate.Render, as the Action's reports: input does), as --format
// FORMAT --output FILE would write it; json, when the run spooled its
// cases, is written by json (RunOutput.JSON).
func (c *Command) writeExtra(o *outputsFlag, env *report.Envelope, opt annotate.Options, json func(io.Writer, *report.Envelope) error) error {
	for _, x := range o.extra {
		var err error
		if x.format == "json" && json != nil {
			err = c.writeFile(x.file, func(w io.Writer) error { return json(w, env) })
		} else {
			var data []byte
			if data, err = annotate.Render(x.format, env, opt); err == nil {
				err = c.writeFileData(x.file, data)
			}
		}
		if err != nil {
			return fmt.Errorf("write the %s report: %w", x.format, err)
		}
		fmt.Fprintf(c.Stderr, "mcptest: %s report written to %s\n", x.format, x.file)
	}
	return nil
}
