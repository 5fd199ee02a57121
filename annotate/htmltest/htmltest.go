// Package htmltest checks a rendered HTML report against the envelope it
// was rendered from, without a browser: the structural checks that stand
// in for full golden files, shared by the reporter's tests and the
// command's. One page (the hostile fixture) keeps a full golden.
package htmltest

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/report"
)

var (
	dataCase   = regexp.MustCompile(`data-case="([^"]*)"`)
	caseItem   = regexp.MustCompile(`<li class="case (\w+)" id="case-(\d+)" data-verdict="(\w+)"`)
	caseName   = regexp.MustCompile(`<span class="case-name">([^<]*)</span>`)
	runTimelne = regexp.MustCompile(`<section class="run-ev`)
)

// CheckStructure checks a rendered HTML report against its envelope
// without a browser: the verdict and counts in the summary strip, one
// list item per case in suite order with its name and verdict, Review
// first listing exactly the cases that did not pass or called a restricted
// tool, a figure shown failing for every failed threshold assertion, the
// strip's figure failing when an assertion failed, run timelines where the
// envelope has evidence, and the audit block after the cases.
func CheckStructure(t testing.TB, name string, env *report.Envelope, page string) {
	t.Helper()
	if !strings.Contains(page, fmt.Sprintf(`id="run-verdict">%s<`, env.Verdict)) {
		t.Errorf("%s: the summary strip does not show the verdict %s", name, env.Verdict)
	}
	tot := env.Totals
	if want := fmt.Sprintf(`<strong>%d</strong> cases: <span class="n-pass">%d passed</span>, <span class="n-fail">%d failed</span>, <span class="n-inc">%d inconclusive</span>`, tot.Total, tot.Passed, tot.Failed, tot.Inconclusive); !strings.Contains(page, want) {
		t.Errorf("%s: the summary strip lacks the counts %q", name, want)
	}
	items := caseItem.FindAllStringSubmatch(page, -1)
	if len(items) != len(env.Cases) {
		t.Fatalf("%s: %d case items, want %d", name, len(items), len(env.Cases))
	}
	cases := page[strings.Index(page, `id="case-list"`):]
	names := caseName.FindAllStringSubmatch(cases, -1)
	for i, c := range env.Cases {
		if items[i][2] != fmt.Sprint(i+1) || items[i][3] != string(c.Verdict) {
			t.Errorf("%s: case item %d is %q, want case-%d %s", name, i, items[i][0], i+1, c.Verdict)
		}
		if i < len(names) && html.UnescapeString(names[i][1]) != annotate.Clean(c.Name) {
			t.Errorf("%s: case %d is named %q, want %q", name, i+1, html.UnescapeString(names[i][1]), c.Name)
		}
	}
	var want, got []string
	for _, c := range env.Cases {
		if c.Verdict != report.Pass || restrictedCall(c) {
			want = append(want, annotate.Clean(c.Name))
		}
	}
	if i := strings.Index(page, `id="review"`); i >= 0 {
		for _, m := range dataCase.FindAllStringSubmatch(page[i:strings.Index(page, `id="cases"`)], -1) {
			got = append(got, html.UnescapeString(m[1]))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: Review first lists %q, want %q", name, got, want)
	}
	checkFigures(t, name, env, page)
	checkStrip(t, name, env, page)
	if a, c := strings.Index(page, `id="audit"`), strings.Index(page, `id="cases"`); a < c {
		t.Errorf("%s: the audit block is not after the cases", name)
	}
}

// restrictedCall reports whether a case called a restricted tool of its
// tool_edges: block (an error finding of that gate): a passing one is
// listed under Review first too.
func restrictedCall(c *report.CaseResult) bool {
	for _, f := range c.Findings {
		if f.Gate == "tool_edges" && f.Level == "error" {
			return true
		}
	}
	return false
}

// checkStrip: when a case failed on an assertion, the summary strip's
// figure is a failing one (the worst floor, or the failing assertion),
// never a passing figure shown as the closest floor.
func checkStrip(t testing.TB, name string, env *report.Envelope, page string) {
	t.Helper()
	failed := false
	for _, c := range env.Cases {
		for _, a := range c.Assertions {
			failed = failed || c.Verdict == report.Fail && !a.Passed
		}
	}
	if failed && !strings.Contains(page, `<div class="fig-box fail" id="worst-floor">`) {
		t.Errorf("%s: a case failed on an assertion, but the summary strip does not show a failing figure", name)
	}
}

// numericMatcher reports a matcher that holds a figure to a number:
// {">=": 80}, {exact: 0}, {schema: {minimum: 70}}.
func numericMatcher(m any) bool {
	mm, ok := m.(map[string]any)
	if !ok || len(mm) != 1 {
		return false
	}
	for k, v := range mm {
		if sch, ok := v.(map[string]any); ok && k == "schema" {
			_, min := sch["minimum"].(float64)
			_, max := sch["maximum"].(float64)
			return len(sch) == 1 && (min || max)
		}
		_, num := v.(float64)
		return num && strings.Contains(">=<=exact", k)
	}
	return false
}

// checkFigures: every failed assertion that holds a figure to a
// threshold shows that figure as failing, and each case with evidence
// shows at least one run timeline.
func checkFigures(t testing.TB, name string, env *report.Envelope, page string) {
	t.Helper()
	withEvidence := 0
	for _, c := range env.Cases {
		if len(c.Evidence) > 0 {
			withEvidence++
		}
		for _, a := range c.Assertions {
			if _, num := c.Targets[a.Target]; a.Passed || !num || !numericMatcher(a.Matcher) {
				continue
			}
			if !strings.Contains(page, `class="fig fail"`) || !strings.Contains(page, "<code>"+a.Target+"</code>") {
				t.Errorf("%s: the failed figure %s of %q is not shown failing", name, a.Target, c.Name)
			}
		}
	}
	if n := len(runTimelne.FindAllString(page, -1)); n < withEvidence {
		t.Errorf("%s: %d run timelines for %d cases with evidence", name, n, withEvidence)
	}
}
