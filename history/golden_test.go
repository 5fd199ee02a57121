package history_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/history"
	"github.com/mcptest/mcptest/history/historytest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenHistory is the window the golden files render: 7 runs of the
// generated trends and two steady cases, folded from decoded envelopes
// (SnapshotOf), the run of the fifth linked to its report.
func goldenHistory(t *testing.T) *history.History {
	t.Helper()
	spec := historytest.Spec{Runs: 7, Suite: "suite.yml", Steady: 2}
	b := history.NewBuilder(history.Options{})
	for i := range spec.Runs {
		s, err := history.SnapshotOf(historytest.Envelope(spec, i), historytest.FileName(spec, i))
		if err != nil {
			t.Fatal(err)
		}
		if i == 4 {
			s.Run.Link = "./run-0002.html"
		}
		if err := b.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	return b.History()
}

// TestGolden holds each format's rendering of the golden window to its
// file under testdata (go test ./history -run TestGolden -update rewrites
// them), and each rendering is the same twice over.
func TestGolden(t *testing.T) {
	h := goldenHistory(t)
	for format, file := range map[string]string{"text": "window.txt", "json": "window.json", "markdown": "window.md", "html": "window.html"} {
		var a, b bytes.Buffer
		if err := history.Render(&a, format, h); err != nil {
			t.Fatal(err)
		}
		if err := history.Render(&b, format, goldenHistory(t)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two renderings of one window differ", format)
		}
		path := filepath.Join("testdata", file)
		if *update {
			if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./history -run TestGolden -update writes it)", err)
		}
		if !bytes.Equal(a.Bytes(), want) {
			t.Errorf("%s differs from %s (go test ./history -run TestGolden -update rewrites it):\n%s", format, path, a.String())
		}
	}
}

// TestDocExample: docs/history.md shows the golden window's text exactly.
func TestDocExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/history.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin = "<!-- BEGIN history example: history/testdata/window.txt -->\n```text\n"
	_, rest, ok := bytes.Cut(doc, []byte(begin))
	block, _, ok2 := bytes.Cut(rest, []byte("```\n<!-- END history example -->"))
	if !ok || !ok2 {
		t.Fatal("docs/history.md has no example block")
	}
	var text bytes.Buffer
	if err := history.Text(&text, goldenHistory(t)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(block, text.Bytes()) {
		t.Errorf("docs/history.md's example is not the golden window's text; it renders:\n%s", text.String())
	}
}
