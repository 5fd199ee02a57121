package baseline

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
)

// ReadFile reads the saved run envelope at path with read: report.Read
// for a run to render, ReadBaseline for a baseline. The read is bounded
// before it starts: a FIFO, a device or a file over MaxEnvelopeBytes is
// refused from its stat instead of blocking or filling the memory, and
// the reader stops at the limit. flag names the flag the path came from in
// messages ("--compare"), "" for an argument. A missing file, a refused
// one and one read does not accept are an *diag.InputError; any other failure
// to open the file is an error of its own.
func ReadFile(path, flag string, read func(r io.Reader, name string) (*report.Envelope, error)) (*report.Envelope, error) {
	env, _, err := readFileLimit(path, flag, MaxEnvelopeBytes, read)
	return env, err
}

// readFileLimit is ReadFile with the file bounded at limit bytes; it also
// returns the file's size.
func readFileLimit(path, flag string, limit int64, read func(r io.Reader, name string) (*report.Envelope, error)) (*report.Envelope, int64, error) {
	name := path
	if flag != "" {
		name = flag + " " + path
	}
	f, r, err := safefile.Open(path, limit)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, 0, &diag.InputError{Err: fmt.Errorf("%s: no such file", name)}
	case safefile.IsLimit(err):
		return nil, 0, &diag.InputError{Err: fmt.Errorf("%s: not a run envelope: %v", name, err)}
	case err != nil:
		return nil, 0, fmt.Errorf("open run envelope: %w", err)
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	env, err := read(r, path)
	if err != nil {
		return nil, size, &diag.InputError{Err: err}
	}
	return env, size, nil
}

// CompareFile compares cur with the baseline envelope at path, read as
// ReadFile reads it (flag names where path came from), under the --fail-on
// policy failOn. A policy ParsePolicy does not know comes first, then the
// baseline's own problems, both as an *diag.InputError.
func CompareFile(path, flag string, cur *report.Envelope, failOn string) (*Comparison, error) {
	policy, err := ParsePolicy(failOn)
	if err != nil {
		return nil, &diag.InputError{Err: err}
	}
	base, err := ReadFile(path, flag, ReadBaseline)
	if err != nil {
		return nil, err
	}
	return Compare(base, cur, Options{FailOn: policy}), nil
}

// MergeFiles reads the shard envelopes at paths (report.Read, as ReadFile
// reads them) and merges them (Merge), naming each by its path. A shard
// that does not read and shards that do not merge are an *diag.InputError.
func MergeFiles(paths []string) (*report.Envelope, error) {
	in, err := ReadEnvelopes(paths, int64(len(paths))*MaxEnvelopeBytes)
	if err != nil {
		return nil, err
	}
	env, err := Merge(in)
	if err != nil {
		return nil, &diag.InputError{Err: err}
	}
	return env, nil
}

// ReadEnvelopes reads the run envelopes at paths (report.Read, as ReadFile
// reads them) for Merge, naming each by its path, with the files together
// bounded at limit bytes (and each at MaxEnvelopeBytes): a file over what
// is left is refused from its stat before it is read. A file that does not
// read or does not fit is an *diag.InputError.
func ReadEnvelopes(paths []string, limit int64) ([]Input, error) {
	in := make([]Input, 0, len(paths))
	left := limit
	for _, p := range paths {
		if left < 0 {
			left = 0
		}
		env, n, err := readFileLimit(p, "", min(left, MaxEnvelopeBytes), report.Read)
		if err != nil {
			return nil, err
		}
		left -= n
		in = append(in, Input{Name: p, Envelope: env})
	}
	return in, nil
}
