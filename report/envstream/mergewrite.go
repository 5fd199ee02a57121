package envstream

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// Merge merges the shard envelopes at paths as MergeFiles does and writes
// the merged envelope, under the run id runID, with out: out(fill) calls
// fill once with the writer the envelope goes to and returns fill's error
// or its own. It returns the merged envelope's head (no cases).
//
// When byRename, each call of out gives fill a new file that takes the
// output's place only when fill returns no error (a file written by
// rename): the envelope is then written as its cases are merged, its head
// predicted from the inputs' heads before their cases (predictHead), each
// case written once, by the goroutine that spooled it before, with no
// spool and no copy of the cases after the last one is merged. A merge
// that fails writes nothing (fill fails, the new file is dropped). When
// the head the merge computes at the end is not the one predicted (a
// shard whose totals or verdict are not its cases', a suite floor the
// merged run fails, an input that puts its cases first), or an input is
// not in suite order, out is called again and the envelope written as
// MergeFiles writes it: the same bytes, at the cost of reading the inputs
// twice. Without byRename (standard output, a pipe) it is written that way
// from the start, so nothing is written unless the merge succeeds.
//
// A merge's error is MergeFiles', word for word; an error of out is
// "write merged envelope: " and out's.
func Merge(paths []string, runID string, byRename bool, out func(fill func(io.Writer) error) error) (*report.Envelope, error) {
	if byRename {
		env, err := mergeWritten(paths, runID, out)
		if !errors.Is(err, errRewrite) {
			return env, err
		}
	}
	m, err := MergeFiles(paths)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	m.Env.Run.ID = runID
	if err := out(m.Write); err != nil {
		return nil, fmt.Errorf("write merged envelope: %w", err)
	}
	return m.Env, nil
}

// errRewrite stops a merge written as it merges whose envelope must be
// written as MergeFiles writes it (Merge).
var errRewrite = errors.New("merge: the envelope is written again")

// rewrites counts the merges written as they merged that were written
// again (errRewrite): the tests hold it at zero for shards mcptest wrote.
var rewrites atomic.Int64

// mergeWritten is Merge writing the envelope as its cases are merged, or
// errRewrite.
func mergeWritten(paths []string, runID string, out func(fill func(io.Writer) error) error) (env *report.Envelope, err error) {
	defer func() {
		if errors.Is(err, errRewrite) {
			rewrites.Add(1)
		}
	}()
	if len(paths) == 0 {
		return nil, errRewrite
	}
	defer paceCollector()()
	stream := annotate.NewCaseStream()
	mg, err := openInputs(paths, stream)
	if err != nil {
		var in *diag.InputError
		if !errors.As(err, &in) {
			err = &diag.InputError{Err: err}
		}
		return nil, err
	}
	defer mg.close()
	head, ok := predictHead(mg.ins, runID)
	if !ok {
		return nil, errRewrite
	}
	called := false
	var mergeErr error
	werr := out(func(w io.Writer) error {
		called = true
		env, mergeErr = writeMerged(mg, stream, head, w)
		return mergeErr
	})
	switch {
	case mergeErr != nil:
		var we *writeError
		if errors.As(mergeErr, &we) {
			return nil, fmt.Errorf("write merged envelope: %w", we.err)
		}
		return nil, mergeErr
	case werr != nil && !called:
		// The output did not open: the merge's own error, if it has
		// one, comes first, as when the merge was done before.
		return nil, errRewrite
	case werr != nil:
		return nil, fmt.Errorf("write merged envelope: %w", werr)
	}
	return env, nil
}

// writeError is an error writing the output, apart from the merge's.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// writeMerged folds the inputs' cases into stream, which writes to w
// after head, then checks the merge and writes the rest: errRewrite
// when the head is not the one written or an input is not in suite
// order, the merge's error (before an error writing w, a *writeError).
func writeMerged(mg *merging, stream *annotate.CaseSpool, head *report.Envelope, w io.Writer) (*report.Envelope, error) {
	if err := stream.Begin(w, head); err != nil {
		return nil, &writeError{err}
	}
	names, writeErr, err := fold(mg.ins, stream)
	if errors.Is(err, errUnsorted) {
		return nil, errRewrite
	}
	if err != nil {
		return nil, err
	}
	env, err := mg.finish(names)
	if err != nil {
		return nil, err
	}
	if writeErr != nil {
		return nil, &writeError{writeErr}
	}
	env.Run.ID = head.Run.ID
	if err := stream.End(env); errors.Is(err, annotate.ErrHeadMoved) {
		return nil, errRewrite
	} else if err != nil {
		return nil, &writeError{err}
	}
	return env, nil
}

// predictHead is the merged envelope's head before its cases, as the
// inputs' heads before their cases give it: their run, suite and source
// merged as baseline.MergeHeads merges them, their totals added up, and
// the verdict fail when one of them failed (a shard's suite floors are
// judged on the merged run, so they do not fail it). It is what the
// merge computes at the end unless an input's head says other than its
// cases, or a floor fails the merged run; writeMerged checks it there.
// It is not known (false) when an input's head does not precede its
// cases or the heads do not merge.
func predictHead(ins []*input, runID string) (*report.Envelope, bool) {
	heads := make([]baseline.Input, len(ins))
	var t report.Totals
	failed := false
	for i, in := range ins {
		if in.pre == nil {
			return nil, false
		}
		heads[i] = baseline.Input{Name: in.name, Envelope: in.pre}
		p := in.pre.Totals
		t.Total += p.Total
		t.Passed += p.Passed
		t.Failed += p.Failed
		t.Inconclusive += p.Inconclusive
		failed = failed || in.pre.Verdict == report.Fail
	}
	env, err := baseline.MergeHeads(heads)
	if err != nil {
		return nil, false
	}
	env.Totals = t
	env.Verdict = report.Pass
	if failed {
		env.Verdict = report.Fail
	}
	env.Run.ID = runID
	return env, true
}
