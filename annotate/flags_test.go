package annotate_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/report"
)

// TestFormatFlag: --format takes the command's formats (pretty is text),
// refuses another with the list and the nearest, and --reporter and
// --json are its older spellings.
func TestFormatFlag(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := annotate.AddFormat(fs, "text", "json")
	f.Alias(fs, "reporter")
	f.JSONAlias(fs)
	if f.Value != "text" {
		t.Fatalf("default %q, want the first format", f.Value)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "pretty"}, "text"}, {[]string{"--reporter", "json"}, "json"},
		{[]string{"--json"}, "json"}, {[]string{"--format", "json", "--json=false"}, "json"},
	} {
		f.Value = "text"
		if err := fs.Parse(tt.args); err != nil || f.Value != tt.want {
			t.Errorf("%v: %q, %v; want %q", tt.args, f.Value, err, tt.want)
		}
	}
	err := f.Set("jsn")
	if err == nil || !strings.Contains(err.Error(), "expected one of text, json (did you mean json?)") {
		t.Errorf("Set(jsn) = %v", err)
	}
}

// TestOutputs: FILE once, FORMAT=FILE repeatable, and two reports to one
// file refused however it is spelt.
func TestOutputs(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if err := os.WriteFile(a, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o := &annotate.Outputs{Formats: annotate.Names}
	for _, v := range []string{"r.txt", "json=" + a, "pretty=" + filepath.Join(dir, "t.txt")} {
		if err := o.Set(v); err != nil {
			t.Fatalf("Set(%q): %v", v, err)
		}
	}
	if o.File != "r.txt" || len(o.Extra) != 2 || o.Extra[1].Format != "text" || o.AllJSON("json") {
		t.Errorf("outputs %+v", o)
	}
	for _, bad := range []string{"second.txt", "yaml=x", "json=", "json=-"} {
		if err := o.Set(bad); err == nil {
			t.Errorf("Set(%q) took it", bad)
		}
	}
	if err := o.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	o.Extra = append(o.Extra, annotate.ExtraOutput{Format: "sarif", File: dir + "/./a.json"})
	if err := o.Check(); err == nil || !strings.Contains(err.Error(), "are one file") {
		t.Errorf("Check of one file twice = %v", err)
	}
}

// TestWriteExtra writes each FORMAT=FILE with the writer it is given and
// says so on the log.
func TestWriteExtra(t *testing.T) {
	env := &report.Envelope{Verdict: report.Pass}
	o := &annotate.Outputs{Formats: annotate.Names, Extra: []annotate.ExtraOutput{{Format: "junit", File: "r.xml"}}}
	files := map[string]string{}
	write := func(path string, fill func(io.Writer) error) error {
		var b bytes.Buffer
		err := fill(&b)
		files[path] = b.String()
		return err
	}
	var log bytes.Buffer
	if err := o.WriteExtra(env, annotate.Options{}, nil, write, &log); err != nil {
		t.Fatal(err)
	}
	want, _ := annotate.Render("junit", env, annotate.Options{})
	if files["r.xml"] != string(want) || log.String() != "mcptest: junit report written to r.xml\n" {
		t.Errorf("wrote %q, log %q", files, log.String())
	}
}
