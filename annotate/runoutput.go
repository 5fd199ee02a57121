package annotate

import (
	"bytes"
	"io"

	"github.com/mcptest/mcptest/report"
)

// RunOutput is how a run's report is written as the run is computed: with
// the json reporter its cases are encoded into a CaseSpool as they come
// (Emit), so memory stays flat in the number of cases; with another
// reporter, which renders from the whole envelope, or when no spool can be
// made (no temporary directory), the run keeps its cases.
type RunOutput struct {
	rep   Reporter
	spool *CaseSpool
}

// NewRunOutput returns the output of a run reported by rep, the reporter
// named name (see New).
func NewRunOutput(name string, rep Reporter) *RunOutput {
	o := &RunOutput{rep: rep}
	if name == "json" {
		if spool, err := NewCaseSpool(); err == nil {
			o.spool = spool
		}
	}
	return o
}

// Emit is the run's engine.Options.Emit: nil unless the cases are spooled.
func (o *RunOutput) Emit() func(*report.CaseResult) error {
	if o.spool == nil {
		return nil
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
}
