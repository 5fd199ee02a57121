package annotate

import (
	"bytes"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestRunOutput: with the json reporter the cases go to a spool as they
// are computed and both the report and the stored envelope are the whole
// encoding; with another reporter nothing is spooled, the report is the
// reporter's and the stored envelope the JSON one.
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

		pretty, err := New("pretty", Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = NewRunOutput("pretty", pretty)
		if out.Emit() != nil {
			t.Errorf("%s: a spool for the pretty reporter", name)
		}
		var direct bytes.Buffer
		if err := pretty.Report(&direct, env); err != nil {
			t.Fatal(err)
		}
		rep.Reset()
		stored.Reset()
		if write, err = out.Render(env); err != nil || write(&rep) != nil || !bytes.Equal(rep.Bytes(), direct.Bytes()) {
			t.Errorf("%s: pretty report differs (%v)", name, err)
		}
		if err := out.JSON(&stored, env); err != nil || !bytes.Equal(stored.Bytes(), want) {
			t.Errorf("%s: stored envelope of a pretty run differs (%v)", name, err)
		}
		out.Close()
	}
}
