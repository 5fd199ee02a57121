package envstream

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareSameBytesKeysProcess runs the built binary on runs whose
// cases' assertions and floors carry the keys the same-bytes way notes as
// it scans (passThroughKeys): an assertion or floor given twice, a key
// with an escape, a null entry, keys left out, a long string around
// brackets and a backslash (the reader's eight-byte steps). Each run is
// compared with itself (every case the baseline's to the byte) and, with
// a space after each case's first brace (no case the baseline's to the
// byte, so each is decoded), with the same baseline: the json and
// markdown comparisons are the same bytes both ways, the decoder the
// counterpart of the scans.
func TestCompareSameBytesKeysProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	env := genEnvelope(rand.New(rand.NewPCG(40, 16)), 60, "keys")
	writeEnv(t, filepath.Join(dir, "gen.json"), env)
	good, err := os.ReadFile(filepath.Join(dir, "gen.json"))
	if err != nil {
		t.Fatal(err)
	}
	edits := [][2]string{
		{`"assertions":[`, `"assertions":[{"index":0,"target":"t","matcher":null,"passed":true,"message":""},{"index":0,"target":"t","matcher":null,"passed":false,"message":""},`},
		{`"assertions":[`, `"assertions":[{"index":7,"block":"b\u0031","target":"t","passed":true,"message":""},{"index":7,"block":"b1","target":"t","passed":true,"message":""},`},
		{`"assertions":[`, `"assertions":[{"index":null,"block":null,"target":"x","passed":true,"message":"[{a \"} ]\\ {{[[ ` + strings.Repeat("ab{", 9) + `"},`},
		{`"assertions":[`, `"assertions":[null,`},
		{`"floors":[`, `"floors":[{"name":"f","passed":true},{"name":"f","passed":false},`},
		{`"floors":[`, `"floors":[{"name":"f\u0031","passed":true},{"passed":false},`},
	}
	lines := strings.Split(string(good), "\n")
	edited, k := 0, 0
	for i, l := range lines {
		if !strings.HasPrefix(l, `    {"name":"keys case `) {
			continue
		}
		// Each edit in turn, every seventh case left as written.
		k++
		e := edits[k%len(edits)]
		if k%7 == 0 || !strings.Contains(l, e[0]) {
			continue
		}
		// An empty list takes the entries alone.
		if empty := e[0] + "]"; strings.Contains(l, empty) {
			lines[i] = strings.Replace(l, empty, strings.TrimSuffix(e[1], ",")+"]", 1)
		} else {
			lines[i] = strings.Replace(l, e[0], e[1], 1)
		}
		edited++
	}
	if edited < 10 {
		t.Fatalf("%d case lines edited", edited)
	}
	base := strings.Join(lines, "\n")
	spaced := strings.ReplaceAll(base, "\n    {\"name\"", "\n    { \"name\"")
	for name, data := range map[string]string{"base.json": base, "spaced.json": spaced} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		stdout, stderr, code := runBin(t, dir, bin, args...)
		if code != 0 && code != 1 {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		return stdout, stderr
	}
	for _, format := range []string{"json", "markdown"} {
		same, e1 := run("report", "base.json", "--compare", "base.json", "--format", format, "--fail-on", "none")
		decoded, e2 := run("report", "spaced.json", "--compare", "base.json", "--format", format, "--fail-on", "none")
		if same == "" || same != decoded || e1 != e2 {
			t.Errorf("%s: the same bytes compare otherwise than decoded:\n%.2000s\nstderr %s\nwant:\n%.2000s\nstderr %s", format, same, e1, decoded, e2)
		}
	}
}
