package live

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/gate/tokens"
)

// jsTiktoken counts texts with npm js-tiktoken, the independent
// implementation installed by .ci/run.
func jsTiktoken(t *testing.T, texts []string) []int {
	t.Helper()
	npmBin(t, "mcp-server-everything") // the same npm ci installs js-tiktoken
	script, _ := filepath.Abs(filepath.Join("..", ".ci", "node", "count-tokens.js"))
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH")
		}
		t.Skip("node is not on PATH")
	}
	in, _ := json.Marshal(texts)
	cmd := exec.Command("node", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node count-tokens.js: %v\n%s", err, stderr.String())
	}
	var counts []int
	if err := json.Unmarshal(out, &counts); err != nil || len(counts) != len(texts) {
		t.Fatalf("count-tokens.js printed %q: %v", out, err)
	}
	return counts
}

// TestTokenCountsMatchTiktoken: the cl100k_base counts of the real servers'
// tool surfaces, text by text, equal js-tiktoken's.
func TestTokenCountsMatchTiktoken(t *testing.T) {
	dir := t.TempDir()
	texts := []string{
		"", "hello world", "<|endoftext|> is ordinary text here", "héllo 🌍 世界, ñandú",
		"  leading and trailing  \n\n\tspaces ", strings.Repeat("a", 5000), "it's 1,234,567.89 — “quoted”",
	}
	total := map[string]int{}
	for _, s := range []struct {
		bin  string
		args []string
	}{{"mcp-server-everything", nil}, {"mcp-server-filesystem", []string{dir}}, {"mcp-server-memory", nil}} {
		c := load(t, Target{Command: append([]string{npmBin(t, s.bin)}, s.args...), Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "m.json")}})
		for _, tool := range c.Tools {
			texts = append(texts, tokens.ToolTexts(tool.Name, tool.Description, tool.InputSchema)...)
			total[s.bin] += tokens.Tool(tool.Name, tool.Description, tool.InputSchema)
		}
	}
	want := jsTiktoken(t, texts)
	mismatches := 0
	for i, text := range texts {
		if got := tokens.Count(text); got != want[i] {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("Count(%.80q) = %d, js-tiktoken says %d", text, got, want[i])
			}
		}
	}
	t.Logf("%d texts agree; tool-surface tokens: %v", len(texts), total)
	for bin, n := range total {
		if n < 100 {
			t.Errorf("%s: tool surface of %d tokens is implausibly small", bin, n)
		}
	}
}
