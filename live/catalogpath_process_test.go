package live

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// TestProcessDeepDuplicateKeys runs the built binary on hostile files that
// repeat a key 1,000 times at the bottom of objects nested 4,000 deep:
// `mcptest tools --catalog` on a JSON and a YAML catalog, `mcptest
// validate` on a cassette. Each exits 2 with file:line:col errors, every
// repetition reported (the first 100 for the cassette), each line bounded
// (diag.Path keeps a path's first and last steps): before, the JSON
// catalog (46 KB) wrote 8 MB of errors in 25 s, the YAML one 2 MB in
// 3.6 s.
func TestProcessDeepDuplicateKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcptest")
	}
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	const depth, dups = 4000, 1000
	inner := "{" + strings.Repeat(`"a": 1, `, dups) + `"a": 1}`
	nest := strings.Repeat(`{"p": `, depth) + inner + strings.Repeat("}", depth)
	files := []struct {
		name, text string
		args       []string
		shown      int
	}{
		{"catalog.json", `{"tools": [{"name": "t", "inputSchema": ` + nest + `}]}`, []string{"tools", "--catalog"}, dups},
		{"catalog.yaml", "tools:\n- name: t\n  inputSchema: " + nest + "\n", []string{"tools", "--catalog"}, dups},
		{"cassette.json", `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [{"server": "s", "tool": "t", "arguments": ` +
			nest + `}], "final_response": "x"}]}]}`, []string{"validate"}, 100},
	}
	const maxLine = diag.PathBytes + 2*(4+6*diag.KeyRunes+3) + 300
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append(f.args, path)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Fatalf("%s: %v, want exit 2\n%.600s", f.name, err, stderr.String())
		}
		shown := 0
		out := stdout.String() + stderr.String()
		for _, line := range strings.Split(out, "\n") {
			if len(line) > maxLine {
				t.Fatalf("%s: a line of %d bytes, want at most %d: %.300s", f.name, len(line), maxLine, line)
			}
			if strings.HasPrefix(line, path+":") && strings.Contains(line, `duplicate key "a"`) {
				shown++
				if !strings.Contains(line, " levels…>") {
					t.Fatalf("%s: the path is not cut: %.300s", f.name, line)
				}
			}
		}
		// The printer shows the first diag.MaxPrinted and the last (here a
		// repetition, or the reader's note of the problems it dropped).
		if shown != diag.MaxPrinted+1 && shown != diag.MaxPrinted {
			t.Errorf("%s: %d repetitions shown, want the first %d and the last", f.name, shown, diag.MaxPrinted)
		}
		// The count is of the repetitions reported, and of the reader's
		// note when it dropped some (a cassette's past maxProblems).
		if !strings.Contains(out, fmt.Sprintf("\n%d errors\n", f.shown)) && !strings.Contains(out, fmt.Sprintf("\n%d errors\n", f.shown+1)) {
			t.Errorf("%s: the count is not of %d repetitions:\n%s", f.name, f.shown, out[max(0, len(out)-300):])
		}
		if max := f.shown * (maxLine + 1); len(out) > max+2000 {
			t.Errorf("%s: %d bytes of errors for a %d-byte file, want at most %d", f.name, len(out), len(f.text), max+2000)
		}
	}
}
