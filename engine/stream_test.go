package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// heldAlways is the loader's reader holding tests: whatever the size of
// the text, so the tests take the streamed path on small suites.
var heldAlways = func() yamlpos.Options {
	o := suiteItems
	o.SplitMin = 1
	return o
}()

// sameStreamed loads data at path the streamed way (tests: held, built
// one at a time) and the whole way, and fails unless both give the same
// suite, or the same errors. It reports whether the suite was built
// from the stream (not read again whole).
func sameStreamed(t testing.TB, path string, data []byte, unrecorded bool) bool {
	t.Helper()
	whole, werr := parseSuiteWith(path, data, loadMode{unrecorded: unrecorded}, suiteYAML)
	got, err := parseSuiteWith(path, data, loadMode{unrecorded: unrecorded}, heldAlways)
	if a, b := errText(werr), errText(err); a != b {
		t.Fatalf("errors differ:\nwhole\n%s\nstreamed\n%s", a, b)
	}
	if whole != nil && got != nil {
		// The text is kept by the reader of a streamed suite, compressed
		// or as it is by the other: the same text either way.
		if !bytes.Equal(whole.text(), got.text()) || !bytes.Equal(got.text(), data) {
			t.Fatalf("the suite keeps another text than the file's")
		}
		w, g := *whole, *got
		w.source, w.packed, g.source, g.packed, g.kept = nil, nil, nil, nil, nil
		whole, got = &w, &g
	}
	if !reflect.DeepEqual(whole, got) {
		t.Fatalf("suites differ:\nwhole    %+v\nstreamed %+v", whole, got)
	}
	sameValidated(t, path, data, unrecorded)
	d := readYAML(filepath.ToSlash(path), data, heldAlways)
	return d.Held() && streamSuite(d, path, loadMode{unrecorded: unrecorded}, heldAlways) != nil
}

// sameValidated loads data at path as validate does (tests: held, the
// text kept unpacked, no digest) and whole without digests, and fails
// unless both give the same suite, or the same errors, and the suite
// keeps the file's text.
func sameValidated(t testing.TB, path string, data []byte, unrecorded bool) {
	t.Helper()
	mode := loadMode{unrecorded: unrecorded, noDigest: true}
	o := validateItems
	o.SplitMin = 1
	whole, werr := parseSuiteWith(path, data, mode, suiteYAML)
	got, err := parseSuiteWith(path, data, mode, o)
	if a, b := errText(werr), errText(err); a != b {
		t.Fatalf("errors differ:\nwhole\n%s\nas validate reads it\n%s", a, b)
	}
	if whole != nil && got != nil {
		if !bytes.Equal(got.text(), data) || got.kept != nil || got.SHA256 != "" {
			t.Fatalf("validate's suite keeps another text than the file's, packed it or digested it")
		}
		w, g := *whole, *got
		w.source, w.packed, g.source, g.packed, g.kept = nil, nil, nil, nil, nil
		whole, got = &w, &g
	}
	if !reflect.DeepEqual(whole, got) {
		t.Fatalf("suites differ:\nwhole    %+v\nas validate reads it %+v", whole, got)
	}
}

// errText prints err as the CLI does, Source included.
func errText(err error) string {
	if err == nil {
		return ""
	}
	l, ok := err.(diag.List)
	if !ok {
		return err.Error()
	}
	var b bytes.Buffer
	diag.Printer{}.Print(&b, l)
	for _, e := range l {
		fmt.Fprintf(&b, "%s %s %v\n", e.Pointer, e.Kind, e.Source != nil)
	}
	return b.String()
}

// TestStreamedCorpus: every suite of the corpus, the examples and the
// generated suites loads the same with its tests: built one at a time as
// whole, and the suites without problems are built from the stream.
func TestStreamedCorpus(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/ok/*.yml", "testdata/err/*.yml", "../examples/*/*.yml", "../cmd/mcptest/testdata/*/*.yml"} {
		more, _ := filepath.Glob(pattern)
		files = append(files, more...)
	}
	streamed := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if sameStreamed(t, f, data, false) {
			streamed++
		}
	}
	t.Logf("%d of %d suites built from the stream", streamed, len(files))
	if streamed < 3 {
		t.Errorf("only %d suites were built from the stream", streamed)
	}
}

// TestStreamedTests: suites whose tests: are built one at a time, and
// those that go back to the whole path (a problem anywhere), load as
// whole.
func TestStreamedTests(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"mcptest_cassette": "1", "runs": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	test := func(name, extra string) string {
		return "  - name: " + name + "\n    type: agent\n    cassette: c.json\n" + extra
	}
	fast := test("a", "    equal_function_sets:\n      classes:\n        - {name: x, members: [s.x]}\n      expect:\n        - tool_selection.recall: {\">=\": 50}\n")
	slow := test("b", "    runs: 3\n    tool_edges:\n      allowed: [x, y]\n    reliability: {min_pass_hat: {k: 2, min: 50}}\n")
	for _, tt := range []struct {
		name, text string
		streamed   bool
	}{
		{"fast path", "servers:\n  s: {command: [x]}\ntests:\n" + fast + test("c", "") + "agents:\n  - {name: d, cassette: c.json}\n", true},
		{"validator for a test", "reliability: {min_pass_rate: 50}\ntests:\n" + fast + slow + "floors:\n  - summary.pass_rate: {\">=\": 10}\n", true},
		{"tests first, servers after", "tests:\n" + test("a", "    servers: [s]\n") + "servers:\n  s: {url: http://x}\n", true},
		{"unknown server", "tests:\n" + test("a", "    servers: [s]\n") + "servers:\n  t: {url: http://x}\n", false},
		{"duplicate names", "tests:\n" + fast + fast, false},
		{"schema error in a test", "tests:\n" + fast + test("e", "    expct: 1\n"), false},
		{"schema error in the rest", "servers: 1\ntests:\n" + fast, false},
		{"value error in a test", "tests:\n" + fast + test("e", "    name: f\n"), false},
		{"missing cassette", "tests:\n" + fast + "  - {name: g, type: agent, cassette: nope.json}\n", false},
		{"builder error", "tests:\n" + test("h", "    runs: 2.5\n"), false},
		{"syntax error in a test", "tests:\n" + fast + "  - name: \"x\n", false},
		{"not a suite", "foo:\n  - 1\n", false},
		{"tests not a list of mappings", "tests:\n  - 1\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameStreamed(t, filepath.Join(dir, "suite.yml"), []byte(tt.text), false); got != tt.streamed {
				t.Errorf("built from the stream: %v, want %v", got, tt.streamed)
			}
		})
	}
}

// longSuite returns the path of a suite in a new directory, beside an
// empty cassette c.json, and its text: n agent tests on c.json, named
// "case i" and pad bytes more, each with the lines more, then the lines
// last.
func longSuite(t *testing.T, n, pad int, more, last string) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"mcptest_cassette": "1", "runs": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("tests:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: case %d %s\n    type: agent\n    cassette: c.json\n%s", i, strings.Repeat("x", pad), more)
	}
	b.WriteString(last)
	return filepath.Join(dir, "suite.yml"), []byte(b.String())
}

// TestStreamedLongSuite: a long suite (1.2 MB) is built from the stream by
// ParseSuite itself, and every case keeps the position of its test.
func TestStreamedLongSuite(t *testing.T) {
	const n = 4000
	path, data := longSuite(t, n, 200, "    expect:\n      - calls: {\">=\": 1}\n", "")
	d := readYAML(path, data, suiteItems)
	if !d.Held() {
		t.Fatal("tests: not held")
	}
	if !sameStreamed(t, path, data, false) {
		t.Fatal("not built from the stream")
	}
	s, err := ParseSuite(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != n || s.Cases[n-1].Pos.Line != 2+5*(n-1) || s.Cases[n-1].Expect[0].Pos.Line != 2+5*(n-1)+4 {
		t.Errorf("%d cases, the last at %v", len(s.Cases), s.Cases[n-1].Pos)
	}
}

// FuzzStreamedSuite holds the streamed load (tests: held and built one at
// a time, whatever the size) to the whole load for any text: the same
// suite, or the same errors.
func FuzzStreamedSuite(f *testing.F) {
	addCorpus(f, "testdata/err/*.yml", "testdata/ok/*.yml", "../examples/*/suite.yml")
	f.Add([]byte("tests:\n  - {name: a, type: agent, cassette: c.json, expect: [{calls: {'>=': 1}}]}\n  - name: b\n    type: agent\n    runs: 2\nservers:\n  s: {command: [x]}\n"))
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"mcptest_cassette": "1", "runs": []}`), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameStreamed(t, filepath.Join(dir, "suite.yml"), data, len(data)%2 == 0)
	})
}

// TestLongSuiteRunErrorShowsLine: a suite of 1 MiB or more keeps its text
// compressed (here the reader that held its tests: keeps it, see
// yamlpos.Doc.Text), and the errors a run finds at its lines still carry
// the text, byte for byte.
func TestLongSuiteRunErrorShowsLine(t *testing.T) {
	const n = 4000
	path, data := longSuite(t, n, 250, "", "  - name: unrecorded\n    type: agent\n")
	dir := filepath.Dir(path)
	s, err := ParseSuite(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if s.source != nil || s.packed != nil || s.kept == nil || s.doc != nil {
		t.Errorf("kept %d bytes as they are, %d packed, of %d, the reader's text %v and the document %v", len(s.source), len(s.packed), len(data), s.kept != nil, s.doc != nil)
	}
	// Read whole (tests: not held), the suite compresses the text itself.
	whole, err := parseSuiteWith(path, data, loadMode{}, suiteYAML)
	if err != nil {
		t.Fatal(err)
	}
	if whole.source != nil || len(whole.packed) == 0 || len(whole.packed) > len(data)/10 || !bytes.Equal(whole.text(), data) {
		t.Errorf("read whole: kept %d bytes as they are, %d packed, of %d", len(whole.source), len(whole.packed), len(data))
	}
	_, err = Run(s, Options{Version: "test", CassetteDir: filepath.Join(dir, "none")})
	l, ok := err.(diag.List)
	if !ok || len(l) != 1 || l[0].Pos.Line != 2+3*n || !bytes.Equal(l[0].Source, data) {
		t.Fatalf("got %v", err)
	}
}

// TestSharedMatchers: tests that check the same target with the same
// comparison share one parsed target and matcher; any other bound, or
// the same written another way, has its own, and reads as written.
func TestSharedMatchers(t *testing.T) {
	s, err := ParseSuite("suite.yml", []byte(`agents:
  - {name: a, expect: [{calls: {">=": 1}}, {target: calls, matcher: {">=": 1}}]}
  - {name: b, expect: [{calls: {">=": 1}}, {calls: {">=": -0.0}}, {calls: {">=": 0}}, {calls: {"<=": 1}}, {calls: {exact: 1}}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.Cases[0].Expect, s.Cases[1].Expect
	if a[0].Matcher != a[1].Matcher || a[0].Matcher != b[0].Matcher {
		t.Error("the same comparison is parsed twice")
	}
	var got []string
	for _, x := range b {
		got = append(got, fmt.Sprint(x.Matcher.Value()))
	}
	if strings.Join(got, " ") != "map[>=:1] map[>=:-0] map[>=:0] map[<=:1] map[exact:1]" || b[1].Matcher == b[2].Matcher {
		t.Errorf("matchers %v", got)
	}
}
