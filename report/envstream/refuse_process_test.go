package envstream

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStreamRefusesProcess runs the built binary's `report merge` and
// `report --compare` over shard envelopes with a misplaced character of
// the envelope's structure, and with a forged case (a verdict outside its
// set, a control character in a case's file): each exits 2 naming the
// file, and the place (line:col) or the case's field.
func TestStreamRefusesProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	env := genEnvelope(rand.New(rand.NewPCG(11, 12)), 30, "refuse")
	var paths []string
	for i, sh := range shardsOf(env, 2) {
		p := filepath.Join(dir, []string{"a.json", "b.json"}[i])
		writeEnv(t, p, sh)
		paths = append(paths, p)
	}
	good, err := os.ReadFile(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	// The first case's line: its closing brace is followed by a comma.
	lines := strings.Split(string(good), "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, `    {"name":`) && strings.HasSuffix(l, "},") {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatalf("no case line in:\n%.500s", good)
	}
	for _, tc := range []struct {
		name, want string
		edit       func(l string) string
	}{
		{"comma dropped", "b.json:" + strconv.Itoa(at+2) + ":5: not a run envelope: want ',' or ']' after a case, got '{'", func(l string) string { return strings.TrimSuffix(l, ",") }},
		{"forged verdict", `b.json: not a run envelope: cases[0].verdict: "passed" is not one of pass, fail, inconclusive`, func(l string) string {
			return strings.Replace(strings.Replace(l, `"verdict":"pass"`, `"verdict":"passed"`, 1), `"verdict":"fail"`, `"verdict":"passed"`, 1)
		}},
		{"control character", `cases[0].position.file: "suite.yml\x1b[2J" holds a control character`, func(l string) string {
			return strings.Replace(l, `"file":"suite.yml"`, `"file":"suite.yml\u001b[2J"`, 1)
		}},
	} {
		bad := append([]string(nil), lines...)
		bad[at] = tc.edit(bad[at])
		if err := os.WriteFile(paths[1], []byte(strings.Join(bad, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"report", "merge", "--output", "m.json", "a.json", "b.json"}, {"report", "b.json", "--compare", "a.json", "--format", "json"}} {
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("%s: %v: %v\n%s\nwant %s", tc.name, args[:2], err, stderr.String(), tc.want)
			}
		}
	}
}
