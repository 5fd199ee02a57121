package annotate

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcptest/mcptest/report"
)

// JUnit writes the run as JUnit XML for the test tabs of CI systems. Each
// case is one testcase (classname: the suite file; file and line: where
// the case is declared). A case with per-run rows (a tool_selection: floor)
// adds one testcase per run, named as the pretty reporter names the row
// ("weather selection #3") with the case name as classname, failed when the
// run missed pass^k; any other case with several runs adds one testcase per
// run the same way, failed when the run failed a per-run check. A failing case's testcase holds one <failure> whose
// message is the first thing that failed and whose text lists every failed
// assertion (file:line:col, message, actual value), floor and error
// finding; an inconclusive case is <skipped>. Times are the run's duration
// on the testsuite only (cases are replayed, not timed), so the document is
// deterministic apart from the run id, timestamp and duration.
type JUnit struct{}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// Report implements Reporter.
func (JUnit) Report(w io.Writer, env *report.Envelope) error {
	suite := junitSuite{
		Name:      xmlText(env.Suite.Path),
		Time:      seconds(env.Run.DurationMS),
		Timestamp: junitTimestamp(env.Run.StartedAt),
	}
	prop := func(name, value string) {
		if value != "" {
			suite.Properties = append(suite.Properties, junitProperty{Name: name, Value: xmlText(value)})
		}
	}
	prop("mcptest.version", env.Tool.Version)
	prop("run.id", env.Run.ID)
	prop("run.mode", env.Run.Mode)
	prop("run.shard", env.Run.Shard)
	if s := env.Source; s != nil {
		prop("source.repo", s.Repo)
		prop("source.branch", s.Branch)
		prop("source.commit", s.Commit)
	}
	prop("suite.sha256", env.Suite.SHA256)
	if e := env.Environment; e != nil {
		prop("environment.platform", e.Platform)
		prop("environment.ci", e.CI)
	}
	prop("verdict", string(env.Verdict))
	add := func(tc junitCase) {
		suite.Tests++
		switch {
		case tc.Failure != nil:
			suite.Failures++
		case tc.Skipped != nil:
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	for _, c := range env.Cases {
		tc := junitCase{
			Name:      xmlText(c.Name),
			Classname: xmlText(env.Suite.Path),
			Time:      "0",
			File:      xmlText(c.Position.File),
			Line:      c.Position.Line,
			SystemOut: xmlText(figures(c) + worldText(c)),
		}
		switch c.Verdict {
		case report.Fail:
			problems := caseProblems(c)
			f := &junitFailure{Message: "case failed", Type: "mcptest.case"}
			if len(problems) > 0 {
				f.Message, f.Type = problems[0].Message, "mcptest."+problems[0].Kind
			}
			var text strings.Builder
			for _, p := range problems {
				text.WriteString(p.Text())
				text.WriteString("\n")
			}
			f.Message, f.Text = xmlText(f.Message), xmlText(text.String())
			tc.Failure = f
		case report.Pass:
			for _, f := range restrictedOnPass(c) {
				tc.SystemOut += "\n" + xmlText(f.Level+": "+f.Message)
			}
		case report.Inconclusive:
			msg := "inconclusive"
			if ps := caseProblems(c); len(ps) > 0 {
				msg = ps[0].Message
			}
			tc.Skipped = &junitSkipped{Message: xmlText(msg)}
		}
		add(tc)
		if ts := c.ToolSelection; ts != nil {
			for _, r := range ts.Runs {
				rc := junitCase{
					Name:      xmlText(r.Name),
					Classname: xmlText(c.Name),
					Time:      "0",
					File:      xmlText(c.Position.File),
					Line:      c.Position.Line,
				}
				what := runRowWords(ts, r)
				if !r.PassK {
					rc.Failure = &junitFailure{Message: xmlText("run " + strconv.Itoa(r.Run) + " missed pass^k: " + what), Type: "mcptest.run", Text: xmlText(what)}
				} else {
					rc.SystemOut = xmlText(what)
				}
				add(rc)
			}
		} else if r := c.Reliability; r != nil {
			for _, row := range r.Rows {
				add(junitRun(c, row))
			}
		}
	}
	doc := junitSuites{
		Name: "mcptest", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped,
		Time: suite.Time, Suites: []junitSuite{suite},
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode junit: %w", err)
	}
	buf.WriteString("\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// junitRun is the testcase of one run of a case with several: named as the
// pretty reporter names the row ("triage #2"), with the case name as
// classname, failed when the run failed a per-run check.
func junitRun(c *report.CaseResult, row report.RunVerdict) junitCase {
	rc := junitCase{
		Name:      xmlText(report.RunName(c.Name, row.Run)),
		Classname: xmlText(c.Name),
		Time:      "0",
		File:      xmlText(c.Position.File),
		Line:      c.Position.Line,
	}
	if !row.Passed {
		what := runWords(row)
		rc.Failure = &junitFailure{Message: xmlText("run " + strconv.Itoa(row.Run) + " failed: " + what), Type: "mcptest.run", Text: xmlText(what)}
	}
	return rc
}

// xmlText makes recorded text safe for XML 1.0: control characters, which
// XML cannot carry even escaped, become visible \u escapes (as Clean does
// for a terminal), keeping line breaks and tabs.
func xmlText(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == '\n' || r == '\t' {
			b.WriteRune(r)
			continue
		}
		b.WriteString(Clean(string(r)))
	}
	return b.String()
}

func seconds(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64)
}

// junitTimestamp renders an RFC 3339 time as JUnit's ISO 8601 without a
// zone (UTC), or "" when it does not parse.
func junitTimestamp(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05")
}
