package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// askBackSuite is a suite against server-everything started twice: as
// `asks`, whose tests script elicitation and sampling answers, and as
// `plain`, whose tests script none.
const askBackSuite = `servers:
  asks:
    command: [EVERYTHING]
  plain:
    command: [EVERYTHING]
tools:
  - name: accepted
    server: asks
    tool: trigger-elicitation-request
    elicitation:
      - message: "not this one"
        action: decline
      - message: { regex: "^Please provide inputs" }
        action: accept
        content: { name: Grace Hopper, check: false, integer: 7 }
    expect:
      - result.content[1].text: { contains: "Name: Grace Hopper" }
      - result.content[1].text: { contains: "Favorite Integer: 7" }
      - elicitations[0].message: "Please provide inputs for the following fields:"
      - elicitations[0].matched: 1
  - name: sampled
    server: asks
    tool: trigger-sampling-request
    args: { prompt: "two plus two?" }
    sampling:
      - message: "two plus two?"
        text: "four, said the script"
        model: scripted-7
    expect:
      - result.content[0].text: { contains: "four, said the script" }
      - result.content[0].text: { contains: "scripted-7" }
      - samplings[0].messages[0].content.text: "Resource trigger-sampling-request context: two plus two?"
      - samplings[0].systemPrompt: "You are a helpful test server."
  - name: unmatched
    server: asks
    tool: trigger-elicitation-request
    elicitation:
      - message: "a question the server never asks"
        action: accept
        content: { name: nobody }
    expect:
      - result.content[0].text: { contains: "declined" }
  - name: no capability without a script
    server: plain
    tool: trigger-elicitation-request
    expect:
      - result.isError: true
`

// TestAskBackBinary runs the built binary on a suite whose tests script the
// answers to server-everything's elicitation and sampling requests: the
// scripted answers reach the server (its results echo them), the requests
// are assertable, a request no answer matches is declined with a finding
// naming its message, and a server no test scripts for is not offered the
// capabilities (server-everything then does not list the tools).
func TestAskBackBinary(t *testing.T) {
	everything := ciNodeBin(t, "mcp-server-everything")
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite.yml")
	text := strings.ReplaceAll(askBackSuite, "EVERYTHING", strconv.Quote(everything))
	if err := os.WriteFile(suite, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mcptestBin(t), "run", "--config", suite, "--format", "json", "--no-cache")
	cmd.Dir = dir
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitFail {
		t.Fatalf("exit: %v, want %d (one case fails)\n%s", err, ExitFail, out)
	}
	var env struct {
		Cases []struct {
			Name     string `json:"name"`
			Verdict  string `json:"verdict"`
			Findings []struct {
				Message string `json:"message"`
			} `json:"findings"`
			Assertions []struct {
				Target string `json:"target"`
				Passed bool   `json:"passed"`
				Actual any    `json:"actual"`
			} `json:"assertions"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{"accepted": "pass", "sampled": "pass", "unmatched": "fail", "no capability without a script": "pass"}
	for _, c := range env.Cases {
		if c.Verdict != want[c.Name] {
			t.Errorf("case %q: verdict %s, want %s: assertions %+v findings %+v", c.Name, c.Verdict, want[c.Name], c.Assertions, c.Findings)
		}
		delete(want, c.Name)
		if c.Name != "unmatched" {
			continue
		}
		msg := ""
		if len(c.Findings) > 0 {
			msg = c.Findings[0].Message
		}
		if !strings.Contains(msg, `elicitation "Please provide inputs for the following fields:"`) || !strings.Contains(msg, "declined") {
			t.Errorf("unmatched: the finding does not name the message and the decline: %q", msg)
		}
		if len(c.Assertions) != 1 || !c.Assertions[0].Passed {
			t.Errorf("unmatched: the server did not receive a decline: %+v", c.Assertions)
		}
	}
	if len(want) > 0 {
		t.Errorf("cases missing from the envelope: %v", want)
	}
}
