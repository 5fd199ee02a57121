package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/gate/security"
	"github.com/mcptest/mcptest/mcpserver"
)

// The worked agent loop of the agent interface, run for real: the official
// Go SDK client drives `mcptest mcp-server --enable-writes` against
// @modelcontextprotocol/server-everything, and every JSON-RPC message it
// sends or receives becomes one line of
// examples/mcp-server-config/agent-loop-transcript.jsonl.

const transcriptFile = "../../examples/mcp-server-config/agent-loop-transcript.jsonl"

// transcriptLine is one line of the transcript: a message and which way it
// went, seen from the agent (send: agent to mcptest; recv: mcptest to agent).
type transcriptLine struct {
	Direction string          `json:"direction"`
	Message   json.RawMessage `json:"message"`
}

// transcript collects the messages of one session in the order the client
// wrote and read them.
type transcript struct {
	mu    sync.Mutex
	lines []transcriptLine
	err   error
}

func (r *transcript) add(dir string, msg jsonrpc.Message) {
	data, err := jsonrpc.EncodeMessage(msg)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil && r.err == nil {
		r.err = err
	}
	r.lines = append(r.lines, transcriptLine{dir, data})
}

// recordingTransport is a transport that records every message of its
// connection.
type recordingTransport struct {
	mcp.Transport
	rec *transcript
}

func (t recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{c, t.rec}, nil
}

type recordingConn struct {
	mcp.Connection
	rec *transcript
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.rec.add("recv", msg)
	}
	return msg, err
}

// Write records before writing, so a request always stands before its
// response, which the read loop may take in before Write returns.
func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.rec.add("send", msg)
	return c.Connection.Write(ctx, msg)
}

// ulid is a run id: 26 digits of Crockford's base32.
var ulid = regexp.MustCompile(`\b0[0-9A-HJKMNP-TV-Z]{25}\b`)

var transcriptVolatile = []struct {
	re   *regexp.Regexp
	with string
}{
	// mcptest's own version, which a release build sets. The patterns match
	// a key both as it stands in a message and escaped in the JSON text of a
	// tool result's content.
	{regexp.MustCompile(`(serverInfo\\?":\{\\?"name\\?":\\?"mcptest\\?",\\?"version\\?":\\?")[^"\\]*`), `${1}VERSION`},
	// How long a test took.
	{regexp.MustCompile(`(duration_ms\\?"):\d+`), `${1}:0`},
	// A proposed latency budget: twice the slowest observed call, floor 100.
	{regexp.MustCompile(`max_duration_ms: \d+`), `max_duration_ms: 100`},
}

// normalizeTranscript renders the lines as JSONL with the values that differ
// between two sessions replaced by stable ones: the run ids, numbered in the
// order they appear (RUN-ID-1, RUN-ID-2, ...), durations, mcptest's version
// and the workspace's path.
func normalizeTranscript(lines []transcriptLine, ws string) (string, error) {
	var b strings.Builder
	ids := map[string]string{}
	for _, l := range lines {
		// Without HTML escaping, so `<run_id>` reads as it was sent.
		var data bytes.Buffer
		enc := json.NewEncoder(&data)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(l); err != nil {
			return "", err
		}
		s := strings.TrimSuffix(data.String(), "\n")
		for _, dir := range wsPaths(ws) {
			s = strings.ReplaceAll(s, dir, "$WORKSPACE")
		}
		s = ulid.ReplaceAllStringFunc(s, func(id string) string {
			if _, ok := ids[id]; !ok {
				ids[id] = "RUN-ID-" + strconv.Itoa(len(ids)+1)
			}
			return ids[id]
		})
		for _, v := range transcriptVolatile {
			s = v.re.ReplaceAllString(s, v.with)
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// splitTests splits a suite's text around its test list: the text before
// the first test, each test from its "  - name:" line up to the next test,
// and the text from the first line after the list on.
func splitTests(suite string) (head string, tests []string, tail string) {
	lines := strings.SplitAfter(suite, "\n")
	i := 0
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "  - name: "); i++ {
		head += lines[i]
	}
	for ; i < len(lines); i++ {
		switch l := lines[i]; {
		case strings.HasPrefix(l, "  - name: "):
			tests = append(tests, l)
		case strings.HasPrefix(l, "  "):
			tests[len(tests)-1] += l
		default:
			return head, tests, strings.Join(lines[i:], "")
		}
	}
	return head, tests, ""
}

// toolLine names the tool a test calls.
var toolLine = regexp.MustCompile(`(?m)^    tool: "?([^"\n]+)"?$`)

// wsPaths is the workspace's path as given and with its symbolic links
// resolved, as the front door may see it.
func wsPaths(ws string) []string {
	paths := []string{ws}
	if real, err := filepath.EvalSymlinks(ws); err == nil && real != ws {
		paths = append([]string{real}, paths...)
	}
	return paths
}

// loopSession is the agent's side of the session.
type loopSession struct {
	t    *testing.T
	ctx  context.Context
	sess *mcp.ClientSession
}

// call calls one verb that must succeed and decodes its structured answer.
func (s *loopSession) call(verb string, args map[string]any, out any) {
	s.t.Helper()
	res, err := s.sess.CallTool(s.ctx, &mcp.CallToolParams{Name: verb, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s: %v", verb, err)
	}
	if res.IsError {
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		s.t.Fatalf("%s: isError: %s", verb, text)
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		s.t.Fatalf("%s: %v\n%s", verb, err, data)
	}
}

// loopRun is what the agent reads of a run_tool_test answer.
type loopRun struct {
	Verdict  string `json:"verdict"`
	Total    int    `json:"total"`
	Passed   int    `json:"passed"`
	Failures []struct {
		Test   string `json:"test"`
		Assert string `json:"assert"`
		Actual string `json:"actual"`
		Repro  string `json:"repro"`
	} `json:"failures"`
}

// The hand-written check the agent adds before it has observed anything: it
// guesses that echo answers the message verbatim.
const (
	guessedEcho = `  - name: "echo: answers the message"
    server: target
    tool: echo
    args: {message: "hello from the agent"}
    expect:
      assertions:
        - target: "result.content[0].text"
          matcher: {exact: "hello from the agent"}
          message: "echo answers the message verbatim"
`
	fixedEcho = `  - name: "echo: answers the message"
    server: target
    tool: echo
    args: {message: "hello from the agent"}
    expect:
      assertions:
        - target: "result.content[0].text"
          matcher: {exact: "Echo: hello from the agent"}
          message: "echo answers the message behind an Echo: prefix"
`
)

// TestAgentLoopTranscript runs the worked agent loop over a real front door
// and compares the messages with the checked-in transcript: initialize,
// tools/list (writesEnabled), list_tools, scaffold_suite,
// propose_assertions, validate_suite, a failing run_tool_test, the fix and
// the passing re-run. go test ./cmd/mcptest -run TestAgentLoopTranscript
// -update rewrites it.
func TestAgentLoopTranscript(t *testing.T) {
	everything := ciNodeBin(t, "mcp-server-everything")
	bin := mcptestBin(t)
	ws := t.TempDir()
	ctx := context.Background()

	// The server under test is named as an agent names it, by the command
	// on PATH.
	front := exec.Command(bin, "mcp-server", "--enable-writes")
	front.Dir = ws
	front.Env = append(os.Environ(), "PATH="+filepath.Dir(everything)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stderr bytes.Buffer
	front.Stderr = &stderr
	rec := &transcript{}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent-loop-example", Version: "v1"}, nil)
	// The client speaks 2025-11-25, the initialize handshake of the agents
	// in use; a 2026-07-28 client opens with server/discover instead.
	sess, err := client.Connect(ctx, recordingTransport{&mcp.CommandTransport{Command: front}, rec}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer sess.Close()
	s := &loopSession{t: t, ctx: ctx, sess: sess}
	target := []string{"mcp-server-everything"}

	loopListTools(t, s, target)

	// 3. A starter suite for the two tools the agent tests.
	var scaffold struct {
		Suite string `json:"suite"`
	}
	s.call("scaffold_suite", map[string]any{"command": target, "tools": []string{"echo", "get-sum"}}, &scaffold)

	// 4. Observed assertions for get-sum.
	var proposal struct {
		Test      string `json:"test"`
		CallsMade int    `json:"calls_made"`
	}
	s.call("propose_assertions", map[string]any{"command": target, "tool": "get-sum", "args": map[string]any{"a": 2, "b": 3}}, &proposal)
	if proposal.CallsMade != 2 {
		t.Errorf("propose_assertions of a read-only tool made %d calls, want 2", proposal.CallsMade)
	}

	// 5. The refined draft: the proposal replaces the generic check of
	// get-sum, the resource and prompt tests go (the agent was asked about
	// two tools), and a check the agent wrote by hand joins the list; it is
	// validated before it runs.
	draft := refineDraft(t, scaffold.Suite, proposal.Test)
	var valid struct {
		Valid  bool  `json:"valid"`
		Errors []any `json:"errors"`
	}
	s.call("validate_suite", map[string]any{"suite": draft}, &valid)
	if !valid.Valid {
		t.Fatalf("the draft does not validate: %v\n%s", valid.Errors, draft)
	}

	// 6. The run fails: the hand-written check guessed the answer.
	var first loopRun
	s.call("run_tool_test", map[string]any{"suite": draft}, &first)
	if first.Verdict != "fail" || len(first.Failures) != 1 {
		t.Fatalf("first run: %+v", first)
	}
	f := first.Failures[0]
	if f.Test != "echo: answers the message" || f.Actual != `"Echo: hello from the agent"` || !strings.Contains(f.Assert, "hello from the agent") || !strings.Contains(f.Repro, "--filter") {
		t.Errorf("the failure: %+v", f)
	}

	// 7. The fix: assert what the server answers, then re-run.
	fixed := strings.Replace(draft, guessedEcho, fixedEcho, 1)
	var second loopRun
	s.call("run_tool_test", map[string]any{"suite": fixed}, &second)
	if second.Verdict != "pass" || second.Total != first.Total || second.Passed != second.Total || len(second.Failures) != 0 {
		t.Fatalf("the re-run after the fix: %+v", second)
	}

	if err := sess.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	checkTranscript(t, rec, ws)
}

// loopListTools is the loop's steps 1 and 2: the verbs, every one
// writable, and the tools of the server under test.
func loopListTools(t *testing.T, s *loopSession, target []string) {
	t.Helper()
	// 1. The verbs, and the write gate.
	verbs, err := s.sess.ListTools(s.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range verbs.Tools {
		if v.Meta["writesEnabled"] != true {
			t.Errorf("%s: _meta %v, want writesEnabled true", v.Name, v.Meta)
		}
	}

	// 2. The server under test's tools.
	var tools struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	s.call("list_tools", map[string]any{"command": target}, &tools)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"echo", "get-sum"} {
		if !slices.Contains(names, want) {
			t.Fatalf("server-everything has no %s tool: %v", want, names)
		}
	}
}

// refineDraft is the loop's step 5: the proposal replaces the generic
// check of get-sum, the resource and prompt tests go, and a check the
// agent wrote by hand joins the list.
func refineDraft(t *testing.T, suite, proposal string) string {
	t.Helper()
	head, scaffolded, tail := splitTests(suite)
	var kept []string
	replaced := false
	for _, tc := range scaffolded {
		m := toolLine.FindStringSubmatch(tc)
		switch {
		case strings.HasPrefix(tc, `  - name: "get-sum: valid arguments"`):
			kept = append(kept, proposal)
			replaced = true
		case m != nil && (m[1] == "echo" || m[1] == "get-sum"):
			kept = append(kept, tc)
		}
	}
	if !replaced || len(kept) < 3 {
		t.Fatalf("the scaffold has no generic get-sum test to replace, or too few tool tests:\n%s", suite)
	}
	return head + strings.Join(kept, "") + guessedEcho + tail
}

// checkTranscript compares the recorded session, normalized, with the
// transcript file (go test -update rewrites it).
func checkTranscript(t *testing.T, rec *transcript, ws string) {
	t.Helper()
	rec.mu.Lock()
	lines, recErr := rec.lines, rec.err
	rec.mu.Unlock()
	if recErr != nil {
		t.Fatal(recErr)
	}
	got, err := normalizeTranscript(lines, ws)
	if err != nil {
		t.Fatal(err)
	}
	if want, err := os.ReadFile(transcriptFile); err == nil && !*update {
		// The lines are long: say first which one differs.
		w, g := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		for i := 0; i < len(w) && i < len(g); i++ {
			if w[i] != g[i] {
				t.Errorf("line %d of %s differs:\n--- got\n%.2000s\n--- want\n%.2000s", i+1, transcriptFile, g[i], w[i])
				break
			}
		}
	}
	golden(t, transcriptFile, got)
}

// The packaged skill and subagent of examples/agent-skill/, checked against
// the binary so they cannot drift from it.
const skillDir = "../../examples/agent-skill"

var skillFiles = []string{"mcptest/SKILL.md", "mcptest-tester.md", "README.md"}

// frontDoorVerbList returns the verbs an in-process front door with writes
// enabled lists in its tools/list.
func frontDoorVerbList(t *testing.T) (verbs []*mcp.Tool) {
	t.Helper()
	ctx := context.Background()
	c := &Command{Getenv: func(string) string { return "" }}
	srv := mcpserver.New(c.mcpOptions(t.TempDir(), "mcptest", true))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "skill-check", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// frontMatter splits a Markdown file into its YAML front matter and body.
func frontMatter(t *testing.T, file, text string) (map[string]any, string) {
	t.Helper()
	rest, ok := strings.CutPrefix(text, "---\n")
	fm, body, ok2 := strings.Cut(rest, "\n---\n")
	if !ok || !ok2 {
		t.Fatalf("%s: no front matter between --- lines", file)
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(fm), &m); err != nil {
		t.Fatalf("%s: front matter: %v", file, err)
	}
	return m, body
}

var (
	skillName  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	codeSpan   = regexp.MustCompile("`([^`\n]+)`")
	snakeWord  = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)+$`)
	camelWord  = regexp.MustCompile(`^[a-z]+[A-Z][A-Za-z]*$`)
	secRule    = regexp.MustCompile(`\bSEC-\d{3}\b`)
	jsonTag    = regexp.MustCompile(`json:"([A-Za-z_]+)`)
	mcpTool    = regexp.MustCompile(`\bmcp__mcptest__([A-Za-z0-9_]+)`)
	verbRow    = regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|")
	flagHelp   = regexp.MustCompile(`(?m)^  --([a-z][a-z0-9-]*)`)
	enumValued = map[string]bool{"reporter": true, "format": true}
)

// TestAgentSkill checks the skill, the subagent and their README against
// the front door and the CLI: every verb named is served, every verb served
// is named, every argument or answer field named exists, and every
// `mcptest ...` command shown parses with the flags it shows.
// skillVocabulary is what the skill's words are checked against: the
// front door's verbs, their arguments and answer fields, and the security
// rules.
type skillVocabulary struct {
	isVerb    map[string]bool
	verbNames []string
	known     map[string]bool // arguments and answer fields
	rules     map[string]bool
}

func TestAgentSkill(t *testing.T) {
	v := newSkillVocabulary(t)
	texts := map[string]string{}
	for _, f := range skillFiles {
		data, err := os.ReadFile(filepath.Join(skillDir, f))
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(data)
	}
	checkSkillFrontMatter(t, texts, v.verbNames)
	ncmd := 0
	for _, f := range skillFiles {
		ncmd += checkSkillText(t, f, texts[f], v)
	}
	if ncmd < 8 {
		t.Errorf("found only %d mcptest commands in %v", ncmd, skillFiles)
	}
}

// newSkillVocabulary reads the verbs of an in-process front door, the
// JSON names of the front door's and the agent reporter's types and of
// the MCP types a verb answers with, and the security rules.
func newSkillVocabulary(t *testing.T) *skillVocabulary {
	v := &skillVocabulary{isVerb: map[string]bool{}, known: map[string]bool{}, rules: map[string]bool{}}
	for _, verb := range frontDoorVerbList(t) {
		v.isVerb[verb.Name] = true
		v.verbNames = append(v.verbNames, verb.Name)
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		b, _ := json.Marshal(verb.InputSchema)
		_ = json.Unmarshal(b, &schema)
		for p := range schema.Properties {
			v.known[p] = true
		}
		for k := range verb.Meta {
			v.known[k] = true
		}
	}
	sort.Strings(v.verbNames)
	sources, _ := filepath.Glob("../../mcpserver/*.go")
	more, _ := filepath.Glob("../../annotate/*.go")
	for _, f := range append(sources, more...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range jsonTag.FindAllStringSubmatch(string(data), -1) {
			v.known[m[1]] = true
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[mcp.Tool](), reflect.TypeFor[mcp.ToolAnnotations](), reflect.TypeFor[mcp.CallToolResult]()} {
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			v.known[name] = true
		}
	}
	for _, r := range security.Rules {
		v.rules[r.ID] = true
	}
	return v
}

// checkSkillFrontMatter checks the skill's and the subagent's front
// matter (names, descriptions, the verbs the subagent is granted) and the
// skill's verb table against the verbs the front door serves.
func checkSkillFrontMatter(t *testing.T, texts map[string]string, verbNames []string) {
	t.Helper()
	// The skill: a Claude Code skill whose name is its directory's.
	skill, skillBody := frontMatter(t, "SKILL.md", texts["mcptest/SKILL.md"])
	if skill["name"] != "mcptest" {
		t.Errorf("SKILL.md: name %v, want mcptest (the directory's name)", skill["name"])
	}
	// The subagent: name, description and the tools it may use.
	agent, _ := frontMatter(t, "mcptest-tester.md", texts["mcptest-tester.md"])
	if agent["name"] != "mcptest-tester" {
		t.Errorf("mcptest-tester.md: name %v, want mcptest-tester (the file's name)", agent["name"])
	}
	for file, fm := range map[string]map[string]any{"SKILL.md": skill, "mcptest-tester.md": agent} {
		name, _ := fm["name"].(string)
		desc, _ := fm["description"].(string)
		if !skillName.MatchString(name) || len(name) > 64 {
			t.Errorf("%s: name %q: want lower-case letters, digits and hyphens, at most 64", file, name)
		}
		if desc == "" || len(desc) > 1024 {
			t.Errorf("%s: description of %d characters: want 1 to 1024", file, len(desc))
		}
	}
	tools, _ := agent["tools"].(string)
	var granted []string
	for _, tool := range strings.Split(tools, ",") {
		tool = strings.TrimSpace(tool)
		if verb, ok := strings.CutPrefix(tool, "mcp__mcptest__"); ok {
			granted = append(granted, verb)
		}
	}
	sort.Strings(granted)
	if !slices.Equal(granted, verbNames) {
		t.Errorf("mcptest-tester.md: tools: grants the verbs %v\nthe front door serves %v", granted, verbNames)
	}
	// The skill's verb table names every verb, once.
	var table []string
	for _, m := range verbRow.FindAllStringSubmatch(skillBody, -1) {
		table = append(table, m[1])
	}
	sort.Strings(table)
	if !slices.Equal(table, verbNames) {
		t.Errorf("SKILL.md: the verb table lists %v\nthe front door serves %v", table, verbNames)
	}
}

// checkSkillText checks the words of one file of the skill (verbs, rules,
// code spans) and runs its mcptest commands; it returns how many.
func checkSkillText(t *testing.T, f, text string, v *skillVocabulary) int {
	t.Helper()
	for _, m := range mcpTool.FindAllStringSubmatch(text, -1) {
		if !v.isVerb[m[1]] {
			t.Errorf("%s: mcp__mcptest__%s: the front door has no verb %q (it has %v)", f, m[1], m[1], v.verbNames)
		}
	}
	for _, m := range secRule.FindAllString(text, -1) {
		if !v.rules[m] {
			t.Errorf("%s: %s is not a rule of mcptest security", f, m)
		}
	}
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		word := strings.TrimPrefix(m[1], "_meta.")
		switch {
		case snakeWord.MatchString(word) && !v.isVerb[word] && !v.known[word]:
			t.Errorf("%s: `%s` is neither a verb, nor an argument of one, nor a field of an answer (verbs: %v)", f, word, v.verbNames)
		case camelWord.MatchString(word) && !v.known[word]:
			t.Errorf("%s: `%s` is no field of a verb's _meta, a tool or a tool result", f, word)
		}
	}
	lines := commandLines(text)
	for _, line := range lines {
		checkCommand(t, f, line)
	}
	return len(lines)
}

// commandLines returns the `mcptest ...` commands of a Markdown text: the
// lines of its code blocks and its code spans that start with one, without
// a trailing # comment.
func commandLines(text string) []string {
	var out []string
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
			if strings.HasPrefix(line, "mcptest ") {
				if i := strings.Index(line, " #"); i >= 0 {
					line = line[:i]
				}
				out = append(out, strings.TrimSpace(line))
			}
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			if strings.HasPrefix(m[1], "mcptest ") {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// checkCommand parses one command line with the CLI: the subcommand must
// exist, every flag must be one `mcptest <subcommand> -h` lists, and a
// --reporter or --format value one its help names.
func checkCommand(t *testing.T, file, line string) {
	t.Helper()
	args := splitArgs(strings.TrimPrefix(line, "mcptest "))
	// The words before the first flag name the subcommand (and its
	// positional arguments); a stdio server's argv follows --.
	var words []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		words = append(words, a)
	}
	if len(words) == 0 {
		t.Errorf("%s: %q: no subcommand", file, line)
		return
	}
	help, _, code := mcptest(t, nil, append(slices.Clone(words), "-h")...)
	if code != ExitOK {
		t.Errorf("%s: %q: mcptest %s -h exits %d:\n%s", file, line, strings.Join(words, " "), code, help)
		return
	}
	flags := map[string]string{} // flag -> its help text
	locs := flagHelp.FindAllStringSubmatchIndex(help, -1)
	for i, loc := range locs {
		end := len(help)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		flags[help[loc[2]:loc[3]]] = help[loc[1]:end]
	}
	for i := len(words); i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		usage, ok := flags[name]
		if !ok {
			t.Errorf("%s: %q: mcptest %s has no flag --%s\n%s", file, line, words[0], name, help)
			continue
		}
		if !enumValued[name] {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(value) + `\b`).MatchString(usage) {
			t.Errorf("%s: %q: --%s %s is not a value mcptest %s lists:%s", file, line, name, value, words[0], usage)
		}
	}
}

// transcriptRow is one row of the line table in the README beside the
// transcript: | line | direction | message | what it shows |.
var transcriptRow = regexp.MustCompile("(?m)^\\| (\\d+) \\| (send|recv) \\| ([^|]+?) \\|")

// TestAgentLoopTranscriptFile checks the checked-in transcript without
// running anything: its shape, that every verb it calls is served, that the
// loop fails and then passes, and that the README's line table describes it
// line by line.
func TestAgentLoopTranscriptFile(t *testing.T) {
	data, err := os.ReadFile(transcriptFile)
	if err != nil {
		t.Fatal(err)
	}
	isVerb := map[string]bool{}
	for _, v := range frontDoorVerbList(t) {
		isVerb[v.Name] = true
	}
	lines, verdicts := readTranscript(t, data, isVerb)
	if !slices.Equal(verdicts, []string{"fail", "pass"}) {
		t.Errorf("run_tool_test verdicts %v, want a failing run, then the passing re-run", verdicts)
	}
	checkTranscriptTable(t, lines)
}

// transcriptMessage is a JSON-RPC message of the transcript.
type transcriptMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int            `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// loopLine is one line of the transcript: its direction, its
// message and the verb a tools/call calls.
type loopLine struct {
	dir  string
	msg  transcriptMessage
	verb string
}

// readTranscript reads the transcript line by line, checking each, and
// returns its lines and the verdicts of its run_tool_test calls.
func readTranscript(t *testing.T, data []byte, isVerb map[string]bool) (lines []loopLine, verdicts []string) {
	t.Helper()
	lastID := 0
	for i, text := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		n := i + 1
		var l struct {
			Direction string          `json:"direction"`
			Message   json.RawMessage `json:"message"`
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("line %d: not {direction, message}: %v", n, err)
		}
		var m transcriptMessage
		if err := json.Unmarshal(l.Message, &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("line %d: not a JSON-RPC 2.0 message: %v", n, err)
		}
		cur := loopLine{dir: l.Direction, msg: m}
		switch l.Direction {
		case "send":
			if m.ID != nil {
				lastID = *m.ID
			}
			cur.verb = sentVerb(t, n, m, isVerb)
		case "recv":
			verdict := recvVerdict(t, n, m, lastID, l.Message)
			if lines[len(lines)-1].verb == "run_tool_test" {
				verdicts = append(verdicts, verdict)
			}
		default:
			t.Errorf("line %d: direction %q, want send or recv", n, l.Direction)
		}
		lines = append(lines, cur)
	}
	return lines, verdicts
}

// sentVerb is the verb a sent tools/call calls, which the front door must
// serve; "" for another message.
func sentVerb(t *testing.T, n int, m transcriptMessage, isVerb map[string]bool) string {
	t.Helper()
	if m.Method != "tools/call" {
		return ""
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if !isVerb[p.Name] {
		t.Errorf("line %d calls %q, which the front door does not serve", n, p.Name)
	}
	return p.Name
}

// recvVerdict checks a received result (of the last request, its tools
// all writable) and returns the verdict it carries, if any.
func recvVerdict(t *testing.T, n int, m transcriptMessage, lastID int, raw json.RawMessage) string {
	t.Helper()
	if m.Result == nil || m.ID == nil || *m.ID != lastID {
		t.Errorf("line %d: want the result of request %d, got %s", n, lastID, raw)
	}
	var r struct {
		Tools []struct {
			Name string         `json:"name"`
			Meta map[string]any `json:"_meta"`
		} `json:"tools"`
		StructuredContent struct {
			Verdict string `json:"verdict"`
		} `json:"structuredContent"`
	}
	_ = json.Unmarshal(m.Result, &r)
	for _, tool := range r.Tools {
		if tool.Meta["writesEnabled"] != true {
			t.Errorf("line %d: %s without _meta.writesEnabled true", n, tool.Name)
		}
	}
	return r.StructuredContent.Verdict
}

// checkTranscriptTable checks that the README's line table beside the
// transcript describes it line by line.
func checkTranscriptTable(t *testing.T, lines []loopLine) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(filepath.Dir(transcriptFile), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := transcriptRow.FindAllStringSubmatch(string(readme), -1)
	if len(rows) != len(lines) {
		t.Errorf("the README's table has %d rows, the transcript %d lines", len(rows), len(lines))
	}
	for _, row := range rows {
		n, _ := strconv.Atoi(row[1])
		if n < 1 || n > len(lines) {
			t.Errorf("README row %d: the transcript has %d lines", n, len(lines))
			continue
		}
		l := lines[n-1]
		what := strings.Trim(row[3], "`")
		got := l.msg.Method
		switch {
		case l.dir == "recv":
			got = "result"
		case l.verb != "":
			got = l.verb
		}
		if l.dir != row[2] || what != got {
			t.Errorf("README row %d says %s %s; line %d is %s %s", n, row[2], what, n, l.dir, got)
		}
	}
}
