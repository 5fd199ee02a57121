package annotate

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
)

// FormatFlag is --format, the one flag every command renders its output
// by, with one vocabulary (Names, and markdown for a comparison): each
// command takes the formats it can write. pretty, the plain report's older
// name, is taken for text (Canonical).
type FormatFlag struct {
	Value   string
	allowed []string
}

// AddFormat adds --format to fs with the formats the command takes, the
// first being the default.
func AddFormat(fs *flag.FlagSet, allowed ...string) *FormatFlag {
	f := &FormatFlag{Value: allowed[0], allowed: allowed}
	fs.Var(f, "format", "how to render the output: `FORMAT`, one of "+strings.Join(allowed, ", ")+" (pretty is an alias of text)")
	return f
}

// String implements flag.Value.
func (f *FormatFlag) String() string {
	if f == nil {
		return ""
	}
	return f.Value
}

// Set implements flag.Value: a format the command does not take is
// refused with the list it takes and the nearest of them.
func (f *FormatFlag) Set(s string) error {
	v := Canonical(s)
	if !slices.Contains(f.allowed, v) {
		msg := "expected one of " + strings.Join(f.allowed, ", ")
		if near := diag.Suggest(v, f.allowed); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		return fmt.Errorf("%s", msg)
	}
	f.Value = v
	return nil
}

// Alias adds --name as an alias of --format, its older spelling in a
// command (run's --reporter), kept so scripts that use it keep working.
func (f *FormatFlag) Alias(fs *flag.FlagSet, name string) {
	fs.Var(f, name, "the older spelling of --format `FORMAT`, kept as an alias")
}

// JSONAlias adds --json as an alias of --format json, the older spelling
// of scenario run and tool-bench run.
func (f *FormatFlag) JSONAlias(fs *flag.FlagSet) {
	fs.Var(jsonFlag{f}, "json", "the older spelling of --format json, kept as an alias")
}

// jsonFlag is --json, a boolean flag that sets its --format to json.
type jsonFlag struct{ f *FormatFlag }

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

// Outputs is --output of run and report: File is where the --format
// report goes, as it always was; FORMAT=FILE, repeatable, writes one more
// report of the same run in FORMAT to FILE (a file whose name has an = in
// it is given as ./name=x).
type Outputs struct {
	File    string
	Extra   []ExtraOutput
	Formats []string // the formats FORMAT=FILE takes
}

// ExtraOutput is one FORMAT=FILE of --output.
type ExtraOutput struct{ Format, File string }

// formatWord is what may stand before the = of FORMAT=FILE.
func formatWord(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz") == ""
}

// String implements flag.Value.
func (o *Outputs) String() string {
	if o == nil {
		return ""
	}
	return o.File
}

// Set implements flag.Value.
func (o *Outputs) Set(s string) error {
	if word, file, ok := strings.Cut(s, "="); ok && formatWord(word) {
		format := Canonical(word)
		switch {
		case !slices.Contains(o.Formats, format):
			return fmt.Errorf("%s=: expected FORMAT=FILE with FORMAT one of %s", word, strings.Join(o.Formats, ", "))
		case file == "" || file == "-":
			return fmt.Errorf("%s=: expected a file after the = (the --format report is the one that goes to stdout)", word)
		}
		o.Extra = append(o.Extra, ExtraOutput{format, file})
		return nil
	}
	if o.File != "" {
		return fmt.Errorf("a second FILE (after %s): give FORMAT=FILE for each report beyond the --format one", o.File)
	}
	o.File = s
	return nil
}

// Check refuses two reports to one file: files are compared, not their
// spellings (a.json, ./a.json, an absolute path, a link to it, a hard
// link: safefile.Resolve, then os.SameFile for files that exist).
func (o *Outputs) Check() error {
	type seenFile struct {
		name, real string
		fi         os.FileInfo
	}
	var seen []seenFile
	add := func(name string) error {
		f := seenFile{name: name, real: safefile.Resolve(name)}
		f.fi, _ = os.Stat(f.real)
		for _, s := range seen {
			if s.real == f.real || s.fi != nil && f.fi != nil && os.SameFile(s.fi, f.fi) {
				if s.name == name {
					return diag.Input("--output: %s is given for two reports", name)
				}
				return diag.Input("--output: %s and %s are one file, given for two reports", s.name, name)
			}
		}
		seen = append(seen, f)
		return nil
	}
	if o.File != "" && o.File != "-" {
		if err := add(o.File); err != nil {
			return err
		}
	}
	for _, x := range o.Extra {
		if err := add(x.File); err != nil {
			return err
		}
	}
	return nil
}

// AllJSON reports whether every report is json, the one format a run
// streams to disk as it goes (NewRunOutput).
func (o *Outputs) AllJSON(format string) bool {
	for _, x := range o.Extra {
		if x.Format != "json" {
			return false
		}
	}
	return format == "json"
}

// WriteExtra writes each FORMAT=FILE report of env with write, the
// command's writer of files by rename (Render, as the Action's reports:
// input does), as --format FORMAT --output FILE would write it, and says
// so on log; json, when the run spooled its cases, is written by json
// (RunOutput.JSON).
func (o *Outputs) WriteExtra(env *report.Envelope, opt Options, json func(io.Writer, *report.Envelope) error,
	write func(path string, fill func(io.Writer) error) error, log io.Writer) error {
	for _, x := range o.Extra {
		fill := func(w io.Writer) error { return json(w, env) }
		if x.Format != "json" || json == nil {
			data, err := Render(x.Format, env, opt)
			if err != nil {
				return fmt.Errorf("write the %s report: %w", x.Format, err)
			}
			fill = func(w io.Writer) error { _, err := w.Write(data); return err }
		}
		if err := write(x.File, fill); err != nil {
			return fmt.Errorf("write the %s report: %w", x.Format, err)
		}
		fmt.Fprintf(log, "mcptest: %s report written to %s\n", x.Format, x.File)
	}
	return nil
}
