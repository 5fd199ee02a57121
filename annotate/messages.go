package annotate

import (
	"io"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
)

// CleanMessage is Clean for an error message written over several lines
// that may carry recorded, fetched or typed text: each line is cleaned,
// the line breaks kept.
func CleanMessage(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Clean(l)
	}
	return strings.Join(lines, "\n")
}

// PrintDiag prints positioned errors the way compilers do (diag.Printer):
// the error, the source line its reader kept and a caret under the column,
// control characters escaped; for a runner's log a source line the runner
// would read as a workflow command is neutralised (LogLineCol).
func PrintDiag(w io.Writer, l diag.List, runnerLog bool) {
	p := diag.Printer{Clean: Clean}
	if runnerLog {
		p.Line = LogLineCol
	}
	p.Print(w, l)
}

// GuardStreams puts a program's stdout and stderr behind a RunnerLog each,
// so no line of recorded or fetched text can be run as a workflow command,
// and the user-info of the API URL apiURL is never printed (see
// APIURLRedactor). commands is where the program's own workflow commands
// go; flush writes what the logs hold.
func GuardStreams(stdout, stderr io.Writer, apiURL string) (out, errs, commands io.Writer, flush func()) {
	redact := APIURLRedactor(apiURL)
	o, e := NewRunnerLog(stdout, redact), NewRunnerLog(stderr, redact)
	return o, e, o.Commands(), func() {
		_ = o.Flush()
		_ = e.Flush()
	}
}
