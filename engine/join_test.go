package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// proxyJSON is what `mcptest record` writes of two sessions of a sum
// agent: the calls under the server's names, no tokens, model or answer.
const proxyJSON = `{"mcptest_cassette": 1, "agent": "bintest",
 "catalog": {"everything": {"tools": [{"name": "get-sum", "inputSchema": {"type": "object"}}, {"name": "echo", "inputSchema": {"type": "object"}}]}},
 "runs": [
  {"turns": [{"calls": [{"server": "everything", "tool": "get-sum", "arguments": {"a": 2, "b": 3, "request": "r1"}, "duration_ms": 4}]}]},
  {"turns": [{"calls": [{"server": "everything", "tool": "get-sum", "arguments": {"a": 3, "b": 4, "request": "r2"}, "duration_ms": 6},
                        {"server": "everything", "tool": "echo", "arguments": {"message": "7", "request": "r2"}}]}]}
 ]}`

// logJSON is the framework's own log of the same two runs: the names the
// model saw (get_sum), tokens, the model and the answers.
const logJSON = `{"mcptest_cassette": 1, "model": "gpt-test-1", "provider": "openai",
 "runs": [
  {"turns": [{"calls": [{"tool": "get_sum", "arguments": {"a": 2, "b": 3, "request": "r1"}}], "final_response": "The sum is 5."}],
   "tokens": {"input": 100, "output": 20, "total": 120}, "cost_micros": 900},
  {"turns": [{"calls": [{"tool": "get_sum", "arguments": {"a": 3, "b": 4, "request": "r2"}}], "final_response": "The sum is 7."}],
   "tokens": {"input": 300, "output": 40, "total": 340}, "cost_micros": 2100}
 ]}`

// joinedSuite gates tools and tokens of the same runs in one test.
const joinedSuite = `aliases:
  get_sum: get-sum
agents:
  - name: sum agent
    sources:
      - cassette: proxy.json
        use: [calls]
      - cassette: log.json
        use: [tokens, model, answer]
    tool_selection: {expected_tool: get_sum, min_selection_rate: 0.5, max_total_tokens: 300}
    equal_function_sets:
      classes: [{name: sum, members: [get_sum]}]
    tool_edges: {allowed: [get_sum], restricted: [echo]}
    trajectory: {match: superset, steps: [{tool: get_sum}]}
    expect:
      - tool_names[0]: {exact: get_sum}
      - final_response: {regex: "The sum is [57]\\."}
      - model: {exact: gpt-test-1}
`

// One test over a proxy cassette and the framework's log: every gate
// counts the calls recorded as get-sum as calls of get_sum, the token
// figures are the log's, joined by order, and the evidence says what each
// call was recorded as.
func TestJoinByOrder(t *testing.T) {
	s := writeSuite(t, joinedSuite, map[string]string{"proxy.json": proxyJSON, "log.json": logJSON})
	env := run(t, s, Options{})
	c := env.Cases[0]
	want := map[string]float64{
		"tool_selection.selection_rate": 100, "tool_selection.pass_k": 50,
		"tool_selection.tokens_median": 230, "tool_selection.tokens_max": 340,
		"tool_selection.f1": 80, "tool_selection.precision": 67, "tool_selection.recall": 100,
		"edges.allowed_pct": 100, "edges.restricted_attempts": 1, "edges.gate_passed": 0,
		"trajectory.match_pct": 100,
	}
	for k, v := range want {
		if got, ok := c.Targets[k]; !ok || got != v {
			t.Errorf("%s = %v (%v), want %v", k, got, ok, v)
		}
	}
	if c.Runs != 2 || c.Model != "gpt-test-1" || c.Cassettes.Files != 2 {
		t.Errorf("runs %d, model %q, cassettes %+v; want 2 runs of gpt-test-1 over 2 files", c.Runs, c.Model, c.Cassettes)
	}
	for _, a := range c.Assertions {
		if a.Block == "" && !a.Passed {
			t.Errorf("assertion %s failed on the joined runs: %s", a.Target, a.Message)
		}
	}
	checkJoinedEvidence(t, c)
	if env.Verdict != report.Fail {
		t.Errorf("verdict %s, want fail (echo is restricted, run 2 is over 300 tokens)", env.Verdict)
	}
	for _, tool := range c.Tools {
		if tool.Tool == "get-sum" {
			t.Errorf("the case's tools keep the recorded name: %+v", c.Tools)
		}
	}
}

// checkJoinedEvidence checks run 2 of TestJoinByOrder: the log's tokens,
// cost, model and answer, the proxy's calls under the suite's names.
func checkJoinedEvidence(t *testing.T, c *report.CaseResult) {
	t.Helper()
	// The envelope carries the evidence of the run that failed (run 2)
	// only: a passing run's is read again from the recordings.
	if len(c.Evidence) != 1 || c.Evidence[0].Run != 2 {
		t.Fatalf("evidence of %d runs, want run 2's alone", len(c.Evidence))
	}
	if c.Cassettes == nil || c.Cassettes.Paths != nil {
		t.Errorf("a joined case lists its recordings %+v: they are read again only as the join reads them, so by digest only", c.Cassettes)
	}
	ev := c.Evidence[0]
	calls := ev.Turns[0].Calls
	if ev.Model != "gpt-test-1" || ev.Tokens == nil || ev.Tokens.Total != 340 || *ev.CostMicros != 2100 || ev.Turns[0].FinalResponse != "The sum is 7." {
		t.Errorf("run 2's evidence: %+v", ev)
	}
	if len(calls) != 2 || calls[0].Tool != "get_sum" || calls[0].RecordedAs != "get-sum" || calls[0].Server != "everything" || calls[1].Tool != "echo" || calls[1].RecordedAs != "" ||
		!slices.Equal(calls[1].Marks, []string{report.MarkUnexpected, report.MarkRestricted}) {
		t.Errorf("run 2's calls: %+v", calls)
	}
}

// A name given as an alias is the suite's name with a single cassette:
// too, in the catalog the unknown-tool check reads as well.
func TestAliasesOnOneCassette(t *testing.T) {
	s := writeSuite(t, `agents:
  - name: proxy alone
    cassette: proxy.json
    aliases: {get_sum: [get-sum, add]}
    tool_edges: {allowed: [get_sum, echo]}
    expect:
      - tool_names: {exact: [get_sum, echo]}
`, map[string]string{"proxy.json": proxyJSON})
	c := run(t, s, Options{}).Cases[0]
	if c.Verdict != report.Fail || c.Targets["edges.allowed_pct"] != 100 {
		t.Fatalf("verdict %s, allowed %v; want run 1 to fail tool_names and every allowed edge exercised", c.Verdict, c.Targets["edges.allowed_pct"])
	}
	if a := c.Assertions[len(c.Assertions)-1]; !strings.Contains(a.Message, "failed in run 1 of 2: got [\"get_sum\"]") {
		t.Errorf("tool_names: %s", a.Message)
	}
	for _, f := range c.Findings {
		if strings.Contains(f.Message, "get_sum") {
			t.Errorf("the catalog's get-sum is not get_sum: %s", f.Message)
		}
	}
}

// keyedLog is logJSON's runs in the other order, one more run, and each
// run's request id in its first call's arguments.
const keyedLog = `{"mcptest_cassette": 1, "model": "gpt-test-1",
 "runs": [
  {"turns": [{"calls": [{"tool": "get_sum", "arguments": {"request": "r2"}}], "final_response": "The sum is 7."}], "tokens": {"input": 300, "output": 40, "total": 340}},
  {"turns": [{"calls": [{"tool": "get_sum", "arguments": {"request": "r1"}}], "final_response": "The sum is 5."}], "tokens": {"input": 100, "output": 20, "total": 120}}
 ]}`

func keyedSuite(logKey string) string {
	return `agents:
  - name: by request
    sources:
      - {cassette: proxy.json, use: [calls], key: "calls[0].arguments.request"}
      - {cassette: log.json, use: [tokens, answer], key: "` + logKey + `"}
    expect:
      - tokens.total: {"<=": 100}
`
}

// Joined by key, run 1 of the proxy takes run 2 of the log, whatever the
// order the log holds them in (both runs fail tokens.total, so the
// envelope carries the evidence of both).
func TestJoinByKey(t *testing.T) {
	s := writeSuite(t, keyedSuite("calls[0].arguments.request"), map[string]string{"proxy.json": proxyJSON, "log.json": keyedLog})
	c := run(t, s, Options{}).Cases[0]
	var totals []int64
	var answers []string
	for _, ev := range c.Evidence {
		totals = append(totals, ev.Tokens.Total)
		answers = append(answers, ev.Turns[0].FinalResponse)
	}
	if !slices.Equal(totals, []int64{120, 340}) || !slices.Equal(answers, []string{"The sum is 5.", "The sum is 7."}) {
		t.Errorf("joined by key: tokens %v, answers %q; want [120 340] and the sums 5 then 7", totals, answers)
	}
}

// A join that cannot match every run is an error at the suite's
// sources: or key:, naming both recordings and their runs, never a
// partial join.
func TestJoinMismatchIsAnError(t *testing.T) {
	oneRun := `{"mcptest_cassette": 1, "runs": [{"turns": [{"final_response": "5"}], "tokens": {"input": 1, "output": 1, "total": 2}}]}`
	threeKeys := strings.Replace(keyedLog, `"runs": [`, `"runs": [{"turns": [{"calls": [{"tool": "get_sum", "arguments": {"request": "r9"}}]}]},`, 1)
	for _, tc := range []struct {
		name, suite, log string
		want             []string
	}{
		{"order: a run too few", joinedSuite, oneRun, []string{
			`suite.yml:5:5: sources of test "sum agent": runs are joined by order, and proxy.json (calls) holds 2 runs while log.json (tokens, model, answer) holds 1 run: record the same runs in both, or join them by ` + "`key:`"}},
		{"key: a run of the log the proxy lacks", keyedSuite("calls[0].arguments.request"), threeKeys, []string{
			`suite.yml:5:58: run 1 of log.json has the key "r9", which none of the 2 runs of proxy.json has (1 of its 3 runs unmatched)`}},
		{"key: absent in the log", keyedSuite("calls[0].arguments.id"), keyedLog, []string{
			"suite.yml:5:58: run 1 of log.json has no value at its key `calls[0].arguments.id`: every run of a source joined by key needs one",
			"suite.yml:5:58: run 2 of log.json has no value at its key `calls[0].arguments.id`: every run of a source joined by key needs one"}},
		{"key: a key twice", keyedSuite("model"), keyedLog, []string{
			`suite.yml:5:58: runs 1 and 2 of log.json both have the key "gpt-test-1": a key names one run`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range runErrors(t, writeSuiteFile(t, tc.suite, map[string]string{"proxy.json": proxyJSON, "log.json": tc.log})) {
				got = append(got, strings.TrimPrefix(e.Error(), filepath.Dir(e.Pos.File)+"/"))
			}
			for i := range got {
				if _, after, ok := strings.Cut(got[i], "suite.yml:"); ok {
					got[i] = "suite.yml:" + strings.TrimSuffix(after, " [suite]")
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// The suite's problems with sources: and aliases: are found when it is
// loaded, each at its position.
func TestSourcesAndAliasesAreChecked(t *testing.T) {
	files := map[string]string{"proxy.json": proxyJSON, "log.json": logJSON}
	for _, tc := range []struct{ name, suite, want string }{
		{"cassette and sources", `agents:
  - name: a
    cassette: proxy.json
    sources: [{cassette: log.json, use: [calls]}]
`, "suite.yml:4:5: test \"a\" names its recordings twice: `cassette:` reads one recording, `sources:` joins several; keep one of them"},
		{"no calls", `agents:
  - name: a
    sources: [{cassette: log.json, use: [tokens]}]
`, "suite.yml:3:5: no source of test \"a\" gives `calls`: exactly one source says `use: [calls]`, the recording whose calls the gates read"},
		{"tokens twice", `agents:
  - name: a
    sources:
      - {cassette: proxy.json, use: [calls, tokens]}
      - {cassette: log.json, use: [answer, tokens]}
`, "suite.yml:5:44: `tokens` comes from one source, and sources 1 and 2 both give it: drop it from one `use:`"},
		{"one key", `agents:
  - name: a
    sources:
      - {cassette: proxy.json, use: [calls]}
      - {cassette: log.json, use: [tokens], key: run}
`, "suite.yml:4:9: source 1 has no `key:` and source 2 has one: runs are joined by key when every source names one, else by order"},
		{"key not a run field", `agents:
  - name: a
    sources:
      - {cassette: proxy.json, use: [calls], key: tool_selection.f1}
      - {cassette: log.json, use: [tokens], key: run}
`, "suite.yml:4:51: key `tool_selection.f1` is not a field of a run: expected one of agent, calls, cost_micros, delegations, final_response, model, run, tokens, tool_names, turns, such as `calls[0].arguments.request_id`"},
		{"missing source", `agents:
  - name: a
    sources: [{cassette: proxy.json, use: [calls]}, {cassette: nope.json, use: [tokens]}]
`, "suite.yml:3:64: cassette \"nope.json\" not found"},
		{"unknown use", `agents:
  - name: a
    sources: [{cassette: proxy.json, use: [calls, cost]}]
`, "suite.yml:3:51: agents[0].sources[0].use[1]: the string \"cost\" is not allowed here: value must be one of \"calls\", \"tokens\", \"model\", \"answer\""},
		{"alias of itself", `aliases: {get_sum: get_sum}
agents: [{name: a, cassette: proxy.json}]
`, "suite.yml:1:20: `get_sum` is given as another name of itself"},
		{"alias of two tools", `agents:
  - name: a
    cassette: proxy.json
    aliases: {add: get-sum, get_sum: [sum, get-sum]}
`, "suite.yml:4:44: `get-sum` is given as another name of both `add` and `get_sum`: a name is one tool"},
		{"alias chain over the suite's", `aliases: {get_sum: get-sum}
agents:
  - name: a
    cassette: proxy.json
    aliases: {sum: get_sum}
`, "suite.yml:5:20: `get_sum` is given as another name of `sum`, and is itself the tool `get-sum` is another name of: map every spelling to the one name the suite writes"},
		{"alias misspelt", `agents:
  - name: a
    cassette: proxy.json
    alias: {get_sum: get-sum}
`, "did you mean `aliases`?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadSuite(t, tc.suite, files)
			if err == nil {
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant it to hold\n%s", err, tc.want)
			}
		})
	}
}

// The cache key covers every source: a change to the log alone (the
// source that is not streamed) recomputes the case with the log's new
// figures, and so does a change to the suite's aliases.
func TestJoinCacheCoversEverySource(t *testing.T) {
	path := writeSuiteFile(t, joinedSuite, map[string]string{"proxy.json": proxyJSON, "log.json": logJSON})
	cache := DirCache{Dir: t.TempDir()}
	load := func() *Suite {
		s, err := LoadSuite(path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := run(t, load(), Options{Cache: cache, Version: "test"})
	if again := run(t, load(), Options{Cache: cache, Version: "test"}); again.Run.Cached != 1 {
		t.Fatalf("an unchanged joined case: cached %d, want 1", again.Run.Cached)
	}
	log := filepath.Join(filepath.Dir(path), "log.json")
	writeFile(t, log, strings.Replace(logJSON, `"total": 340`, `"total": 260`, 1))
	changed := run(t, load(), Options{Cache: cache, Version: "test"})
	if changed.Run.Cached != 0 || changed.Cases[0].Targets["tool_selection.tokens_max"] != 260 || first.Cases[0].Cassettes.SHA256 == changed.Cases[0].Cassettes.SHA256 {
		t.Errorf("after the log changed: cached %d, tokens_max %v, cassette digest changed %v; want recomputed at 260",
			changed.Run.Cached, changed.Cases[0].Targets["tool_selection.tokens_max"], first.Cases[0].Cassettes.SHA256 != changed.Cases[0].Cassettes.SHA256)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(joinedSuite, "get_sum: get-sum", "get_sum: [get-sum, sum]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if aliased := run(t, load(), Options{Cache: cache, Version: "test"}); aliased.Run.Cached != 0 {
		t.Errorf("after the suite's aliases changed: cached %d, want 0", aliased.Run.Cached)
	}
}

// The unknown-tool warning of a name that differs from the recorded one
// only in '-' against '_' says how aliases: makes them one tool.
func TestAliasHint(t *testing.T) {
	for _, tc := range []struct{ written, recorded, want string }{
		{"get_sum", "get-sum", " If the recordings name it both ways, `aliases: {get_sum: get-sum}` makes them one tool"},
		{"everything.get_sum", "everything.get-sum", " If the recordings name it both ways, `aliases: {get_sum: get-sum}` makes them one tool"},
		{"get_sums", "get-sum", ""},
		{"get_sum", "get_sum", ""},
	} {
		if got := aliasHint(tc.written, tc.recorded); got != tc.want {
			t.Errorf("aliasHint(%q, %q) = %q, want %q", tc.written, tc.recorded, got, tc.want)
		}
	}
	s := writeSuite(t, "agents:\n  - name: a\n    cassette: proxy.json\n    tool_edges: {allowed: [get_sum]}\n", map[string]string{"proxy.json": proxyJSON})
	want := "tool_edges allowed: `get_sum` is no tool of the recorded catalog (did you mean `get-sum`? If the recordings name it both ways, `aliases: {get_sum: get-sum}` makes them one tool): it can never match a call"
	if c := run(t, s, Options{}).Cases[0]; !slices.ContainsFunc(c.Findings, func(f report.Finding) bool { return f.Message == want }) {
		t.Errorf("findings %+v, want %q", c.Findings, want)
	}
}

// validate reads a suite's recordings and finds a join by order whose
// sources hold different run counts, with the error the run would stop
// at; a join by key is left to the run.
func TestValidateFindsJoinCounts(t *testing.T) {
	oneRun := `{"mcptest_cassette": 1, "runs": [{"turns": [{"final_response": "5"}]}]}`
	path := writeSuiteFile(t, joinedSuite, map[string]string{"proxy.json": proxyJSON, "log.json": oneRun})
	l, recs, err := ValidateFileRead(path)
	if err != nil || len(recs) != 2 || len(l) != 1 {
		t.Fatalf("validate: %v, %d recordings, errors %v", err, len(recs), l)
	}
	want := `sources of test "sum agent": runs are joined by order, and proxy.json (calls) holds 2 runs while log.json (tokens, model, answer) holds 1 run: record the same runs in both, or join them by ` + "`key:`"
	if l[0].Pos.Line != 5 || l[0].Pos.Col != 5 || l[0].Message != want || l[0].Source == nil {
		t.Errorf("error %d:%d %q (source attached: %v), want 5:5 %q", l[0].Pos.Line, l[0].Pos.Col, l[0].Message, l[0].Source != nil, want)
	}
	// validate lets the suite's text go while it reads the recordings,
	// and reads it again for the line under the error.
	if text, err := os.ReadFile(path); err != nil || !bytes.Equal(l[0].Source, text) {
		t.Errorf("the error's source is not the suite's text (%v)", err)
	}
	keyed := writeSuiteFile(t, keyedSuite("calls[0].arguments.request"), map[string]string{"proxy.json": proxyJSON, "log.json": oneRun})
	if l, _, err := ValidateFileRead(keyed); err != nil || len(l) != 0 {
		t.Errorf("a join by key: %v %v, want no error before the run", l, err)
	}
	if l, _, err := ValidateFileRead(writeSuiteFile(t, joinedSuite, map[string]string{"proxy.json": proxyJSON, "log.json": logJSON})); err != nil || len(l) != 0 {
		t.Errorf("matching sources: %v %v", l, err)
	}
}

// A gate that names a tool by another name of it warns: the calls recorded
// under that name are read as the tool, so the entry can never match (a
// restricted: entry is refused instead: TestRestrictedAliasRefused).
func TestGateNamingAnAliasWarns(t *testing.T) {
	s := writeSuite(t, `aliases: {get_sum: get-sum}
agents:
  - name: a
    cassette: proxy.json
    tool_edges: {allowed: [everything.get-sum]}
`, map[string]string{"proxy.json": proxyJSON})
	c := run(t, s, Options{}).Cases[0]
	var got []string
	for _, f := range c.Findings {
		if strings.Contains(f.Message, "get-sum") {
			got = append(got, f.Message)
		}
	}
	want := []string{"allowed edges never exercised: `everything.get-sum`", "tool_edges allowed: `everything.get-sum` is another name of `everything.get_sum` (aliases:), and calls recorded as `everything.get-sum` are read as `everything.get_sum`: write `everything.get_sum`, or it can never match a call"}
	if !slices.Equal(got, want) || c.Targets["edges.restricted_attempts"] != 0 {
		t.Errorf("findings naming get-sum %q, restricted attempts %v; want %q and 0", got, c.Targets["edges.restricted_attempts"], want)
	}
}

// TestRestrictedAliasRefused: an alias can never move a call out of
// restricted:. A restricted entry that aliases: makes another name of a
// tool is an error at the entry, whichever way the alias is written
// (suite or test, one name or a list) and the entry names the tool (bare
// or server.tool).
func TestRestrictedAliasRefused(t *testing.T) {
	for _, c := range []struct{ suiteAliases, caseAliases, restricted string }{
		{"aliases: {get_sum: echo}\n", "", "echo"},
		{"aliases: {get_sum: [other, echo]}\n", "", "everything.echo"},
		{"", "    aliases: {get_sum: echo}\n", "echo"},
		{"aliases: {x: y}\n", "    aliases: {get_sum: [echo]}\n", "everything.echo"},
	} {
		head := c.suiteAliases + "agents:\n  - name: a\n    cassette: proxy.json\n" + c.caseAliases
		edges := "    tool_edges: {restricted: [get-sum, " + c.restricted + "]}\n"
		path := writeSuiteFile(t, head+edges, map[string]string{"proxy.json": proxyJSON})
		_, err := LoadSuite(path)
		at := fmt.Sprintf("suite.yml:%d:%d: ", strings.Count(head, "\n")+1, strings.Index(edges, c.restricted+"]")+1)
		if err == nil || !strings.Contains(err.Error(), at+"`"+c.restricted+"` is restricted, and aliases: makes it another name of") {
			t.Errorf("%q %q restricted %s: err %v; want the entry refused at its line", c.suiteAliases, c.caseAliases, c.restricted, err)
		}
	}
}
