package envstream

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareSameBytesProcess runs the built binary's `report --compare`
// where the current run's cases are the baseline's to the byte (the way
// that does not decode them): the comparison is the one of the decoded
// cases (the binary's output against baseline.Compare's, through the
// --compare of a copy whose cases differ by a space), and a forged case
// the two files hold alike (a verdict outside its set, a control
// character in a file, a forged reliability class or kind) is refused
// with exit 2 and the words the decoder gives, naming the current run
// (json to stdout: never a whole document).
func TestCompareSameBytesProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	env := genEnvelope(rand.New(rand.NewPCG(40, 13)), 40, "same")
	writeEnv(t, filepath.Join(dir, "base.json"), env)
	good, err := os.ReadFile(filepath.Join(dir, "base.json"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, int) {
		t.Helper()
		return runBin(t, dir, bin, args...)
	}
	// The same run with a space after each case's first brace: no case
	// is the baseline's to the byte, so each is decoded.
	spaced := strings.ReplaceAll(string(good), "\n    {\"name\"", "\n    { \"name\"")
	if spaced == string(good) {
		t.Fatal("no case line to space")
	}
	if err := os.WriteFile(filepath.Join(dir, "spaced.json"), []byte(spaced), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "markdown", "text"} {
		same, _, c1 := run("report", "base.json", "--compare", "base.json", "--format", format, "--fail-on", "none")
		decoded, _, c2 := run("report", "spaced.json", "--compare", "base.json", "--format", format, "--fail-on", "none")
		if c1 != 0 || c2 != 0 || same == "" || same != decoded {
			t.Errorf("%s: the same bytes (exit %d) compare otherwise than decoded (exit %d):\n%.1500s\nwant:\n%.1500s", format, c1, c2, same, decoded)
		}
	}
	lines := strings.Split(string(good), "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, `    {"name":"same case 3"`) {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no case 3 line in:\n%.500s", good)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"verdict", `"verdict":"`, `"verdict":"passed`, `cur.json: not a run envelope: cases[3].verdict: "passed`},
		{"control character", `"file":"suite.yml"`, `"file":"suite.yml\u001b[2J"`, `cur.json: not a run envelope: cases[3].position.file: "suite.yml\x1b[2J" holds a control character`},
		{"reliability class", `"reliability.class":"flaky"`, `"reliability.class":"flaky\nrepro: x"`, `cur.json: not a run envelope: cases[3].labels["reliability.class"]: "flaky\nrepro: x" is not one of stable_pass, flaky, stable_fail`},
		{"kind", `"kind":"agent"`, `"kind":"agent\u2028"`, `cur.json: not a run envelope: cases[3].kind: "agent\u2028" is not one of`},
	} {
		bad := append([]string(nil), lines...)
		if !strings.Contains(bad[at], tc.from) {
			t.Fatalf("%s: no %s in %s", tc.name, tc.from, bad[at])
		}
		bad[at] = strings.Replace(bad[at], tc.from, tc.to, 1)
		data := []byte(strings.Join(bad, "\n"))
		for _, f := range []string{"cur.json", "forged-base.json"} {
			if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, format := range []string{"json", "markdown"} {
			stdout, stderr, code := run("report", "cur.json", "--compare", "forged-base.json", "--format", format)
			// json is written as it is computed: to stdout, what came
			// before the forged case is out, and never a whole document.
			partial := stdout != "" && format == "json" && !json.Valid([]byte(stdout))
			if code != 2 || (stdout != "" && !partial) || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s (%s): exit %d, stdout %q\nstderr %s\nwant %s", tc.name, format, code, stdout, stderr, tc.want)
			}
		}
	}
}
