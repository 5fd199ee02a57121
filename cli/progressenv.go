package cli

import (
	"fmt"
	"io"
	"time"
)

// ProgressEnv sets the interval of the progress lines in a CI log.
const ProgressEnv = "MCPTEST_PROGRESS_INTERVAL"

// RunProgress is a run's progress on stderr: the live line on a terminal,
// cleared before the report; a line every interval (ProgressEnv's value
// read with getenv, else 10s) and every tenth of the work on CI; nothing
// when quiet or when machineStdout, a report for a machine going to
// stdout (ChooseProgress). A malformed interval is an error that names
// the variable.
func RunProgress(stderr io.Writer, getenv func(string) string, quiet, machineStdout, onCI bool) (*Progress, error) {
	every := time.Duration(0)
	if v := getenv(ProgressEnv); v != "" {
		var err error
		if every, err = time.ParseDuration(v); err != nil || every <= 0 {
			return nil, fmt.Errorf("%s=%q: want a duration such as 30s or 1m", ProgressEnv, v)
		}
	}
	return NewProgress(stderr, ChooseProgress(quiet, machineStdout, stderr, onCI), every), nil
}
