package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/annotate"
)

// setOutputs sets the step's outputs from the report.
func (r *run) setOutputs(rep annotate.ActionReport, found bool, commentID int64) {
	verdict := "pass"
	if rep.Gate.Failed {
		verdict = "fail"
	}
	o := r.out
	o["verdict"] = verdict
	o["passed"] = strconv.Itoa(rep.Env.Totals.Passed)
	o["failed"] = strconv.Itoa(rep.Env.Totals.Failed)
	o["flips"], o["regressions"], o["fixes"] = "0", "0", "0"
	if rep.Cmp != nil {
		s := rep.Cmp.Summary
		o["flips"], o["regressions"], o["fixes"] = strconv.Itoa(s.Flips), strconv.Itoa(s.Regressions), strconv.Itoa(s.Fixes)
	}
	o["baseline-found"] = strconv.FormatBool(found)
	o["baseline-run-id"] = ""
	if rep.BaselineRunID != 0 {
		o["baseline-run-id"] = strconv.FormatInt(rep.BaselineRunID, 10)
	}
	o["report-path"] = r.in.reportPath
	if _, ok := o["history-path"]; !ok {
		o["history-path"] = "" // writePage sets it
	}
	o["comment-id"] = ""
	if commentID != 0 {
		o["comment-id"] = strconv.FormatInt(commentID, 10)
	}
}

// outputNames is the order outputs are written in.
var outputNames = []string{"verdict", "passed", "failed", "flips", "regressions", "fixes", "baseline-found", "baseline-run-id", "report-path", "comment-id", "history-path"}

// writeOutputs appends the outputs to GITHUB_OUTPUT. go-githubactions
// writes a fixed delimiter, which a value could forge (action.md): here
// each value goes in a heredoc with a random delimiter, and a value that
// holds a line break or the delimiter is refused.
func (r *run) writeOutputs() error {
	file := r.env.Getenv("GITHUB_OUTPUT")
	if file == "" {
		return nil
	}
	var b strings.Builder
	if err := formatOutputs(&b, r.out, randomDelimiter()); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write outputs: %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("write outputs: %w", err)
	}
	return f.Close()
}

// randomDelimiter is a heredoc delimiter no value can guess.
func randomDelimiter() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "ghadelimiter_" + hex.EncodeToString(b[:])
}

// formatOutputs writes name<<DELIM / value / DELIM for each output.
func formatOutputs(b *strings.Builder, out map[string]string, delim string) error {
	for _, k := range outputNames {
		v, ok := out[k]
		if !ok {
			continue
		}
		if strings.ContainsAny(v, "\r\n") || strings.Contains(v, delim) {
			return fmt.Errorf("output %s: a value with a line break or the delimiter is refused", k)
		}
		fmt.Fprintf(b, "%s<<%s\n%s\n%s\n", k, delim, v, delim)
	}
	return nil
}
