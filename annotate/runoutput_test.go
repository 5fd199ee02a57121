package annotate

import (
	"bytes"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestRunOutput: with the json reporter the cases go to a spool as they
// are computed and both the report and the stored envelope are the whole
// encoding; with the text reporter (and its alias pretty) the cases and
// their lines are spooled and the report is byte for byte the reporter's
// over the whole envelope; with another reporter nothing is spooled, the
// report is the reporter's and the stored envelope the JSON one.
func TestRunOutput(t *testing.T) {
	for name, env := range streamEnvelopes(t) {
		want := encodeWhole(t, env)
		out := NewRunOutput("json", JSON{})
		if out.Emit() == nil {
			t.Fatalf("%s: json reporter without a spool", name)
		}
		for _, c := range env.Cases {
			if err := out.Emit()(c); err != nil {
				t.Fatal(err)
			}
		}
		head := *env
		head.Cases = []*report.CaseResult{}
		write, err := out.Render(&head)
		if err != nil {
			t.Fatal(err)
		}
		var rep, stored bytes.Buffer
		if err := write(&rep); err != nil || !bytes.Equal(rep.Bytes(), want) {
			t.Errorf("%s: json report differs (%v):\n%s\nwant:\n%s", name, err, rep.Bytes(), want)
		}
		if err := out.JSON(&stored, &head); err != nil || !bytes.Equal(stored.Bytes(), want) {
			t.Errorf("%s: stored envelope differs (%v)", name, err)
		}
		out.Close()

		for _, format := range []string{"text", "pretty", "junit"} {
			rp, err := New(format, Options{Color: format == "pretty"})
			if err != nil {
				t.Fatal(err)
			}
			out = NewRunOutput(format, rp)
			var direct bytes.Buffer
			if err := rp.Report(&direct, env); err != nil {
				t.Fatal(err)
			}
			run := env
			if format == "junit" {
				if out.Emit() != nil {
					t.Errorf("%s: a spool for the junit reporter", name)
				}
			} else {
				if out.Emit() == nil {
					t.Fatalf("%s: %s reporter without a spool", name, format)
				}
				for _, c := range env.Cases {
					if err := out.Emit()(c); err != nil {
						t.Fatal(err)
					}
				}
				run = &head
			}
			for range 2 { // the report may be written more than once
				rep.Reset()
				stored.Reset()
				if write, err = out.Render(run); err != nil || write(&rep) != nil || !bytes.Equal(rep.Bytes(), direct.Bytes()) {
					t.Errorf("%s: %s report differs (%v):\n%s\nwant:\n%s", name, format, err, rep.Bytes(), direct.Bytes())
				}
				if err := out.JSON(&stored, run); err != nil || !bytes.Equal(stored.Bytes(), want) {
					t.Errorf("%s: stored envelope of a %s run differs (%v)", name, format, err)
				}
			}
			out.Close()
		}
	}
}
