package baseline

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/report"
	"github.com/mcptest/mcptest/engine/safefile"
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
	name := path
	if flag != "" {
		name = flag + " " + path
	}
	f, r, err := safefile.Open(path, MaxEnvelopeBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, &diag.InputError{Err: fmt.Errorf("%s: no such file", name)}
	case safefile.IsLimit(err):
		return nil, &diag.InputError{Err: fmt.Errorf("%s: not a run envelope: %v", name, err)}
	case err != nil:
		return nil, fmt.Errorf("open run envelope: %w", err)
	}
	defer f.Close()
	env, err := read(r, path)
	if err != nil {
		return nil, &diag.InputError{Err: err}
	}
	return env, nil
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
	in := make([]Input, 0, len(paths))
	for _, p := range paths {
		env, err := ReadFile(p, "", report.Read)
		if err != nil {
			return nil, err
		}
		in = append(in, Input{Name: p, Envelope: env})
	}
	env, err := Merge(in)
	if err != nil {
		return nil, &diag.InputError{Err: err}
	}
	return env, nil
}
