package history_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/history"
	"github.com/mcptest/mcptest/history/historytest"
)

// hostile are pieces of recorded text that would break out of where a
// string goes: a tag, an attribute, a table cell, a code span, a link, a
// mention, a line, a terminal's colours, the reading order.
var hostile = []string{"<script>alert(1)</script>", "</svg><img src=x onerror=alert(1)>", `" onmouseover="x`, "'", "&amp;", "|", "`", "``", "[a](javascript:alert(1))",
	"@octocat", "#1", "\n::error::forged", "\r", "\x1b[31m", "\u202e", "\u2028", "*", "_", "<!--", "{{.}}", "x", "é", "日本"}

func hostileName(r *rand.Rand, i int) string {
	var b strings.Builder
	for range 1 + r.IntN(4) {
		b.WriteString(hostile[r.IntN(len(hostile))])
	}
	return fmt.Sprintf("%s-%d", b.String(), i)
}

// window renders a generated window whose case names (and suite path) are
// name(i) in every format.
func window(t *testing.T, name func(i int) string, suite string) map[string]string {
	t.Helper()
	spec := historytest.Spec{Runs: 5, Suite: suite, Steady: 6}
	b := history.NewBuilder(history.Options{})
	for i := range spec.Runs {
		env := historytest.Envelope(spec, i)
		for j, c := range env.Cases {
			c.Name = name(j)
		}
		s, err := history.SnapshotOf(env, "run.json")
		if err != nil {
			t.Fatal(err)
		}
		s.Run.Link = "javascript:alert(1)"
		if err := b.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	h := b.History()
	out := map[string]string{}
	for _, f := range history.Formats {
		var buf bytes.Buffer
		if err := history.Render(&buf, f, h); err != nil {
			t.Fatal(err)
		}
		out[f] = buf.String()
	}
	return out
}

// TestEscapedForWhereItGoes: for generated hostile case names, each format
// holds them as text: the page has exactly the tags of a page of plain
// names and no javascript: link, markdown holds no < and no line of its
// own making, text no control character and no line of its own making,
// and the JSON gives the names back as they were.
func TestEscapedForWhereItGoes(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 7))
	for round := range 40 {
		names := make([]string, 16)
		for i := range names {
			names[i] = hostileName(r, i)
		}
		suite := strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x2028 || r == 0x202e {
				return -1 // the envelope check refuses a control character in suite.path
			}
			return r
		}, hostileName(r, 99))
		got := window(t, func(i int) string { return names[i] }, suite)
		plain := window(t, func(i int) string { return fmt.Sprintf("case%d", i) }, "suite.yml")
		if a, b := strings.Count(got["html"], "<"), strings.Count(plain["html"], "<"); a != b {
			t.Fatalf("round %d: the page has %d < against %d with plain names: a name made a tag (%q)", round, a, b, names)
		}
		if strings.Contains(got["html"], `href="javascript`) || !strings.Contains(got["html"], "#ZgotmplZ") {
			t.Errorf("round %d: the page links javascript: (or links nothing)", round)
		}
		if strings.Contains(got["markdown"], "<") {
			t.Errorf("round %d: markdown holds a <", round)
		}
		for _, f := range []string{"markdown", "text"} {
			if a, b := strings.Count(got[f], "\n"), strings.Count(plain[f], "\n"); a != b {
				t.Errorf("round %d: %s has %d lines against %d with plain names", round, f, a, b)
			}
		}
		if strings.ContainsFunc(got["text"], func(r rune) bool {
			return r < 0x20 && r != '\n' || r == 0x7f || r == 0x2028 || r >= 0x202a && r <= 0x202e
		}) {
			t.Errorf("round %d: text holds a control character", round)
		}
		var doc struct {
			Suites []struct {
				Path  string
				Cases []struct{ Name string }
			}
		}
		if err := json.Unmarshal([]byte(got["json"]), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Suites[0].Path != suite {
			t.Errorf("round %d: JSON suite %q, want %q", round, doc.Suites[0].Path, suite)
		}
		for _, c := range doc.Suites[0].Cases {
			found := false
			for _, n := range names {
				found = found || n == c.Name
			}
			if !found {
				t.Errorf("round %d: JSON case %q is none of the names", round, c.Name)
			}
		}
	}
}

// FuzzReadSnapshot: any bytes either read as a snapshot or are refused
// with an error; what reads folds and renders in every format.
func FuzzReadSnapshot(f *testing.F) {
	spec := historytest.Spec{Runs: 3, Suite: "s.yml", Steady: 1, Evidence: true}
	for i := range spec.Runs {
		data, err := json.Marshal(historytest.Envelope(spec, i))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"schema_version":1,"cases":[{"name":"a","targets":{"reliability.pass_hat_99999999999":1}}]}`))
	f.Add([]byte(`{"schema_version":1,"cases":null,"summary":{"pass_hat":[{"k":3,"value":1,"cases":1}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := history.ReadSnapshot(bytes.NewReader(data), "f.json", 1000)
		if err != nil {
			if !strings.Contains(err.Error(), "f.json") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		b := history.NewBuilder(history.Options{})
		for range 2 {
			if err := b.Add(s); err != nil {
				t.Fatal(err)
			}
		}
		for _, format := range history.Formats {
			if err := history.Render(&bytes.Buffer{}, format, b.History()); err != nil {
				t.Fatal(err)
			}
		}
	})
}
