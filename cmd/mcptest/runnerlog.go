package main

import (
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/mcptest/mcptest/annotate"
)

// inActions reports whether mcptest runs under GitHub Actions, where every
// line it prints is read by the runner for workflow commands.
func (c *Command) inActions() bool {
	return c.Getenv("GITHUB_ACTIONS") == "true"
}

// guardRunnerLog puts stdout and stderr behind annotate.RunnerLog for the
// rest of the command: no line of recorded or fetched text can be run as a
// workflow command, and GITHUB_API_URL's user-info is never printed, not
// even in an add-mask command (the API client takes it out of every
// request URL, and the log redacts what is left). The workflow commands mcptest
// emits go through c.workflow. It returns the function that flushes the
// log and restores the streams.
func (c *Command) guardRunnerLog() (restore func()) {
	redact := apiURLSecrets(c.Getenv("GITHUB_API_URL"))
	stdout, stderr := c.Stdout, c.Stderr
	out, errs := annotate.NewRunnerLog(stdout, redact), annotate.NewRunnerLog(stderr, redact)
	c.Stdout, c.Stderr, c.commands = out, errs, out.Commands()
	return func() {
		_ = out.Flush()
		_ = errs.Flush()
		c.Stdout, c.Stderr, c.commands = stdout, stderr, nil
	}
}

// workflow is the writer for the workflow commands mcptest emits itself.
func (c *Command) workflow() io.Writer {
	if c.commands != nil {
		return c.commands
	}
	return c.Stdout
}

// urlUserInfo matches the user-info of a URL (scheme://user:pass@), also
// with the colon escaped as a workflow-command property escapes it.
var urlUserInfo = regexp.MustCompile(`(://|%3A//)[^/?#@\s"'<>]+@`)

// apiURLSecrets reads the user-info of a GITHUB_API_URL such as
// https://user:token@ghe.example/api/v3. redact removes from a line the
// user-info of any URL (https://***@host), and the password or a lone
// user name of 8 characters or more (a token) wherever it stands. Without
// user-info, redact only does the former.
func apiURLSecrets(raw string) (redact func(string) string) {
	userInfo := func(s string) string { return urlUserInfo.ReplaceAllString(s, "${1}***@") }
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return userInfo
	}
	user := u.User.Username()
	pass, hasPass := u.User.Password()
	secret := pass
	if !hasPass {
		secret = user
	}
	var olds []string
	for _, s := range []string{secret, url.PathEscape(secret), url.QueryEscape(secret), strings.ReplaceAll(secret, "%", "%25")} {
		if len(s) >= 8 {
			olds = append(olds, s)
		}
	}
	// Longest first, so a form is replaced whole before a part of it.
	sort.Slice(olds, func(i, j int) bool { return len(olds[i]) > len(olds[j]) })
	var args []string
	for _, o := range olds {
		args = append(args, o, "***")
	}
	r := strings.NewReplacer(args...)
	return func(s string) string { return r.Replace(userInfo(s)) }
}
