package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/history"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
	"github.com/mcptest/mcptest/report/envgen"
)

// TestCutEnvelopePlacedAlike cuts a generated envelope (a head, 40
// cases, passing and failing) at 400 drawn offsets and at every line's
// end, as a download cut short leaves an artifact, and reads each with
// report.Read (the whole document), the case stream (the reader of merge
// and compare) and history.ReadSnapshot: each refuses it at the line and
// column where the text ends. report.Read and the history named the file
// alone.
func TestCutEnvelopePlacedAlike(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	if err := envgen.WriteRun(path, 40); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.Read(bytes.NewReader(doc), "run.json"); err != nil {
		t.Fatalf("the whole envelope: %v", err)
	}
	rng := rand.New(rand.NewPCG(40, 9))
	var cuts []int
	for range 400 {
		cuts = append(cuts, rng.IntN(len(doc)))
	}
	for i, c := range doc {
		if c == '\n' {
			cuts = append(cuts, i, i+1)
		}
	}
	placed := regexp.MustCompile(`^run\.json:(\d+):(\d+): not a run envelope: `)
	for _, cut := range cuts {
		text := doc[:cut]
		if json.Valid(text) {
			continue
		}
		line, col := diag.LineCol(text, int64(len(text)))
		want := fmt.Sprintf("%d:%d", line, col)
		_, rerr := report.Read(bytes.NewReader(text), "run.json")
		serr := envgen.ReadStream(bytes.NewReader(text), "run.json")
		_, herr := history.ReadSnapshot(bytes.NewReader(text), "run.json", 0)
		for who, err := range map[string]error{"report.Read": rerr, "the case stream": serr, "history.ReadSnapshot": herr} {
			m := placed.FindStringSubmatch(fmt.Sprint(err))
			if m == nil || m[1]+":"+m[2] != want {
				t.Errorf("cut at %d: %s: %v, want it placed at %s, the text's end", cut, who, err, want)
			}
		}
	}
	// A byte that does not fit, within the text or after it: placed at
	// that byte.
	for _, tc := range []struct{ from, to, bad string }{
		{`"verdict": "`, `"verdict": x"`, "x"},
		{`"cases": [`, `"cases": [}`, "}"},
		{`"total": `, `"total": +`, "+"},
		{`"run": {`, `"run": {,`, ","},
		{`"passed":true`, `"passed":tr ue`, " "}, // a space within a literal, not past its end
	} {
		text := bytes.Replace(doc, []byte(tc.from), []byte(tc.to), 1)
		at := bytes.Index(text, []byte(tc.to)) + strings.Index(tc.to, tc.bad)
		line, col := diag.LineCol(text, int64(at))
		_, err := report.Read(bytes.NewReader(text), "run.json")
		if want := fmt.Sprintf("run.json:%d:%d: not a run envelope: ", line, col); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want it placed at %s", tc.to, err, want)
		}
	}
	for _, after := range []string{"x", "x\n", "{}"} {
		want := fmt.Sprintf("run.json:%d:1: ", bytes.Count(doc, []byte("\n"))+1)
		if _, err := report.Read(bytes.NewReader(append(doc, after...)), "run.json"); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q after the envelope: %v, want it placed at %s", after, err, want)
		}
	}
}

// TestLineColAtIsLineCol draws texts of up to three of LineColAt's blocks
// (lines of ASCII, of two- to four-byte characters, of bytes that are not
// UTF-8 and characters cut short, empty lines, CRLF ends) and offsets
// anywhere in them, within a character too, and the end (-1): the line
// and column it counts reading the text again are diag.LineCol's over the
// same bytes. An offset past the end is not placed.
func TestLineColAtIsLineCol(t *testing.T) {
	pieces := []string{"a", "case", " ", "\n", "\r\n", "é", "漢字", "🙂", "\n\n", "\xff", "\x80", "\xe2\x9c", "\xf0\x9f\x99", strings.Repeat("x", 5000)}
	rng := rand.New(rand.NewPCG(29, 1))
	for d := range 60 {
		var b strings.Builder
		size := rng.IntN(200_000)
		for b.Len() < size {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := []byte(b.String())
		offs := []int64{-1, 0, int64(len(text))}
		for range 20 {
			offs = append(offs, int64(rng.IntN(len(text)+1)))
		}
		// a character across the end of the first block
		for k := range int64(4) {
			if at := int64(64<<10) + k; at <= int64(len(text)) {
				offs = append(offs, at)
			}
		}
		for _, at := range offs {
			want := at
			if at < 0 {
				want = int64(len(text))
			}
			wl, wc := diag.LineCol(text, want)
			line, col, ok := report.LineColAt(bytes.NewReader(text), at)
			if !ok || line != wl || col != wc {
				t.Fatalf("draw %d, %d bytes, offset %d: %d:%d (%v), want %d:%d", d, len(text), at, line, col, ok, wl, wc)
			}
		}
		if _, _, ok := report.LineColAt(bytes.NewReader(text), int64(len(text))+1); ok {
			t.Fatalf("draw %d: an offset past the end is placed", d)
		}
	}
}

// TestLocateReadsPastAFlood: a case over the decode budget (each of
// casedraw's flood shapes) ahead of the byte that makes the text not JSON
// does not stop Locate, which checks JSON and decodes nothing, and the
// readers give Locate's error: report.Read, whose budget holds JSON alone
// (a text that is not JSON is refused for that), and the stream, which
// met the flood first.
func TestLocateReadsPastAFlood(t *testing.T) {
	for shape, flood := range casedraw.Floods(1.5, 40, report.DecodeCost) {
		text := []byte(`{"cases": [{"x": ` + flood + "},\n" + `{"y": tru}]}`)
		err := report.Locate(bytes.NewReader(text), "e.json")
		if want := fmt.Sprintf("e.json:2:%d: not a run envelope: ", len(`{"y": tru`)+1); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want it placed at %s", shape, err, want)
		}
		_, rerr := report.Read(bytes.NewReader(text), "e.json")
		serr := envgen.ReadStream(bytes.NewReader(text), "e.json")
		for who, got := range map[string]error{"report.Read": rerr, "the case stream": serr} {
			if fmt.Sprint(got) != fmt.Sprint(err) {
				t.Errorf("%s, %s: %v, want Locate's error", shape, who, got)
			}
		}
	}
}
