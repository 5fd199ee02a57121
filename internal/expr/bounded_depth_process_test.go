package expr

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessDeepArguments runs the built binary's `mcptest run` on a
// recording whose call sends arguments nested 100 and 4,000 levels deep
// to a tool whose inputSchema recurses with them ($ref), the leaf a
// string where the schema wants an object. At 100 levels the violation is
// found and placed at the leaf's line and column in the recording
// (cassette.Locate through jsonpos.LocatePath); at 4,000 the call is not
// checked, with the reason in a warning. Before, 2,000 levels took 23 s
// of CPU in the validator and placing the violation was cubic in the
// depth.
func TestProcessDeepArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcptest")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcptest")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/mcptest").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	schema := `{"type":"object","$defs":{"n":{"type":"object","properties":{"p":{"$ref":"#/$defs/n"}}}},"properties":{"p":{"$ref":"#/$defs/n"}}}`
	for _, depth := range []int{100, 4000} {
		args := strings.Repeat(`{"p":`, depth) + `"leaf"` + strings.Repeat(`}`, depth)
		cas := `{"mcptest_cassette":1,"catalog":{"s":{"tools":[{"name":"t","inputSchema":` + schema + `}]}},` +
			`"runs":[{"turns":[{"calls":[{"server":"s","tool":"t","arguments":` + args +
			`,"result":{"content":[{"type":"text","text":"ok"}]}}],"final_response":"x"}]}]}`
		if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(cas), 0o644); err != nil {
			t.Fatal(err)
		}
		suite := "agents:\n  - name: deep\n    cassette: c.json\n    arguments: {}\n"
		if err := os.WriteFile(filepath.Join(dir, "suite.yml"), []byte(suite), 0o644); err != nil {
			t.Fatal(err)
		}
		report := filepath.Join(dir, "out.json")
		cmd := exec.Command(bin, "run", "--config", filepath.Join(dir, "suite.yml"), "--format", "json", "--output", report)
		if out, err := cmd.CombinedOutput(); err != nil && cmd.ProcessState.ExitCode() != 1 {
			t.Fatalf("%d levels: %v\n%.600s", depth, err, out)
		}
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Cases []struct {
				Findings []struct {
					Level, Message string
					Position       *struct{ Line, Col int }
				}
			}
		}
		if err := json.Unmarshal(data, &env); err != nil || len(env.Cases) != 1 {
			t.Fatalf("%d levels: %v, %d cases", depth, err, len(env.Cases))
		}
		f := env.Cases[0].Findings
		leaf := strings.Index(cas, `"leaf"`) + 1 // one line, ASCII: the column
		switch {
		case depth <= MaxInstanceDepth:
			if len(f) == 0 || f[0].Level != "error" || f[0].Position == nil || f[0].Position.Line != 1 || f[0].Position.Col != leaf {
				t.Errorf("%d levels: findings %+v, want the leaf refused at 1:%d", depth, f, leaf)
			}
		default:
			if len(f) == 0 || f[0].Level != "warning" || !strings.Contains(f[0].Message, "4000 levels deep, over the 128") {
				t.Errorf("%d levels: findings %+v, want the depth limit named", depth, f)
			}
		}
	}
}
