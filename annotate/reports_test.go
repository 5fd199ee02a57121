package annotate

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"html"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcptest/mcptest/internal/diag"
)

func renderReport(t testing.TB, r Reporter, env *report.Envelope) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r.Report(&buf, env); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReportFormatsGolden(t *testing.T) {
	for _, name := range []string{"junit", "sarif"} {
		r, err := New(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := renderReport(t, r, sample())
		golden(t, "sample."+name, out)
		if bytes.Contains(out, []byte("\x1b")) {
			t.Errorf("%s: escape byte in the output: recorded text must be cleaned", name)
		}
		if !utf8.Valid(out) {
			t.Errorf("%s: output is not UTF-8", name)
		}
	}
}

// sarifSchema compiles the SARIF 2.1.0 JSON schema (testdata/sarif-2.1.0.json,
// copied from the npm package @microsoft/sarif-multitool-linux 5.7.0).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	data, err := os.ReadFile("testdata/sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("sarif-2.1.0.json", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return c.MustCompile("sarif-2.1.0.json")
}

func validSARIF(t *testing.T, s *jsonschema.Schema, out []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if err := s.Validate(doc); err != nil {
		t.Fatalf("not SARIF 2.1.0: %v\n%s", err, out)
	}
	return doc
}

// TestSARIFSchema validates the sarif reporter's log, and a log of
// doctor/security-style findings written with WriteSARIF, against the
// SARIF 2.1.0 schema, and checks every result's rule index.
func TestSARIFSchema(t *testing.T) {
	s := sarifSchema(t)
	doc := validSARIF(t, s, renderReport(t, SARIF{}, sample()))
	run := doc["runs"].([]any)[0].(map[string]any)
	rules := run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)
	results := run["results"].([]any)
	var ids []string
	for _, r := range results {
		r := r.(map[string]any)
		ids = append(ids, r["ruleId"].(string))
		rule := rules[int(r["ruleIndex"].(float64))].(map[string]any)
		if rule["id"] != r["ruleId"] {
			t.Errorf("ruleIndex of %v points at %v", r["ruleId"], rule["id"])
		}
	}
	// The failing case: one failed assertion, one error finding; the
	// inconclusive case: its warning. The passing case adds nothing.
	if got := strings.Join(ids, " "); got != "GATE-ASSERT GATE-FINDING GATE-INCONCLUSIVE" {
		t.Errorf("results = %s", got)
	}

	var buf bytes.Buffer
	err := WriteSARIF(&buf, SARIFTool{Name: "mcptest", Version: "0.1.0"},
		[]SARIFRule{{ID: "DESC-001", Name: "DescriptionTooShort", Short: "A tool description is too short to choose the tool by.", Level: "warning"}},
		[]SARIFResult{
			{RuleID: "DESC-001", Level: "warning", Message: "tool `get_weather`: description has 2 words", Location: diag.Pos{File: "catalog/tools.json", Line: 7, Col: 3}, Fingerprint: "get_weather"},
			{RuleID: "SEC-004", Level: "error", Message: "tool `exec`: description says \"ignore previous instructions\"\x1b[0m", Location: diag.Pos{File: "/abs/path with space/catalog.json"}},
			{RuleID: "SCH-002", Level: "note", Message: "no location"},
		})
	if err != nil {
		t.Fatal(err)
	}
	doc = validSARIF(t, s, buf.Bytes())
	out := buf.String()
	for _, want := range []string{`"id": "SEC-004"`, `"uri": "file:///abs/path%20with%20space/catalog.json"`, `"uriBaseId": "%SRCROOT%"`, `"startLine": 7`, `\\u001b[0m`, `"mcptest/v1": "`} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %s:\n%s", want, out)
		}
	}
}

// TestHTMLPage checks what the browser test cannot see cheaply: the CSP
// allows exactly the page's script, an all-pass run has no review block,
// and the same envelope renders byte-identically.
func TestHTMLPage(t *testing.T) {
	sum := sha256.Sum256([]byte(htmlJS))
	if !strings.Contains(htmlCSP(), "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") || !strings.HasPrefix(htmlCSP(), "default-src 'none'") {
		t.Errorf("CSP %q does not pin the page's script", htmlCSP())
	}
	page := string(renderReport(t, HTML{}, sample()))
	if !strings.Contains(page, `id="review"`) {
		t.Error("a failing run has no Review first block")
	}
	if page != string(renderReport(t, HTML{}, sample())) {
		t.Error("two renderings differ")
	}
	env := sample()
	env.Cases = env.Cases[:1]
	env.Verdict, env.Totals = report.Pass, report.Totals{Total: 1, Passed: 1}
	page = string(renderReport(t, HTML{}, env))
	if strings.Contains(page, `id="review"`) || strings.Contains(page, "Review first") {
		t.Error("an all-pass run shows a Review first block")
	}
	for _, block := range []string{`id="audit"`, `id="cases"`, `id="footer"`} {
		if !strings.Contains(page, block) {
			t.Errorf("no %s", block)
		}
	}
}

// hostileEnvelope puts s everywhere recorded text reaches a report.
func hostileEnvelope(s string) *report.Envelope {
	env := sample()
	env.Source = &report.Source{Repo: s, Branch: s, Commit: s}
	env.Servers = []report.ServerInfo{{Name: s, Transport: s, Auth: "bearer", TokenEnv: s, Tools: []string{s}}}
	c := env.Cases[1]
	c.Name = s
	c.Tools = []report.ToolUse{{Server: s, Tool: s, Calls: 1}}
	c.Assertions[0].Message = s
	c.Assertions[0].Actual = s
	c.Findings[0].Message = s
	c.Floors = []report.Floor{{Name: s, Message: s, Lines: []string{s}}}
	// Recorded text in a run's failed checks, a label and a suite floor.
	c.Labels = map[string]string{s: s, "reliability.class": s}
	c.Reliability = &report.ReliabilityDetail{Runs: 2, PassedRuns: 1, Class: s, Rows: []report.RunVerdict{{Run: 1, Failed: []string{s}}, {Run: 2, Passed: true}}}
	c.Counts["reliability.runs"], c.Counts["reliability.passed_runs"] = 2, 1
	env.Floors = []report.SuiteFloor{{Target: s, Matcher: map[string]any{"exact": s}, Actual: s, Message: s, Position: diag.Pos{File: s, Line: 1}}}
	ev := []report.WorldEvent{{Turn: 1, Call: 1, Tool: s, Reason: s}}
	c.Scenario = &report.ScenarioDetail{Runs: []report.ScenarioRun{{Run: 1, FinalState: map[string]any{s: s}, ToolNames: []string{s},
		Diff: []report.StateChange{{Path: s, Op: "replace", Before: s, After: s}}, InvalidActions: ev, ForbiddenTransitions: ev}}}
	env.Summarize(expr.JudgeFloor)
	return env
}

// FuzzReportText feeds arbitrary recorded text through the HTML and JUnit
// reporters: the page's markup is the same as with harmless text (every <
// of the input is escaped), and the JUnit document stays well-formed XML.
func FuzzReportText(f *testing.F) {
	for _, s := range []string{"x", "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "]]></failure>", "\x00\x1b[31m\u202e", "&amp;&#0;", "\xff\xfe"} {
		f.Add(s)
	}
	plain := renderReport(f, HTML{}, hostileEnvelope("x"))
	f.Fuzz(func(t *testing.T, s string) {
		page := renderReport(t, HTML{}, hostileEnvelope(s))
		if got, want := bytes.Count(page, []byte("<")), bytes.Count(plain, []byte("<")); got != want {
			t.Errorf("%q changed the page's markup: %d '<', want %d", s, got, want)
		}
		out := renderReport(t, JUnit{}, hostileEnvelope(s))
		dec := xml.NewDecoder(bytes.NewReader(out))
		for {
			_, err := dec.Token()
			if err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("%q: junit is not well-formed: %v\n%s", s, err, out)
				}
				break
			}
		}
	})
}

// TestSnapshotRoundTrip: a snapshot address reads back to its page, the
// run's id and the sha256 of its canonical envelope, and garbage is
// refused, as is an address compressed against another dictionary.
func TestSnapshotRoundTrip(t *testing.T) {
	frag, err := SnapshotFragment(sample(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(frag, "d"+snapshotDictID()+"=") || strings.ContainsAny(frag[10:], "+/=#") {
		t.Errorf("fragment %.40q is not d%s= and unpadded base64url", frag, snapshotDictID())
	}
	snap, err := ReadSnapshotFragment("#" + frag)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(renderReport(t, JSON{}, sample()))
	if snap.RunID != sample().Run.ID || snap.EnvelopeSHA256 != hex.EncodeToString(sum[:]) || snap.Cases != len(sample().Cases) || snap.Envelope != nil {
		t.Errorf("the snapshot names run %q, sha256 %q, %d cases; want %q, %x, %d", snap.RunID, snap.EnvelopeSHA256, snap.Cases, sample().Run.ID, sum, len(sample().Cases))
	}
	if !strings.Contains(snap.Page, `<code id="envelope-sha256">`+snap.EnvelopeSHA256+`</code>`) || snap.Title != "mcptest FAIL: suite.yml" || snap.Verdict != "fail" {
		t.Errorf("the page does not name the envelope's sha256, or title %q verdict %q", snap.Title, snap.Verdict)
	}
	page := html.UnescapeString(string(SnapshotPage()))
	sum = sha256.Sum256([]byte(snapshotScript()))
	if !strings.Contains(page, `content="default-src 'none'`) || !strings.Contains(page, "sha256-"+base64.StdEncoding.EncodeToString(sum[:])) {
		t.Error("the snapshot page's CSP does not forbid loads and pin its script")
	}
	if strings.Contains(strings.ToLower(snapshotDictJS()), "</script") {
		t.Error("the dictionary can end the viewer's script element")
	}
	other := "d00000000" + frag[9:]
	if snapshotDictID() == "00000000" {
		other = "dffffffff" + frag[9:]
	}
	if _, err := ReadSnapshotFragment(other); err == nil || !strings.Contains(err.Error(), "dictionary") {
		t.Errorf("an address of another dictionary: %v", err)
	}
	for _, bad := range []string{"", "z=", "z=!!", "x=abc", "d" + snapshotDictID() + "=", "z=" + base64.RawURLEncoding.EncodeToString([]byte("not deflate"))} {
		if _, err := ReadSnapshotFragment(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestSnapshotDocumentShape: a document of this mcptest's shape must name
// its run and carry a page; under z= (no dictionary) it reads as well.
func TestSnapshotDocumentShape(t *testing.T) {
	for doc, want := range map[string]string{
		`{"title":"t","verdict":"pass","page":"<p>x</p>"}`:                                             "names no run",
		`{"title":"t","verdict":"pass","page":"","record":{"id":"r","sha256":"00","cases":1}}`:         "no page in it",
		`{"title":"t","verdict":"pass","page":"<p>x</p>","record":{"id":"r","sha256":"00","cases":1}}`: "",
	} {
		packed, err := PackSnapshot([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, flate.BestCompression)
		w.Write([]byte(doc))
		w.Close()
		for _, frag := range []string{packed, "z=" + base64.RawURLEncoding.EncodeToString(z.Bytes())} {
			snap, err := ReadSnapshotFragment(frag)
			switch {
			case want == "" && (err != nil || snap.RunID != "r" || snap.Cases != 1 || snap.Page != "<p>x</p>"):
				t.Errorf("%.10s %s: %+v, %v", frag, doc, snap, err)
			case want != "" && err == nil:
				t.Errorf("%.10s %s: accepted, want %q", frag, doc, want)
			case want != "" && !strings.Contains(err.Error(), want) && !(frag[0] == 'z' && want == "names no run"):
				// Under z= a document without a record is read as the
				// bare envelope of the earliest addresses, and refused so.
				t.Errorf("%.10s %s: %v, want %q", frag, doc, err, want)
			}
		}
	}
}

// TestSnapshotIsTheReport: the page a snapshot address carries is the
// HTML report's body for the same run, byte for byte, but for the
// footer's first words and the envelope's sha256 (one model, one set of
// templates, two outputs), when the run's evidence is within the
// snapshot's share; addresses of earlier mcptests, which carried the
// envelope (with its page, or bare), still read.
func TestSnapshotIsTheReport(t *testing.T) {
	for _, env := range []*report.Envelope{sample(), hostileEnvelope("<img src=x onerror=alert(1)> `code` \u202e")} {
		for _, c := range env.Cases {
			c.Evidence = snapshotRunsOf(c, c.Evidence)
		}
		frag, err := SnapshotFragment(env, nil)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := ReadSnapshotFragment(frag)
		if err != nil {
			t.Fatal(err)
		}
		page := string(renderReport(t, HTML{}, env))
		start := strings.Index(page, "<a class=\"skip\"")
		end := strings.LastIndex(page, "\n<script>")
		want := strings.Replace(page[start:end], "This file is an <strong>mcptest run report</strong>", "This page is an <strong>mcptest run snapshot</strong>, carried in its own address", 1)
		got := snap.Page
		if i, j := strings.Index(got, " The envelope's sha256 is"), strings.Index(got, " The verdicts and figures"); i > 0 && j > i {
			got = got[:i] + got[j:]
		}
		if got != want {
			t.Errorf("the snapshot's page is not the report's body:\n%.600s\nvs\n%.600s", got, want)
		}
	}
	// Earlier addresses: the envelope with its page, and the bare
	// envelope, deflated with no dictionary.
	var js bytes.Buffer
	if err := (JSON{}).Report(&js, sample()); err != nil {
		t.Fatal(err)
	}
	withPage, _ := json.Marshal(map[string]any{"title": "t", "verdict": "fail", "page": "<p>x</p>", "envelope": json.RawMessage(js.Bytes())})
	for _, doc := range [][]byte{js.Bytes(), withPage} {
		var z bytes.Buffer
		w, _ := flate.NewWriter(&z, flate.BestCompression)
		w.Write(doc)
		w.Close()
		snap, err := ReadSnapshotFragment("z=" + base64.RawURLEncoding.EncodeToString(z.Bytes()))
		if err != nil || snap.Envelope == nil || snap.Envelope.Suite.Path != sample().Suite.Path || snap.RunID != sample().Run.ID {
			t.Errorf("an earlier snapshot address: %v", err)
		}
	}
}

// FuzzReadSnapshotFragment: a snapshot address is untrusted input; reading
// one returns an envelope or an error, never a panic.
func FuzzReadSnapshotFragment(f *testing.F) {
	frag, _ := SnapshotFragment(sample(), nil)
	for _, s := range []string{frag, "#z=", "z=AAAA", "z=" + strings.Repeat("_", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ReadSnapshotFragment(s)
	})
}
