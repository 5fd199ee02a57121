package annotate

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptest/mcptest/report"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/internal/diag"
)

var hostile = []string{
	"::error::pwned",
	"a\nb\r\nc%0A",
	"@octocat and #12 and @org/team",
	"<script>alert(1)</script> <!-- x --> <img src=x>",
	"| a | b |",
	"```` ``` `",
	"[x](javascript:alert(1)) ![i](http://e/x.png)",
	"_GitHubActionsFileCommandDelimeter_",
	"zero\u200bwidth \u202eRTL\u202c \ufeffBOM \u2066iso\u2069",
	"&amp; &#64;octocat",
	strings.Repeat("long ", 500),
}

var (
	rawMention = regexp.MustCompile(`@[A-Za-z0-9]`)
	rawRef     = regexp.MustCompile(`(^|[^&])#[0-9]`)
	rawPipe    = regexp.MustCompile(`(^|[^\\])\|`)
)

func checkText(t *testing.T, in, out string) {
	t.Helper()
	if strings.ContainsAny(out, "<>\r\n") || rawPipe.MatchString(out) || rawMention.MatchString(out) || rawRef.MatchString(out) {
		t.Errorf("Text(%q) = %q lets markup through", in, out)
	}
	for _, r := range out {
		if isInvisible(r) || isControl(r) {
			t.Errorf("Text(%q) = %q keeps %U", in, out, r)
		}
	}
	if n := utf8.RuneCountInString(out); n > 12*MaxField+10 {
		t.Errorf("Text(%q) is %d runes long", in, n)
	}
}

func TestText(t *testing.T) {
	for _, s := range hostile {
		checkText(t, s, Text(s, 0))
	}
	if got := Text("@octocat", 0); got != "@&#8203;octocat" {
		t.Errorf("mention: %q", got)
	}
	if got := Text(strings.Repeat("x", 400), 0); utf8.RuneCountInString(got) != MaxField+1 {
		t.Errorf("not capped: %d runes", utf8.RuneCountInString(got))
	}
}

// TestClip pins the cap on recorded text at its boundary: n runes pass
// unchanged, n+1 are cut to n and "…", and the cut counts runes, never
// bytes, so multi-byte text stays valid UTF-8 and as long.
func TestClip(t *testing.T) {
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"empty", "", "", 3},
		{"exactly n", "abc", "abc", 3},
		{"n+1", "abcd", "abc…", 3},
		{"n multi-byte runes", "éüß", "éüß", 3},
		{"n+1 multi-byte runes", "éüßø", "éüß…", 3},
		{"four-byte runes", "😀😀😀😀", "😀😀😀…", 3},
		{"MaxField", strings.Repeat("x", MaxField), strings.Repeat("x", MaxField), MaxField},
		{"MaxField+1", strings.Repeat("x", MaxField+1), strings.Repeat("x", MaxField) + "…", MaxField},
		{"MaxField+1 multi-byte", strings.Repeat("é", MaxField+1), strings.Repeat("é", MaxField) + "…", MaxField},
		{"MaxField multi-byte, more bytes than MaxField", strings.Repeat("é", MaxField), strings.Repeat("é", MaxField), MaxField},
	}
	for _, tt := range tests {
		got := clip(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("%s: clip(%d runes, %d) = %d runes ending %q, want %d runes ending %q", tt.name, utf8.RuneCountInString(tt.in), tt.n,
				utf8.RuneCountInString(got), lastRunes(got, 4), utf8.RuneCountInString(tt.want), lastRunes(tt.want, 4))
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: clip gave invalid UTF-8", tt.name)
		}
	}
	// Text caps at MaxField by default: the same boundary through it.
	for _, tt := range []struct {
		in    string
		runes int
	}{
		{strings.Repeat("x", MaxField), MaxField},
		{strings.Repeat("x", MaxField+1), MaxField + 1},
		{strings.Repeat("é", MaxField), MaxField},
		{strings.Repeat("é", MaxField+1), MaxField + 1},
	} {
		got := Text(tt.in, 0)
		if n := utf8.RuneCountInString(got); n != tt.runes || (n > MaxField) != strings.HasSuffix(got, "…") {
			t.Errorf("Text(%d runes) = %d runes ending %q, want %d, clipped with … only past MaxField", utf8.RuneCountInString(tt.in), n, lastRunes(got, 4), tt.runes)
		}
	}
}

// checkClip checks the properties of clip(s, n) on valid UTF-8: text of at
// most n runes comes back unchanged; longer text becomes a prefix of it, n
// runes long and valid UTF-8, followed by "…".
func checkClip(t *testing.T, s string, n int) {
	t.Helper()
	got := clip(s, n)
	if utf8.RuneCountInString(s) <= n {
		if got != s {
			t.Errorf("clip(%q, %d) = %q, want it unchanged", s, n, got)
		}
		return
	}
	head, ok := strings.CutSuffix(got, "…")
	if !ok || !strings.HasPrefix(s, head) || !utf8.ValidString(head) || utf8.RuneCountInString(head) != n {
		t.Errorf("clip(%q, %d) = %q, want its first %d runes and …", s, n, got, n)
	}
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	return string(r[max(0, len(r)-n):])
}

func FuzzText(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add(strings.Repeat("x", MaxField+1))
	f.Add(strings.Repeat("é", MaxField+1))
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		checkText(t, s, Text(s, 0))
		checkClip(t, s, 7)
		checkClip(t, s, MaxField)
		k := MarkerKey(s)
		if strings.Contains(k, "--") || strings.ContainsAny(k, "<> \n") {
			t.Errorf("MarkerKey(%q) = %q", s, k)
		}
	})
}

func FuzzFence(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("x <!-- mcptest:summary key=other.yml --> ```` <!<!---->")
	f.Fuzz(func(t *testing.T, s string) {
		out := Fence(s)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		fence := strings.TrimSuffix(lines[0], "text")
		if len(lines) < 3 || lines[len(lines)-1] != fence || strings.Trim(fence, "`") != "" || len(fence) < 3 {
			t.Fatalf("Fence(%q) = %q", s, out)
		}
		for _, l := range lines[1 : len(lines)-1] {
			if strings.HasPrefix(strings.TrimLeft(l, " "), fence) {
				t.Fatalf("Fence(%q): line %q closes the fence", s, l)
			}
		}
		if strings.Contains(out, "<!--") {
			t.Fatalf("Fence(%q) = %q opens an HTML comment", s, out)
		}
	})
}

// FuzzAnnotation: whatever a case name, file or message holds, the
// workflow command stays one line with well-formed properties, and the
// runner's unescaping gives back the text.
func FuzzAnnotation(f *testing.F) {
	for _, s := range hostile {
		f.Add(s, s, s)
	}
	unescape := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
	f.Fuzz(func(t *testing.T, title, file, msg string) {
		var buf bytes.Buffer
		a := githubactions.New(githubactions.WithWriter(&buf), githubactions.WithGetenv(func(string) string { return "" }))
		EmitAnnotations(a, []Annotation{{Level: "error", Title: title, File: file, Line: 3, Col: 4, Message: msg}})
		out := buf.String()
		if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") || strings.Contains(out, "\r") {
			t.Fatalf("not one line: %q", out)
		}
		head, body, ok := strings.Cut(strings.TrimPrefix(strings.TrimSuffix(out, "\n"), "::error "), "::")
		if !ok {
			t.Fatalf("no message separator: %q", out)
		}
		if unescape.Replace(body) != msg {
			t.Fatalf("message %q came back as %q", msg, unescape.Replace(body))
		}
		props := map[string]string{}
		for _, p := range strings.Split(head, ",") {
			k, v, ok := strings.Cut(p, "=")
			if !ok || strings.Contains(v, ":") {
				t.Fatalf("property %q in %q", p, out)
			}
			props[k] = unescape.Replace(v)
		}
		if props["title"] != title || (file != "" && props["file"] != file) {
			t.Fatalf("properties %v from title %q file %q", props, title, file)
		}
	})
}

func manyCases(n int, name string) (*report.Envelope, *baseline.Comparison) {
	base := &report.Envelope{SchemaVersion: 1}
	cur := &report.Envelope{SchemaVersion: 1}
	for i := 0; i < n; i++ {
		mk := func(v report.Verdict, passed bool) *report.CaseResult {
			return &report.CaseResult{Name: fmt.Sprintf("%s %d", name, i), Kind: report.KindAgent, Verdict: v, DefinitionSHA256: "d", Runs: 1,
				Position:   diag.Pos{File: "suite.yml", Line: i + 1, Col: 3},
				Assertions: []report.AssertionResult{{Index: 0, Target: "tool_selection.f1", Passed: passed, Message: "assertion #0 failed: " + name, Position: diag.Pos{File: "suite.yml", Line: i + 2, Col: 5}}}}
		}
		base.Cases = append(base.Cases, mk(report.Pass, true))
		if i%2 == 0 {
			cur.Cases = append(cur.Cases, mk(report.Fail, false))
		} else {
			cur.Cases = append(cur.Cases, mk(report.Pass, true))
		}
	}
	base.Tally()
	cur.Tally()
	return cur, baseline.Compare(base, cur, baseline.Options{})
}

// TestCommentCut: a run too large for one comment is cut in priority
// order under GitHub's limit, every <details> closed, and the cut said.
func TestCommentCut(t *testing.T) {
	env, cmp := manyCases(3000, strings.Repeat("<|@x", 40))
	r := ActionReport{Env: env, Cmp: cmp, Gate: cmp.Gate, Suite: "suite.yml", BaselineRunID: 1}
	body := Comment(r, "https://github.com", "o/r")
	if len(body) > 65536 {
		t.Fatalf("comment is %d characters", len(body))
	}
	if strings.Count(body, "<details>") != strings.Count(body, "</details>") {
		t.Error("an open <details> was left")
	}
	if !strings.Contains(body, "more rows were cut") {
		t.Error("the cut is not said")
	}
	if !strings.Contains(body, "#### Floor flips") || strings.Index(body, "#### Floor flips") > 2000 {
		t.Error("floor flips do not come first")
	}
	sum := Summary(r, "https://github.com", "o/r", SummaryLimit)
	if len(sum) > SummaryLimit || strings.Count(sum, "<details>") != strings.Count(sum, "</details>") {
		t.Errorf("summary: %d bytes", len(sum))
	}
}

// TestEmitAnnotationsBudget: at most 10 of a level, priority order, and
// one line saying how many more.
func TestEmitAnnotationsBudget(t *testing.T) {
	var list []Annotation
	for i := 0; i < 25; i++ {
		list = append(list, Annotation{Level: "error", Title: "t", Message: fmt.Sprintf("regression %d", i)})
	}
	for i := 0; i < 12; i++ {
		list = append(list, Annotation{Level: "notice", Title: "t", Message: fmt.Sprintf("fix %d", i)})
	}
	var buf bytes.Buffer
	a := githubactions.New(githubactions.WithWriter(&buf))
	written, dropped := EmitAnnotations(a, list)
	out := buf.String()
	if written != 19 || dropped != 18 || strings.Count(out, "::error ") != 10 || strings.Count(out, "::notice ") != 10 {
		t.Fatalf("written %d dropped %d:\n%s", written, dropped, out)
	}
	if !strings.Contains(out, "regression 9\n") || strings.Contains(out, "regression 10\n") || !strings.HasSuffix(out, "18 more annotations are in the job summary (the runner keeps 10 of each level per step)\n") {
		t.Errorf("order or overflow line:\n%s", out)
	}
}

func TestAnnotationsOrder(t *testing.T) {
	env, cmp := manyCases(4, "case")
	got := Annotations(ActionReport{Env: env, Cmp: cmp})
	for _, a := range got {
		if a.Level != "error" || a.File != "suite.yml" || a.Line == 0 {
			t.Errorf("%+v", a)
		}
	}
	// Two regressed cases, each with a case flip and an assertion flip: one
	// error per case, leading with the assertion that flipped.
	if len(got) != 2 {
		t.Errorf("%d annotations: %+v", len(got), got)
	}
	for _, a := range got {
		if !strings.HasPrefix(a.Message, "assertion #0") {
			t.Errorf("the annotation does not lead with the failing assertion: %q", a.Message)
		}
	}
}

// TestHostileAnnotationsGolden: case names and messages that try every
// injection, through annotations, summary and comment, against golden
// files.
func TestHostileAnnotationsGolden(t *testing.T) {
	env, cmp := manyCases(2, "")
	for i, s := range []string{hostile[0] + " " + hostile[1] + " " + hostile[7], hostile[2] + " " + hostile[3] + " " + hostile[4] + " " + hostile[5]} {
		env.Cases[i].Name = s
		env.Cases[i].Assertions[0].Message = s + " " + hostile[6] + " " + hostile[8]
		env.Cases[i].Position.File = "suite,yml:" + hostile[1]
		env.Cases[i].Verdict = report.Fail
		env.Cases[i].Assertions[0].Passed = false
		env.Cases[i].Floors = []report.Floor{{Name: "floor", Passed: false, Message: s, Lines: []string{"FLOOR " + s, hostile[5] + "````````"}}}
	}
	env.Tally()
	r := ActionReport{Env: env, Cmp: nil, Gate: cmp.Gate, Suite: "suite.yml", Missing: "first run"}
	var buf bytes.Buffer
	a := githubactions.New(githubactions.WithWriter(&buf))
	EmitAnnotations(a, Annotations(r))
	if strings.Count(buf.String(), "\n") != 2 {
		t.Errorf("2 annotations must be 2 lines:\n%s", buf.String())
	}
	golden(t, "action-hostile.annotations", buf.Bytes())
	md := Comment(r, "https://github.com", "o/r")
	golden(t, "action-hostile.comment.md", []byte(md))
	// Inside a fenced code block nothing renders: check what is outside.
	outside := regexp.MustCompile("(?s)\n(`{3,})text\n.*?\n(`{3,})\n").ReplaceAllStringFunc(md, func(block string) string {
		lines := strings.Split(strings.Trim(block, "\n"), "\n")
		if lines[0] != lines[len(lines)-1]+"text" {
			t.Errorf("a fence closed early: %q", block)
		}
		return "\n"
	})
	if strings.Count(md, "text\n") != 0 {
		t.Errorf("want no fenced block: the floor lines stand escaped in the failing cases' rows")
	}
	for _, bad := range []string{"<script>", "@octocat", "#12", "<!-- x", "](javascript", "\u202e", "\u200b", "\ufeff"} {
		if strings.Contains(outside, bad) {
			t.Errorf("the comment holds %q", bad)
		}
	}
}

// TestCommentPlantedMarker: recorded text that holds another suite's
// hidden marker (a tool named `x <!-- mcptest:summary key=other.yml -->`
// in a floor line, a case name, a message) does not put that marker, or
// any HTML comment, in the comment or the summary; and backtick runs in
// the floor lines are escaped where they stand.
func TestCommentPlantedMarker(t *testing.T) {
	planted := "x " + CommentMarker("other.yml") + " ```` " + DriftMarker("other.yml")
	env, cmp := manyCases(2, planted)
	for _, c := range env.Cases {
		c.Verdict = report.Fail
		c.Floors = []report.Floor{{Name: "tool_selection", Message: planted, Lines: []string{"FLOOR called " + planted, "```", "````````````"}}}
	}
	env.Tally()
	r := ActionReport{Env: env, Cmp: cmp, Gate: cmp.Gate, Suite: "suite.yml", BaselineRunID: 1}
	comment := Comment(r, "https://github.com", "o/r")
	_, body := DriftIssue(r, "https://github.com", "o/r")
	for what, md := range map[string]string{"comment": comment, "summary": Summary(r, "https://github.com", "o/r", SummaryLimit), "drift issue": body} {
		if strings.Contains(md, "key=other.yml") && strings.Contains(md, "<!-- mcptest") && strings.Count(md, "<!--") > 1 {
			t.Errorf("%s: holds %d HTML comments:\n%s", what, strings.Count(md, "<!--"), md)
		}
		if n := strings.Count(md, "<!--"); n > 1 || n == 1 && !strings.HasPrefix(md, "<!-- mcptest:") {
			t.Errorf("%s: %d HTML comments besides its own marker", what, n)
		}
	}
	if !HasMarker(comment, CommentMarker("suite.yml")) || HasMarker(comment, CommentMarker("other.yml")) {
		t.Error("the comment's marker is not its first line alone")
	}
	// The floor lines stand under the floor in the failing case's row,
	// each backtick escaped, so no run of them opens a code span or fence.
	if !strings.Contains(comment, "<br>&emsp;FLOOR called x ") || strings.Contains(comment, "``") {
		t.Errorf("the floor lines are not escaped in the failing case's row:\n%s", comment)
	}
}

func TestHasMarker(t *testing.T) {
	m := CommentMarker("suite.yml")
	for body, want := range map[string]bool{
		m + "\n### mcptest: PASS":          true,
		m + "\r\n### edited in the web UI": true,
		m:                                  true,
		"lgtm\n" + m:                       false,
		m + " forged":                      false,
		" " + m + "\n":                     false,
		CommentMarker("other.yml") + "\n```\n" + m:    false,
		"```text\nFLOOR called x " + m + "\n```\n":    false,
		CommentMarker("suite.yml.other") + "\nbody\n": false,
	} {
		if got := HasMarker(body, m); got != want {
			t.Errorf("HasMarker(%q) = %v, want %v", body, got, want)
		}
	}
}
