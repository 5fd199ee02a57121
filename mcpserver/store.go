package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/report"
)

// maxArtifact bounds every file the readers open.
const maxArtifact = 64 << 20

// storedRun is one envelope found under .mcptest/runs.
type storedRun struct {
	path string
	env  *report.Envelope
}

// runs reads every run envelope under .mcptest/runs (any depth), newest
// first by start time, then by id. A file that is not an envelope (not
// JSON, no schema_version or run id, or failing Envelope.Check) is passed over.
func (s *server) runs() []storedRun {
	var out []storedRun
	st, err := s.openStore(false)
	if err != nil {
		return nil
	}
	defer st.Close()
	_ = fs.WalkDir(st.FS(), "runs", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return nil
		}
		// Bounded and inside the store: a FIFO, a device or a link leading
		// out is passed over, never waited on.
		data, err := safefile.ReadFileIn(st, p, maxArtifact)
		if err != nil {
			return nil
		}
		var env report.Envelope
		if report.CheckBudget("the envelope", data) != nil || json.Unmarshal(data, &env) != nil || env.SchemaVersion == 0 || env.Run.ID == "" || env.Check() != nil {
			return nil
		}
		out = append(out, storedRun{s.store(filepath.FromSlash(p)), &env})
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].env.Run, out[j].env.Run
		if a.StartedAt != b.StartedAt {
			return a.StartedAt > b.StartedAt
		}
		return a.ID > b.ID
	})
	return out
}

type runSummary struct {
	RunID      string         `json:"run_id"`
	Verdict    report.Verdict `json:"verdict"`
	Totals     report.Totals  `json:"totals"`
	Suite      string         `json:"suite"`
	Mode       string         `json:"mode"`
	StartedAt  string         `json:"started_at"`
	DurationMS int64          `json:"duration_ms"`
	Path       string         `json:"path"`
}

type listRunsIn struct {
	Limit int `json:"limit,omitempty" jsonschema:"at most this many runs (default 20)"`
}

func (s *server) listRuns(ctx context.Context, in listRunsIn) (any, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	runs := s.runs()
	out := struct {
		Runs  []runSummary `json:"runs"`
		Total int          `json:"total"`
	}{Runs: []runSummary{}, Total: len(runs)}
	for _, r := range runs {
		if len(out.Runs) == limit {
			break
		}
		out.Runs = append(out.Runs, runSummary{r.env.Run.ID, r.env.Verdict, r.env.Totals, r.env.Suite.Path, r.env.Run.Mode, r.env.Run.StartedAt, r.env.Run.DurationMS, s.rel(r.path)})
	}
	return out, nil
}

type runIn struct {
	RunID string `json:"run_id" jsonschema:"the run's id, as list_runs gives it"`
}

// findRun returns the stored run with the id, or the latest when id is "".
func (s *server) findRun(id string) (*report.Envelope, error) {
	runs := s.runs()
	if id == "" {
		if len(runs) == 0 {
			return nil, errors.New("no runs in .mcptest/runs yet: run `mcptest run` (or trigger_run, run_tool_test) first")
		}
		return runs[0].env, nil
	}
	var ids []string
	for _, r := range runs {
		if r.env.Run.ID == id {
			return r.env, nil
		}
		ids = append(ids, r.env.Run.ID)
	}
	if len(ids) > 5 {
		ids = ids[:5]
	}
	return nil, fmt.Errorf("no run %q in .mcptest/runs (latest: %s)", id, strings.Join(ids, ", "))
}

func (s *server) getRun(ctx context.Context, in runIn) (any, error) {
	if in.RunID == "" {
		return nil, errors.New("run_id is required (list_runs gives the ids)")
	}
	return s.findRun(in.RunID)
}

type coverageIn struct {
	RunID string `json:"run_id,omitempty" jsonschema:"a run id; default the latest run"`
}

func (s *server) getCoverage(ctx context.Context, in coverageIn) (any, error) {
	env, err := s.findRun(in.RunID)
	if err != nil {
		return nil, err
	}
	type kindCount struct {
		Kind         report.Kind `json:"kind"`
		Total        int         `json:"total"`
		Passed       int         `json:"passed"`
		Failed       int         `json:"failed"`
		Inconclusive int         `json:"inconclusive"`
	}
	out := struct {
		RunID   string         `json:"run_id"`
		Verdict report.Verdict `json:"verdict"`
		Totals  report.Totals  `json:"totals"`
		Kinds   []kindCount    `json:"kinds"`
		report.ToolCoverage
		Edges map[string]any `json:"edges,omitempty"`
	}{RunID: env.Run.ID, Verdict: env.Verdict, Totals: env.Totals, Kinds: []kindCount{}, ToolCoverage: env.ToolCoverage()}
	idx := map[report.Kind]int{}
	for _, c := range env.Cases {
		i, ok := idx[c.Kind]
		if !ok {
			i = len(out.Kinds)
			idx[c.Kind] = i
			out.Kinds = append(out.Kinds, kindCount{Kind: c.Kind})
		}
		k := &out.Kinds[i]
		k.Total++
		switch c.Verdict {
		case report.Pass:
			k.Passed++
		case report.Fail:
			k.Failed++
		default:
			k.Inconclusive++
		}
		for name, v := range c.Targets {
			if strings.HasPrefix(name, "edges.") {
				if out.Edges == nil {
					out.Edges = map[string]any{}
				}
				out.Edges[c.Name+": "+name] = v
			}
		}
	}
	return out, nil
}

type cassetteSummary struct {
	Name  string `json:"name"`
	Runs  int    `json:"runs"`
	Agent string `json:"agent,omitempty"`
	Model string `json:"model,omitempty"`
	Bytes int64  `json:"bytes"`
}

// skipDir are directories the cassette walk never enters.
var skipDir = map[string]bool{".git": true, "node_modules": true, "vendor": true}

func (s *server) listCassettes(ctx context.Context, in struct{}) (any, error) {
	out := struct {
		Cassettes []cassetteSummary `json:"cassettes"`
		Notes     []string          `json:"notes"`
	}{Cassettes: []cassetteSummary{}, Notes: []string{}}
	const maxFiles = 5000
	seen := 0
	root, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	_ = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != "." && (skipDir[d.Name()] || d.Name() == "runs" && path.Base(path.Dir(p)) == ".mcptest") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".json") {
			return nil
		}
		if seen++; seen > maxFiles {
			out.Notes = append(out.Notes, fmt.Sprintf("stopped after %d JSON files", maxFiles))
			return fs.SkipAll
		}
		// Bounded and inside the workspace: a FIFO, a device or a link
		// leading out is passed over, never waited on.
		data, err := safefile.ReadFileIn(root, p, maxArtifact)
		if err != nil || !bytes.Contains(data, []byte(`"mcptest_cassette"`)) {
			return nil
		}
		c, err := cassette.Read(p, data)
		if err != nil {
			return nil
		}
		out.Cassettes = append(out.Cassettes, cassetteSummary{Name: p, Runs: len(c.Runs), Agent: c.Agent, Model: c.Model, Bytes: int64(len(data))})
		return nil
	})
	return out, nil
}

type cassetteIn struct {
	Name string `json:"name" jsonschema:"the cassette's path from the workspace root, as list_cassettes gives it"`
}

func (s *server) getCassette(ctx context.Context, in cassetteIn) (any, error) {
	root, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	rel, err := s.inside(root, in.Name)
	if err != nil {
		return nil, err
	}
	data, err := safefile.ReadFileIn(root, rel, maxArtifact)
	switch {
	case isNotExist(err):
		return nil, fmt.Errorf("no cassette %q in the workspace (list_cassettes names them)", in.Name)
	case isEscape(err):
		return nil, outside(in.Name)
	case err != nil:
		return nil, fmt.Errorf("cassette %s", renamed(err, in.Name))
	}
	if _, err := cassette.Read(filepath.Join(s.opt.Root, rel), data); err != nil {
		return nil, fmt.Errorf("%s is not a valid cassette: %s", in.Name, oneLine(err.Error()))
	}
	return json.RawMessage(data), nil
}

// store returns a path in the workspace store: .mcptest/ under the root, or
// the directory MCPTEST_DIR names (as mcptest run writes it).
func (s *server) store(elem ...string) string {
	dir := s.opt.Getenv(StoreEnv)
	if dir == "" {
		dir = filepath.Join(s.opt.Root, ".mcptest")
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(s.opt.Root, dir)
	}
	return filepath.Join(append([]string{dir}, elem...)...)
}

// openStore opens the workspace store as an os.Root: .mcptest/ reached
// through the workspace's root (so .mcptest cannot lead outside it), or the
// directory MCPTEST_DIR names, the operator's choice. create makes the
// store when it is missing.
func (s *server) openStore(create bool) (*os.Root, error) {
	if s.opt.Getenv(StoreEnv) != "" {
		if create {
			if err := os.MkdirAll(s.store(), 0o755); err != nil {
				return nil, err
			}
		}
		return os.OpenRoot(s.store())
	}
	root, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if create {
		if err := root.MkdirAll(".mcptest", 0o755); err != nil {
			return nil, storeErr(err)
		}
	}
	st, err := root.OpenRoot(".mcptest")
	return st, storeErr(err)
}

func storeErr(err error) error {
	if isEscape(err) {
		return outside(".mcptest")
	}
	return err
}

// renamed names a refused file (too large, not regular) by name, the name
// the agent gave, rather than by its path inside a root.
func renamed(err error, name string) error {
	var tl *safefile.TooLargeError
	var nr *safefile.NotRegularError
	switch {
	case errors.As(err, &tl):
		c := *tl
		c.Path = name
		return &c
	case errors.As(err, &nr):
		c := *nr
		c.Path = name
		return &c
	}
	return err
}

func (s *server) rel(p string) string {
	if r, err := filepath.Rel(s.opt.Root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

type doctorIn struct {
	Target
}

func (s *server) getDoctorReport(ctx context.Context, in doctorIn) (any, error) {
	if !in.given() {
		data, err := s.readStore("doctor.json")
		switch {
		case isNotExist(err):
			return nil, errors.New("no saved report at .mcptest/doctor.json: give a target (url, or command) to diagnose, or save one with `mcptest doctor --format json TARGET > .mcptest/doctor.json`")
		case err != nil:
			return nil, err
		}
		if !json.Valid(data) {
			return nil, errors.New(".mcptest/doctor.json is not JSON")
		}
		return json.RawMessage(data), nil
	}
	t, err := s.target(in.Target)
	if err != nil {
		return nil, err
	}
	args := []string{"doctor", "--format", "json"}
	if t.URL != "" {
		args = append(args, "--url", t.URL)
		if t.BearerTokenEnv != "" {
			args = append(args, "--bearer-token-env", t.BearerTokenEnv)
		}
	} else {
		args = append(append(args, "--"), t.Command...)
	}
	stdout, stderr, code, err := s.spawn(ctx, t.Env, args...)
	if err != nil {
		return nil, err
	}
	if !json.Valid(stdout) {
		return nil, fmt.Errorf("mcptest doctor exited %d: %s", code, strings.TrimSpace(string(stderr)))
	}
	return json.RawMessage(stdout), nil
}

// readStore reads one file of the store, bounded and inside it.
func (s *server) readStore(name string) ([]byte, error) {
	st, err := s.openStore(false)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	data, err := safefile.ReadFileIn(st, name, maxArtifact)
	if isEscape(err) {
		return nil, outside(".mcptest/" + name)
	}
	return data, renamed(err, ".mcptest/"+name)
}

// spawn runs the mcptest binary in the workspace root with env merged in.
func (s *server) spawn(ctx context.Context, env map[string]string, args ...string) (stdout, stderr []byte, code int, err error) {
	if s.opt.Exe == "" {
		return nil, nil, 0, errors.New("this front door has no mcptest binary to spawn")
	}
	cmd := exec.CommandContext(ctx, s.opt.Exe, args...)
	cmd.Dir = s.opt.Root
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return o.Bytes(), e.Bytes(), ee.ExitCode(), nil
	}
	if err != nil {
		return nil, nil, 0, fmt.Errorf("start mcptest: %w", err)
	}
	return o.Bytes(), e.Bytes(), 0, nil
}
