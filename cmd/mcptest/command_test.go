package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretFileNamedAsCassette: a suite that names a file which is no
// recording (a key file, a registry's config.json, /etc/shadow) as its
// cassette is refused with exit 2 and the position of the problem, and
// prints nothing of the file's content.
func TestSecretFileNamedAsCassette(t *testing.T) {
	const secret = "sk-live-0123456789abcdef"
	for name, content := range map[string]string{
		"secret":      "SECRET_API_KEY=" + secret + " and more\nline two\n",
		"secret.json": "SECRET_API_KEY=" + secret + "\n",
		"creds.yml":   "api_key: " + secret + "\nregion: eu\n",
		"config.json": `{"auths": {"ghcr.io": {"auth": "` + secret + `"}}}` + "\n",
		"shadow":      "root:$6$" + secret + ":20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, name), []byte(content))
			suite := filepath.Join(dir, "suite.yml")
			write(t, suite, []byte("agents:\n  - name: t\n    prompt: hi\n    cassette: "+name+"\n    expect:\n      - calls: { \">=\": 1 }\n"))
			stdout, stderr, code := mcptest(t, nil, "run", "--config", suite)
			if code != ExitInput {
				t.Fatalf("exit %d, want 2\n%s%s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, filepath.Join(dir, name)+":1:1: ") {
				t.Errorf("the error does not name the file's position:\n%s", stderr)
			}
			if strings.Contains(stdout+stderr, secret[8:]) {
				t.Errorf("the file's content was printed:\n%s", stderr)
			}
		})
	}
}

// TestCaretStillShown: a recording that parsed keeps its source line and
// caret under an error inside it, and a suite under an error about it.
func TestCaretStillShown(t *testing.T) {
	_, stderr, _ := mcptest(t, nil, "run", "--config", suiteCorpus+"err/malformed-cassette.yml")
	if !strings.Contains(stderr, `"final_respone": "21C"}`+"\n") {
		t.Errorf("no source line under an error in a recording:\n%s", stderr)
	}
	_, stderr, _ = mcptest(t, nil, "run", "--config", suiteCorpus+"err/no-implicit-cassette.yml")
	if !strings.Contains(stderr, "    - name: Weather Selection (EU)\n      ^\n") {
		t.Errorf("no source line under an error about a suite's case:\n%s", stderr)
	}
}

// TestErrorMessagesEscaped: an error message carrying text from the
// command line, a file or an API answer shows control characters as
// escapes, so it cannot clear or recolour the terminal; the line breaks
// of a message written over several lines are kept.
func TestErrorMessagesEscaped(t *testing.T) {
	_, stderr, code := mcptest(t, nil, "report", "x\x1b[2J\x1b]0;title\x07.json")
	if code != ExitInput || stderr != "mcptest: x\\u001b[2J\\u001b]0;title\\u0007.json: no such file\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	_, stderr, _ = mcptest(t, nil, "scenario", "walk")
	if !strings.Contains(stderr, "got \"walk\"\nusage: ") {
		t.Errorf("stderr %q", stderr)
	}
}
