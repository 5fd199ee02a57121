package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteCompletion: every shell's script names the program, each
// command and its flags and words, quotes a summary with an apostrophe for
// its shell, and an unknown shell is an error that writes nothing.
func TestWriteCompletion(t *testing.T) {
	cmds := []Completion{
		{Name: "run", Summary: "run the suite's cases", Flags: []string{"--shard", "--help"}},
		{Name: "gen", Summary: "generate", Words: []string{"suite", "eval"}, Flags: []string{"--help"}},
	}
	for shell, quoted := range map[string]string{
		"bash":       `run) opts="--shard --help" words=""`,
		"zsh":        `'run:run the suite'\''s cases'`,
		"fish":       `-d 'run the suite'\''s cases'`,
		"powershell": `'gen' = @('suite', 'eval')`,
	} {
		var b bytes.Buffer
		if err := WriteCompletion(&b, shell, "prog", cmds); err != nil {
			t.Fatalf("%s: %v", shell, err)
		}
		s := b.String()
		for _, want := range []string{"prog completion " + shell, "run", "gen", "shard", "suite", quoted} {
			if !strings.Contains(s, want) {
				t.Errorf("%s script lacks %q:\n%s", shell, want, s)
			}
		}
	}
	var b bytes.Buffer
	if err := WriteCompletion(&b, "tcsh", "prog", cmds); err == nil || b.Len() != 0 {
		t.Errorf("tcsh: %v, wrote %q", err, b.String())
	}
}
