package envstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/baseline"
	"github.com/mcptest/mcptest/history"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
	"github.com/mcptest/mcptest/report/envgen"
)

// TestNotJSONPlacedAlike breaks a generated envelope (a head and 40
// cases, passing and failing, a member of non-ASCII text in every case),
// indented as mcptest writes it and on one line, at drawn places (a byte
// cut, dropped, replaced or put in: casedraw.Mutate), and reads every
// text that is no longer JSON (a quarter of them broken within the head,
// a quarter with a case of a verdict out of its set ahead of the break)
// with each reader of an envelope: report.Read
// (the whole document), baseline.ReadBaseline, the case stream, report
// merge, report --compare with it as the current run and as the
// baseline (its halves read at once, as a large baseline's are), and the
// history. Each refuses it with the same error, placed
// at the byte where encoding/json finds the text stops being JSON, its
// column in characters. Before Locate, the same text got a line and
// column from two readers, another column from a third, and none from
// the rest.
func TestNotJSONPlacedAlike(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	indented := writeRun(t, good, 40)
	// text whose characters are more than a byte each, before the place
	// of most breaks on the same line
	indented = bytes.ReplaceAll(indented, []byte(`{"name":`), []byte(`{"note":"Grüße ✓ 漢字 🙂","name":`))
	var oneLine bytes.Buffer
	if err := json.Compact(&oneLine, indented); err != nil {
		t.Fatal(err)
	}
	// The baseline's cases read in two halves at once (casesPart), as
	// a large baseline's are, where the process has two processors.
	defer func(m int64) { splitMin = m }(splitMin)
	splitMin = 1
	path := filepath.Join(dir, "run.json")
	placed := regexp.MustCompile(`^` + regexp.QuoteMeta(path) + `:(\d+):(\d+): not a run envelope: `)
	draws := 300
	if testing.Short() {
		draws = 80
	}
	rng := rand.New(rand.NewPCG(30, 7))
	for _, doc := range [][]byte{indented, oneLine.Bytes()} {
		if _, err := report.Read(bytes.NewReader(doc), path); err != nil {
			t.Fatalf("the whole envelope: %v", err)
		}
		// Breaks past the cases' end, where a reader of the baseline in
		// halves goes on from the second half (report.CaseReader.Resume),
		// then the drawn ones.
		end := bytes.LastIndexByte(doc, '}')
		fixed := [][]byte{
			append(bytes.Clone(doc[:end]), ']'),
			append(bytes.Clone(doc), 'x'),
			append(append(bytes.Clone(doc[:end]), `,"tail": tru`...), doc[end:]...),
			append(append(bytes.Clone(doc[:end]), `,"tail": "Grüße" x`...), doc[end:]...),
		}
		tried := 0
		for k := 0; tried < draws+len(fixed); k++ {
			text := casedraw.Mutate(rng, doc)
			if k < len(fixed) {
				text = fixed[k]
			} else if head := bytes.Index(doc, []byte(`"cases"`)); rng.IntN(4) == 0 {
				// within the head, a few hundred bytes of the file
				text = append(casedraw.Mutate(rng, doc[:head]), doc[head:]...)
			} else if rng.IntN(3) == 0 {
				// and a case that is JSON but no case (a verdict out of
				// its set) ahead of the break, which a reader of one case
				// at a time meets first
				text = bytes.Replace(text, []byte(`"verdict":"pass"`), []byte(`"verdict":"maybe"`), 1)
			}
			var se *json.SyntaxError
			if !errors.As(json.Unmarshal(text, new(any)), &se) {
				continue // still JSON, or a break of another kind
			}
			tried++
			if err := os.WriteFile(path, text, 0o644); err != nil {
				t.Fatal(err)
			}
			at := se.Offset
			if !strings.HasPrefix(se.Error(), "unexpected end") && !(at == int64(len(text)) && strings.HasPrefix(se.Error(), "invalid character ' '")) {
				at-- // the byte that does not fit (the offset counts it)
			}
			line, col := diag.LineCol(text, at)
			want := fmt.Sprintf("%d:%d", line, col)
			if !sameErrorAt(t, placed, readAll(t, path, good), want) {
				t.Fatalf("the text around the place: %s", excerpt(text, at))
			}
		}
	}
}

// sameErrorAt reports whether every reader's error is placed at want
// (line:col, the submatches of placed) and is the first reader's.
func sameErrorAt(t *testing.T, placed *regexp.Regexp, errs map[string]error, want string) bool {
	t.Helper()
	first, ok := "", true
	for _, who := range readers {
		err := errs[who]
		m := placed.FindStringSubmatch(fmt.Sprint(err))
		switch {
		case m == nil || m[1]+":"+m[2] != want:
			t.Errorf("%s: %v, want it placed at %s", who, err, want)
			ok = false
		case first == "":
			first = err.Error()
		case err.Error() != first:
			t.Errorf("%s: %v, want the error of %s: %s", who, err, readers[0], first)
			ok = false
		}
	}
	return ok
}

// readers names each reader of an envelope readAll runs.
var readers = []string{"report.Read", "baseline.ReadBaseline", "the case stream", "report merge", "report --compare (current)", "report --compare (baseline)", "history"}

// readAll reads the envelope at path with each reader (good is another
// envelope for the comparisons): its error by readers' names.
func readAll(t *testing.T, path, good string) map[string]error {
	t.Helper()
	errs := map[string]error{}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, errs["report.Read"] = report.Read(bytes.NewReader(data), path)
	_, errs["baseline.ReadBaseline"] = baseline.ReadBaseline(bytes.NewReader(data), path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	errs["the case stream"] = envgen.ReadStream(io.LimitReader(f, 1<<30), path)
	_, errs["report merge"] = MergeFiles([]string{path})
	_, errs["report --compare (current)"] = CompareListed(good, "", path, "none")
	_, errs["report --compare (baseline)"] = CompareListed(path, "", good, "none")
	h, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, errs["history"] = history.ReadSnapshot(h, path, 0)
	return errs
}

// excerpt is the text around offset at, for a failure's message.
func excerpt(text []byte, at int64) string {
	from, to := max(at-30, 0), min(at+30, int64(len(text)))
	return fmt.Sprintf("%q", text[from:to])
}

// writeRun writes the generated envelope of an n-case run to path
// (envgen.WriteRun) and returns its text.
func writeRun(t *testing.T, path string, n int) []byte {
	t.Helper()
	if err := envgen.WriteRun(path, n); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
