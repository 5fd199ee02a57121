package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcptest/mcptest/report"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/internal/safefile"
)

// maxSuite bounds an inline suite's text.
const maxSuite = 1 << 20

type runToolTestIn struct {
	Suite string `json:"suite" jsonschema:"a complete suite YAML: servers plus one or more tests"`
}

type testResult struct {
	Name    string         `json:"name"`
	Verdict report.Verdict `json:"verdict"`
	// DurationMS is the case's duration_ms target, absent when the
	// envelope records none.
	DurationMS *int64 `json:"duration_ms,omitempty"`
}

type runToolTestOut struct {
	Verdict      report.Verdict          `json:"verdict"`
	RunID        string                  `json:"run_id"`
	Suite        string                  `json:"suite"`
	Total        int                     `json:"total"`
	Passed       int                     `json:"passed"`
	Failed       int                     `json:"failed"`
	Inconclusive int                     `json:"inconclusive"`
	Results      []testResult            `json:"results"`
	Failures     []annotate.AgentFailure `json:"failures"`
}

func (s *server) runToolTest(ctx context.Context, in runToolTestIn) (any, error) {
	if strings.TrimSpace(in.Suite) == "" {
		return nil, errors.New("suite is required: the YAML text of a suite with servers: and tests")
	}
	if len(in.Suite) > maxSuite {
		return nil, fmt.Errorf("suite is %d bytes; the limit is %d", len(in.Suite), maxSuite)
	}
	id := s.opt.newRunID()
	rel := ".mcptest/inline/" + id + ".yml"
	// Its paths resolve against the workspace root: none may lead out.
	if err := s.checkSuiteFiles(s.display(rel), []byte(in.Suite)); err != nil {
		return nil, err
	}
	if err := s.writeFile(rel, []byte(in.Suite)); err != nil {
		return nil, err
	}
	// Validated where it lies, so its cassette paths resolve as the run's.
	if doc, err := s.opt.validate(s.display(rel), []byte(in.Suite)); err != nil {
		return nil, err
	} else if !validDoc(doc) {
		s.removeFile(rel)
		b, _ := json.Marshal(doc)
		return nil, fmt.Errorf("the suite is not valid; fix it and call again (validate_suite gives the same errors): %s", b)
	}
	env, err := s.runSuite(ctx, id, rel, nil)
	if err != nil {
		return nil, err
	}
	out := runToolTestOut{
		Verdict: env.Verdict, RunID: id, Suite: rel,
		Total: env.Totals.Total, Passed: env.Totals.Passed, Failed: env.Totals.Failed, Inconclusive: env.Totals.Inconclusive,
		Results:  []testResult{},
		Failures: annotate.AgentFailures(env, annotate.AgentOptions{Repro: func(name string) string { return repro(rel, name) }}),
	}
	if out.Failures == nil {
		out.Failures = []annotate.AgentFailure{}
	}
	slugOf := map[string]string{}
	for i, sl := range caseSlugs(env.Cases) {
		slugOf[env.Cases[i].Name] = sl
	}
	for i := range out.Failures {
		out.Failures[i].Full = outputURI(id, slugOf[out.Failures[i].Test])
	}
	for _, c := range env.Cases {
		r := testResult{Name: c.Name, Verdict: c.Verdict}
		if d, ok := c.Targets["duration_ms"]; ok {
			ms := int64(d)
			r.DurationMS = &ms
		}
		out.Results = append(out.Results, r)
	}
	return out, nil
}

// repro is the one-line command that re-runs one case of the inline suite,
// verbatim from the workspace root.
func repro(suite, name string) string {
	return annotate.Repro(suite, name)
}

func validDoc(doc any) bool {
	b, err := json.Marshal(doc)
	if err != nil {
		return false
	}
	var v struct {
		Valid bool `json:"valid"`
	}
	return json.Unmarshal(b, &v) == nil && v.Valid
}

// runSuite runs `mcptest run SUITE --format json` in the workspace and
// stores the envelope, under the id, in .mcptest/runs/<id>.json.
func (s *server) runSuite(ctx context.Context, id, suite string, filters []string) (*report.Envelope, error) {
	args := []string{"run", "--config", suite, "--format", "json"}
	for _, f := range filters {
		args = append(args, "--filter", f)
	}
	// The spawned run stores its envelope under its own id in a scratch
	// store; the front door stores it under the id it announced.
	scratch, err := os.MkdirTemp("", "mcptest-run")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	stdout, stderr, code, err := s.spawn(ctx, map[string]string{"MCPTEST_DIR": scratch}, args...)
	if err != nil {
		return nil, err
	}
	if code != 0 && code != 1 {
		return nil, fmt.Errorf("mcptest run %s exited %d: %s", suite, code, strings.TrimSpace(string(stderr)))
	}
	var env report.Envelope
	if err := json.Unmarshal(stdout, &env); err != nil {
		return nil, fmt.Errorf("mcptest run %s: read its envelope: %w", suite, err)
	}
	env.Run.ID = id
	data, err := json.MarshalIndent(&env, "", "  ")
	if err != nil {
		return nil, err
	}
	st, err := s.openStore(true)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if err := st.MkdirAll("runs", 0o755); err != nil {
		return nil, storeErr(err)
	}
	if err := safefile.WriteFileIn(st, filepath.Join("runs", id+".json"), append(data, '\n'), 0o644); err != nil {
		return nil, storeErr(err)
	}
	return &env, nil
}

// writeFile writes a workspace file by rename, through the workspace's
// root: neither its directory nor a link on the way may lead out.
func (s *server) writeFile(rel string, data []byte) error {
	root, err := s.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	name := filepath.FromSlash(rel)
	err = root.MkdirAll(filepath.Dir(name), 0o755)
	if err == nil {
		err = safefile.WriteFileIn(root, name, data, 0o644)
	}
	if isEscape(err) {
		return outside(rel)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

// removeFile removes a workspace file the front door wrote.
func (s *server) removeFile(rel string) {
	if root, err := s.openRoot(); err == nil {
		_ = root.Remove(filepath.FromSlash(rel))
		root.Close()
	}
}

type triggerRunIn struct {
	Config string   `json:"config,omitempty" jsonschema:"the suite, relative to the workspace root (default mcptest.yml, else suite.yml)"`
	Filter []string `json:"filter,omitempty" jsonschema:"run only these cases (as mcptest run --filter)"`
}

func (s *server) triggerRun(ctx context.Context, in triggerRunIn) (any, error) {
	root, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	config := in.Config
	if config == "" {
		config = "mcptest.yml"
		if _, err := root.Stat(config); err != nil {
			config = "suite.yml"
		}
	}
	if _, err := s.inside(root, config); err != nil {
		return nil, err
	}
	id := s.opt.newRunID()
	env, err := s.runSuite(ctx, id, config, in.Filter)
	if err != nil {
		return nil, err
	}
	return struct {
		Verdict report.Verdict `json:"verdict"`
		RunID   string         `json:"run_id"`
		Suite   string         `json:"suite"`
		Totals  report.Totals  `json:"totals"`
		Stored  string         `json:"stored"`
	}{env.Verdict, id, config, env.Totals, ".mcptest/runs/" + id + ".json"}, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// slug is a test's name in a resource URI: lower case, runs of other
// characters turned into "-".
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// caseSlugs names each case of a run in a resource URI, uniquely: its
// slug, "test" when the name has no letter or digit of a-z0-9, and a
// "-2", "-3", ... suffix on a slug an earlier case already took.
func caseSlugs(cases []*report.CaseResult) []string {
	out := make([]string, len(cases))
	taken := map[string]bool{}
	for i, c := range cases {
		base := slug(c.Name)
		if base == "" {
			base = "test"
		}
		sl := base
		for n := 2; taken[sl]; n++ {
			sl = fmt.Sprintf("%s-%d", base, n)
		}
		taken[sl] = true
		out[i] = sl
	}
	return out
}

func outputURI(runID, caseSlug string) string {
	return "mcptest://runs/" + runID + "/tests/" + caseSlug + "/output"
}

var outputRE = lazyRegexp(`^mcptest://runs/([0-9A-Za-z_-]+)/tests/([^/]+)/output$`)

// readOutput serves mcptest://runs/{run_id}/tests/{name}/output: the
// complete, redacted record of one case of a stored run.
func (s *server) readOutput(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	m := outputRE().FindStringSubmatch(uri)
	if m == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	env, err := s.findRun(m[1])
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	for i, sl := range caseSlugs(env.Cases) {
		if sl != m[2] {
			continue
		}
		// The whole record: the tools its catalog offered and it did not
		// call (stored once per envelope) listed in its tools at calls 0.
		c := *env.Cases[i]
		c.Tools = env.CaseTools(&c)
		data, err := json.MarshalIndent(&c, "", "  ")
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
	}
	return nil, mcp.ResourceNotFoundError(uri)
}
