package envstream

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/report"
)

// TestCompareGuessedProcess runs the built binary's `report --compare`
// where the current run is the baseline's cases edited as runs edit them
// (cases kept, left out, given twice, swapped with the next, run again
// with other figures, new cases put in) and the baseline gives a name
// twice: the reader takes most cases as the baseline case it guesses
// (the one after the last taken, else after the last case's name), and
// the comparison is the one of every case decoded (the same run with a
// space after each case's brace, which no guess and no baseline case
// matches), in json, markdown and text, over drawn runs.
func TestCompareGuessedProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	run := func(args ...string) (string, int) {
		t.Helper()
		stdout, stderr, code := runBin(t, dir, bin, args...)
		if code != 0 {
			return stdout + stderr, code
		}
		return stdout, 0
	}
	r := rand.New(rand.NewPCG(40, 31))
	for draw := range 6 {
		base := genEnvelope(r, 30+r.IntN(40), "g")
		if draw%2 == 1 { // a name given twice: the second is dropped
			k := r.IntN(len(base.Cases))
			twice := *base.Cases[k]
			if r.IntN(2) == 0 {
				twice = *genCase(r, k, twice.Name)
			}
			base.Cases = append(base.Cases[:k+1], append([]*report.CaseResult{&twice}, base.Cases[k+1:]...)...)
		}
		cur := *base
		cur.Cases = nil
		for k := 0; k < len(base.Cases); k++ {
			c := base.Cases[k]
			switch op := r.IntN(20); {
			case op < 12:
				cur.Cases = append(cur.Cases, c)
			case op < 13: // left out
			case op < 14:
				cur.Cases = append(cur.Cases, c, c)
			case op < 16 && k+1 < len(base.Cases):
				cur.Cases = append(cur.Cases, base.Cases[k+1], c)
				k++
			case op < 18:
				cur.Cases = append(cur.Cases, genCase(r, k, c.Name))
			default:
				cur.Cases = append(cur.Cases, genCase(r, k, fmt.Sprintf("new case %d", k)), c)
			}
		}
		cur.Summarize(expr.JudgeFloor)
		cur.Tally()
		writeEnv(t, filepath.Join(dir, "base.json"), base)
		writeEnv(t, filepath.Join(dir, "cur.json"), &cur)
		data, err := os.ReadFile(filepath.Join(dir, "cur.json"))
		if err != nil {
			t.Fatal(err)
		}
		spaced := strings.ReplaceAll(string(data), "\n    {\"name\"", "\n    { \"name\"")
		if err := os.WriteFile(filepath.Join(dir, "spaced.json"), []byte(spaced), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"json", "markdown", "text"} {
			guessed, c1 := run("report", "cur.json", "--compare", "base.json", "--format", format, "--fail-on", "none")
			decoded, c2 := run("report", "spaced.json", "--compare", "base.json", "--format", format, "--fail-on", "none")
			if c1 != c2 || guessed == "" || guessed != decoded {
				t.Fatalf("draw %d, %s: the guessed way (exit %d) compares otherwise than every case decoded (exit %d):\n%.3000s\nwant:\n%.3000s", draw, format, c1, c2, guessed, decoded)
			}
		}
	}
}
