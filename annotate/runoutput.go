package annotate

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/mcptest/mcptest/internal/spoolfile"
	"github.com/mcptest/mcptest/report"
)

// RunOutput is how a run's report is written as the run is computed: with
// the json reporter its cases are encoded into a CaseSpool as they come
// (Emit), so memory stays flat in the number of cases; with the text
// reporter each case's lines are also written to a spool of their own as
// it comes, and the report is those lines and the run's totals, so
// memory stays flat in the number of failing cases too; with another
// reporter, which renders from the whole envelope, or when no spool can be
// made (no temporary directory), the run keeps its cases.
type RunOutput struct {
	rep   Reporter
	spool *CaseSpool
	text  *textSpool
}

// textSpool holds the text reporter's lines of the cases so far in a
// temporary file, and what its totals line needs of them.
type textSpool struct {
	p         Pretty
	f         *spoolfile.File
	w         *bufio.Writer
	b         strings.Builder
	unchecked int64
}

func (t *textSpool) add(c *report.CaseResult) error {
	t.b.Reset()
	t.p.caseText(&t.b, c)
	t.unchecked += c.Counts["arguments.unchecked"]
	if _, err := t.w.WriteString(t.b.String()); err != nil {
		return fmt.Errorf("spool the run's report: %w", err)
	}
	return nil
}

// write writes the spooled lines, then env's totals.
func (t *textSpool) write(w io.Writer, env *report.Envelope) error {
	if err := t.w.Flush(); err != nil {
		return fmt.Errorf("spool the run's report: %w", err)
	}
	size, err := t.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("spool the run's report: %w", err)
	}
	if _, err := io.Copy(w, io.NewSectionReader(t.f, 0, size)); err != nil {
		return err
	}
	var b strings.Builder
	t.p.tail(&b, env, t.unchecked)
	_, err = io.WriteString(w, b.String())
	return err
}

// NewRunOutput returns the output of a run reported by rep, the reporter
// named name (see New).
func NewRunOutput(name string, rep Reporter) *RunOutput {
	o := &RunOutput{rep: rep}
	p, isText := rep.(Pretty)
	if name != "json" && (Canonical(name) != "text" || !isText) {
		return o
	}
	spool, err := NewCaseSpool()
	if err != nil {
		return o
	}
	if isText {
		f, err := spoolfile.Create("mcptest-report-*.txt")
		if err != nil {
			_ = spool.Close()
			return o
		}
		o.text = &textSpool{p: p, f: f, w: bufio.NewWriterSize(f, 64<<10)}
	}
	o.spool = spool
	return o
}

// Emit is the run's engine.Options.Emit: nil unless the cases are spooled.
func (o *RunOutput) Emit() func(*report.CaseResult) error {
	if o.spool == nil {
		return nil
	}
	if o.text != nil {
		return func(c *report.CaseResult) error {
			if err := o.text.add(c); err != nil {
				return err
			}
			return o.spool.Add(c)
		}
	}
	return o.spool.Add
}

// Prepare is the run's engine.Options.Prepare: nil unless the cases are
// spooled, then each case's encoding, done on the worker that computed it.
func (o *RunOutput) Prepare() func(*report.CaseResult) error {
	if o.spool == nil {
		return nil
	}
	return o.spool.Prepare
}

// JSON writes the envelope as the json reporter does, with the spooled
// cases when there are some: the copy the workspace store keeps.
func (o *RunOutput) JSON(w io.Writer, env *report.Envelope) error {
	if o.spool != nil {
		return o.spool.WriteEnvelope(w, env)
	}
	return JSON{}.Report(w, env)
}

// Render returns the function that writes the report. A report that is not
// spooled is rendered here, whole, so that a reporter's error comes before
// any byte is written; the function may then be called more than once.
func (o *RunOutput) Render(env *report.Envelope) (func(io.Writer) error, error) {
	if o.text != nil {
		return func(w io.Writer) error { return o.text.write(w, env) }, nil
	}
	if o.spool != nil {
		return func(w io.Writer) error { return o.spool.WriteEnvelope(w, env) }, nil
	}
	var buf bytes.Buffer
	if err := o.rep.Report(&buf, env); err != nil {
		return nil, err
	}
	return func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }, nil
}

// Close removes the spool, if there is one.
func (o *RunOutput) Close() {
	if o.spool != nil {
		_ = o.spool.Close()
	}
	if o.text != nil {
		_ = o.text.f.Close()
	}
}
