package envstream

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// spoolInputs are the ways TestSpoolsRemoved spoils or shapes an input:
// each is applied to the envelope's bytes (the file a user hands over).
var spoolInputs = []struct {
	name  string
	spoil func(r *rand.Rand, env *report.Envelope, data []byte) []byte
}{
	{"as written", func(_ *rand.Rand, _ *report.Envelope, data []byte) []byte { return data }},
	{"a case given twice", func(r *rand.Rand, env *report.Envelope, data []byte) []byte {
		// The streamed comparison finds the name given twice as it folds
		// the cases, reading the first one's name back from the file.
		if len(env.Cases) == 0 {
			return data
		}
		e := *env
		e.Cases = append(append([]*report.CaseResult{}, env.Cases...), env.Cases[r.IntN(len(env.Cases))])
		return encodeEnv(&e)
	}},
	{"cut short", func(r *rand.Rand, _ *report.Envelope, data []byte) []byte { return data[:r.IntN(len(data))] }},
	{"a forged verdict", func(r *rand.Rand, _ *report.Envelope, data []byte) []byte {
		// A case whose verdict is not one mcptest gives is refused where
		// it stands, in the middle of the cases.
		at := bytes.Index(data[len(data)/3:], []byte(`"verdict": "`))
		if at < 0 {
			return data
		}
		at += len(data)/3 + len(`"verdict": "`)
		return append(append(append([]byte{}, data[:at]...), "forged"...), data[bytes.IndexByte(data[at:], '"')+at:]...)
	}},
	{"not JSON after the head", func(r *rand.Rand, _ *report.Envelope, data []byte) []byte {
		at := bytes.Index(data, []byte(`"cases": [`))
		if at < 0 {
			return data
		}
		return append(append([]byte{}, data[:at+len(`"cases": [`)]...), "\n    {\"name\": tru"...)
	}},
}

// encodeEnv is env as the JSON reporter writes it.
func encodeEnv(env *report.Envelope) []byte {
	var buf bytes.Buffer
	if err := (annotate.JSON{}).Report(&buf, env); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TestSpoolsRemoved: a streamed comparison (json, written as it is
// computed; or the listed cases of text and markdown, spooled) or merge
// leaves no file of its own in the temporary directory, whatever its
// inputs: when it refuses them (a file cut short, a forged case, not
// JSON: an *diag.InputError and no result), when a case is given twice,
// and when it succeeds, once the result is closed. Over generated runs,
// each input of a pair spoiled in each way.
func TestSpoolsRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	leftover := func(t *testing.T, what string) {
		t.Helper()
		names, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			t.Errorf("%s: %s left behind", what, n.Name())
			os.Remove(filepath.Join(tmp, n.Name()))
		}
	}
	r := rand.New(rand.NewPCG(41, 11))
	dir := t.TempDir()
	refused, twice := 0, 0
	for round := range 6 {
		base := genEnvelope(r, 1+r.IntN(80), "c")
		cur := genEnvelope(r, 1+r.IntN(80), "c")
		for _, sb := range spoolInputs {
			for _, sc := range spoolInputs {
				what := fmt.Sprintf("round %d: baseline %s, run %s", round, sb.name, sc.name)
				bp, cp := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
				if err := os.WriteFile(bp, sb.spoil(r, base, encodeEnv(base)), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(cp, sc.spoil(r, cur, encodeEnv(cur)), 0o644); err != nil {
					t.Fatal(err)
				}
				_, cmp, err := compareJSONBytes(bp, cp, "regressions")
				switch {
				case err != nil:
					refused++
					var in *diag.InputError
					if !errors.As(err, &in) || cmp != nil {
						t.Errorf("compare, %s: %T %v with a result %v; want an input error and none", what, err, err, cmp != nil)
					}
				case sc.name == "a case given twice":
					twice++
				}
				leftover(t, "compare json, "+what)
				listed, err := CompareListed(bp, "--compare", cp, "regressions")
				if err == nil {
					if err := listed.Close(); err != nil {
						t.Errorf("compare, %s: close: %v", what, err)
					}
				}
				leftover(t, "compare markdown, "+what)
				m, err := MergeFiles([]string{bp, cp})
				if err == nil {
					m.Write(&bytes.Buffer{})
					m.Close()
				}
				leftover(t, "merge, "+what)
			}
		}
	}
	if refused == 0 || twice == 0 {
		t.Errorf("%d comparisons refused, %d of a run giving a case twice: the inputs do not reach both paths", refused, twice)
	}
}
