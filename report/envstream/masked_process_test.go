package envstream

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/redact"
)

// TestCompareMaskedProcess runs the built binary's `report --compare
// --format json` to a file (written by rename) and to stdout (a pipe),
// for a run whose cases hold nothing to mask and for one whose case
// names hold a URL's password: the comparison is written as it is
// computed, through the mask of every output, and each output is byte
// for byte the comparison's JSON (CompareJSON) masked as a whole, the
// same to the file and to stdout, and the password never comes out.
func TestCompareMaskedProcess(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	r := rand.New(rand.NewPCG(40, 17))
	for _, tc := range []struct{ name, secret string }{{"clean", ""}, {"a URL's password", "pw-0123456789"}} {
		base := genEnvelope(r, 60, "masked")
		cur := genEnvelope(r, 60, "masked")
		if tc.secret != "" {
			for i := range cur.Cases {
				if i%7 == 3 {
					cur.Cases[i].Name += " http://u:" + tc.secret + "@h/x"
				}
			}
		}
		bp, cp := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
		writeEnv(t, bp, base)
		writeEnv(t, cp, cur)
		raw, _, err := compareJSONBytes(bp, cp, "none")
		if err != nil {
			t.Fatal(err)
		}
		want := (&redact.Known{}).Mask(string(raw))
		if tc.secret == "" && want != string(raw) {
			t.Fatalf("%s: the mask changed a clean comparison", tc.name)
		}
		out := filepath.Join(dir, "c.json")
		cmd := exec.Command(bin, "report", "cur.json", "--compare", "base.json", "--format", "json", "--fail-on", "none", "--output", out)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, b)
		}
		file, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(bin, "report", "cur.json", "--compare", "base.json", "--format", "json", "--fail-on", "none")
		cmd.Dir = dir
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for what, got := range map[string]string{"--output": string(file), "stdout": string(stdout)} {
			if got != want {
				t.Errorf("%s, %s: the output is not the comparison masked:\n%.600s\nwant:\n%.600s", tc.name, what, got, want)
			}
			if tc.secret != "" && strings.Contains(got, tc.secret) {
				t.Errorf("%s, %s: the password came out", tc.name, what)
			}
		}
	}
}
