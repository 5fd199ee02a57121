package live

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/redact"
)

func newTargetFlags(catalog bool) (*TargetFlags, *[]Target) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	tf := AddTargetFlags(fs, catalog)
	var known []Target
	tf.Know = func(t Target) { known = append(known, t) }
	return tf, &known
}

// TestTargetFlags: a command after --, --command with --arg, a URL, or a
// suite's server; every other shape is wrong input, and every target
// built is made known before it is used.
func TestTargetFlags(t *testing.T) {
	tf, known := newTargetFlags(true)
	if err := tf.Parse([]string{"--timeout", "5s", "--", "srv", "--token", "abc"}); err != nil {
		t.Fatal(err)
	}
	tg, err := tf.Target()
	if err != nil || strings.Join(tg.Command, " ") != "srv --token abc" || tg.Timeout != 5*time.Second || len(*known) != 1 || !tf.Named() {
		t.Fatalf("target %+v, %v, known %d", tg, err, len(*known))
	}

	tf, _ = newTargetFlags(false)
	if err := tf.Parse([]string{"--command", "npx", "--arg", "-y", "--arg", "pkg"}); err != nil {
		t.Fatal(err)
	}
	if tg, err := tf.Target(); err != nil || strings.Join(tg.Command, " ") != "npx -y pkg" {
		t.Errorf("--command: %+v, %v", tg, err)
	}

	tf, _ = newTargetFlags(false)
	missing := errors.New("no server named x")
	tf.Suite = func(config, server string, timeout time.Duration) (Target, error) {
		if server == "db" {
			return Target{Name: "db", Command: []string{"db-server"}, Timeout: timeout}, nil
		}
		return Target{}, missing
	}
	tf.NoServer = func(err error) bool { return err == missing }
	if err := tf.Parse([]string{"--server", "db", "--config", "s.yml"}); err != nil {
		t.Fatal(err)
	}
	if tg, err := tf.Target(); err != nil || tg.Name != "db" || tf.Named() {
		t.Errorf("--server: %+v, %v", tg, err)
	}
	*tf.Server = "x"
	if _, err := tf.Target(); !errors.As(err, new(*diag.InputError)) || !strings.Contains(err.Error(), `--server "x"`) {
		t.Errorf("missing server: %v", err)
	}

	for _, args := range [][]string{{"stray"}, {"--nope"}, {"--url", "http://h/mcp", "--", "cmd"}, {"--server", "db", "--url", "http://h/mcp"}} {
		tf, _ := newTargetFlags(false)
		tf.Suite = func(string, string, time.Duration) (Target, error) { return Target{}, nil }
		err := tf.Parse(args)
		if err == nil {
			_, err = tf.Target()
		}
		if !errors.As(err, new(*diag.InputError)) {
			t.Errorf("%v: %v, want wrong input", args, err)
		}
	}
}

// TestArgAndTargetSecrets: the token a --bearer-token-env names, a
// server's secret flags and env, a URL's password all join the mask.
func TestArgAndTargetSecrets(t *testing.T) {
	env := map[string]string{"TOK": "bearer-secret-1", "T2": "bearer-secret-2"}
	getenv := func(k string) string { return env[k] }
	k := &redact.Known{}
	AddArgSecrets(k, []string{"tools", "--bearer-token-env", "TOK", "--bearer-token-env=T2", "--", "srv", "--api-key", "argv-secret"}, getenv)
	Target{URL: "https://u:url-password@h/mcp", BearerTokenEnv: "T2", Env: map[string]string{"API_TOKEN": "env-secret", "PLAIN": "plain-value"}}.AddSecrets(k, getenv)
	got := k.Mask("bearer-secret-1 bearer-secret-2 argv-secret url-password env-secret plain-value")
	for _, s := range []string{"bearer-secret-1", "bearer-secret-2", "argv-secret", "url-password", "env-secret"} {
		if strings.Contains(got, s) {
			t.Errorf("%s is not masked: %s", s, got)
		}
	}
	if !strings.Contains(got, "plain-value") {
		t.Errorf("a plain env value is masked: %s", got)
	}
}
