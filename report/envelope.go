package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/internal/stats"
)

// SchemaVersion is the version of the run envelope this package writes.
const SchemaVersion = 1

// Envelope is the canonical JSON document of one run. Every reporter renders
// from it, baselines compare two of them and shards merge them; its field
// names are a public contract.
type Envelope struct {
	SchemaVersion int           `json:"schema_version"`
	Tool          ToolInfo      `json:"tool"`
	Run           RunInfo       `json:"run"`
	Source        *Source       `json:"source,omitempty"`
	Suite         SuiteInfo     `json:"suite"`
	Verdict       Verdict       `json:"verdict"`
	Totals        Totals        `json:"totals"`
	Cases         []*CaseResult `json:"cases"`

	// Environment is where the run happened, when the caller records it.
	Environment *Environment `json:"environment,omitempty"`
	// Servers is each server of the suite with its transport and auth
	// posture (never a secret), in name order.
	Servers []ServerInfo `json:"servers,omitempty"`
	// Catalogs are the tool catalogs the cases' recordings offered, each
	// once, in digest order, within MaxCatalogBytes (catalog.go): a case
	// names its own (CaseResult.Catalog).
	Catalogs []Catalog `json:"catalogs,omitempty"`
	// CatalogsFrom is the smallest digest of a catalog left out for the
	// bound: catalogs at or past it are not in the envelope. Absent when
	// none was left out.
	CatalogsFrom string `json:"catalogs_from,omitempty"`
	// Summary is the suite's reliability across its cases (summary.go);
	// absent when no case has reliability figures.
	Summary *Summary `json:"summary,omitempty"`
	// Floors are the suite's floors: on the summary, in suite order.
	Floors []SuiteFloor `json:"floors,omitempty"`
	// Prices names the price table the run's computed costs came from;
	// absent when every cost was recorded (see CaseResult.PricedRuns).
	Prices *PriceTable `json:"prices,omitempty"`
}

// PriceTable identifies the price table a run priced tokens with: its
// source (the embedded copy, or the file given to --prices) and the
// digest of its bytes.
type PriceTable struct {
	Source string `json:"source"`
	SHA256 string `json:"sha256"`
}

// ToolInfo names the program that wrote the envelope.
type ToolInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// RunInfo identifies the run. ID, StartedAt, DurationMS and Cached are the
// only fields that differ between two runs over the same inputs.
type RunInfo struct {
	ID         string `json:"id"`
	Mode       string `json:"mode"`
	StartedAt  string `json:"started_at"`
	DurationMS int64  `json:"duration_ms"`
	// Shard is "i/n" when the run computed one shard of the suite's cases
	// (mcptest run --shard); absent for a whole run and a merged one.
	Shard string `json:"shard,omitempty"`
	// Cached counts the cases served from the result cache
	// (.mcptest/cache/) instead of being recomputed; absent when none was.
	// It says how the run was computed, not what it found, so it is here
	// and not in the totals.
	Cached int `json:"cached,omitempty"`
}

// Source is where the suite came from, when known.
type Source struct {
	Repo   string `json:"repo,omitempty"`
	Branch string `json:"branch,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Dirty is set when the working tree had changes the commit does not
	// hold (a local run, read from git).
	Dirty bool `json:"dirty,omitempty"`
}

// SuiteInfo identifies the suite file.
type SuiteInfo struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Verdict is pass, fail or inconclusive.
type Verdict string

// The verdicts of a run and of a case.
const (
	Pass         Verdict = "pass"
	Fail         Verdict = "fail"
	Inconclusive Verdict = "inconclusive"
)

// Totals counts the cases by verdict.
type Totals struct {
	Total        int `json:"total"`
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	Inconclusive int `json:"inconclusive"`
}

// CaseResult is one case of the envelope.
type CaseResult struct {
	Name     string   `json:"name"`
	Kind     Kind     `json:"kind"`
	Verdict  Verdict  `json:"verdict"`
	Position diag.Pos `json:"position"`
	// DefinitionSHA256 digests the case's definition in the suite.
	DefinitionSHA256 string `json:"definition_sha256"`
	// Runs is the number of recorded runs the case was computed over.
	Runs int `json:"runs"`
	// RunsDeclared is the suite's runs: when it said one.
	RunsDeclared int `json:"runs_declared,omitempty"`
	// Cassettes describes the recordings the case read.
	Cassettes *CassetteSet `json:"cassettes,omitempty"`
	// PricedRuns counts the runs whose cost was computed from the price
	// table (envelope prices) because the recording had tokens and no cost;
	// absent when every cost used was recorded.
	PricedRuns int `json:"priced_runs,omitempty"`
	// UnpricedModels names the models of runs that recorded tokens and no
	// cost which the price table has no entry for: their cost is unknown.
	UnpricedModels []string `json:"unpriced_models,omitempty"`
	Model          string   `json:"model,omitempty"`

	Targets    map[string]float64 `json:"targets"`
	Counts     map[string]int64   `json:"counts"`
	Assertions []AssertionResult  `json:"assertions"`
	Floors     []Floor            `json:"floors"`
	Findings   []Finding          `json:"findings"`

	// Labels holds the targets whose value is a word rather than a number:
	// reliability.class, token_efficiency.grade, a scenario's string
	// state.<path>. Assertions read them as they read Targets.
	Labels map[string]string `json:"labels,omitempty"`

	// ToolSelection is the per-run detail of a tool_selection: floor.
	ToolSelection *ToolSelectionDetail `json:"tool_selection,omitempty"`
	// Distractors says what a distractors: block injected.
	Distractors *DistractorsDetail `json:"distractors,omitempty"`
	// Discovery records a discovery: block.
	Discovery *DiscoveryDetail `json:"discovery,omitempty"`
	// Scenario is a scenario case's replayed world, run by run.
	Scenario *ScenarioDetail `json:"scenario,omitempty"`
	// Reliability is the verdict of each recorded run and what they add up
	// to; present on a case with two runs or more, or with reliability
	// asked for (reliability.go).
	Reliability *ReliabilityDetail `json:"reliability,omitempty"`
	// Tools is the tool coverage of the case, in server then tool order:
	// the tool a live tool test called, or the tools an agent test's or a
	// scenario's recordings called. The tools their catalogs offered with
	// no call are those of the case's catalog (Catalog); an envelope
	// written before catalogs lists them here with calls 0.
	// Envelope.CaseTools gives both as one list.
	Tools []ToolUse `json:"tools,omitempty"`
	// Catalog is the digest of the catalog the case's recordings offered
	// (Envelope.Catalogs); absent when they offered none.
	Catalog string `json:"catalog,omitempty"`
	// Offered is the catalog Catalog names, while the case is on its way
	// from the run to the envelope (the run adds it to the envelope's
	// catalogs); never written with the case.
	Offered *Catalog `json:"-"`
	// Evidence is what recorded runs of an agent test or a scenario did,
	// call by call (evidence.go): at most 10 runs in run order, each text
	// redacted and clipped at 1,000 bytes, at most 24 KiB of text a case
	// (a passing run gets half of it), for the HTML report's timelines.
	// Absent for other kinds.
	Evidence []RunEvidence `json:"evidence,omitempty"`
	// EvidenceOmitted counts the runs past those whose evidence is kept.
	EvidenceOmitted int `json:"evidence_omitted,omitempty"`
}

// CassetteSet identifies the cassette files of a case: how many and a
// digest over their paths and contents, in order. It is the reference a
// case's evidence is read again from (a passing case carries no copy of
// its runs): Paths lists the files relative to the suite's directory,
// with forward slashes, when there are at most MaxCassettePaths of them
// (a case over a directory of more names only their count and digest).
type CassetteSet struct {
	Files  int      `json:"files"`
	SHA256 string   `json:"sha256"`
	Paths  []string `json:"paths,omitempty"`
}

// MaxCassettePaths is the most cassette paths a case's CassetteSet lists.
const MaxCassettePaths = 64

// Equal reports whether two sets name the same files with the same
// digest.
func (s CassetteSet) Equal(o CassetteSet) bool {
	return s.Files == o.Files && s.SHA256 == o.SHA256 && slices.Equal(s.Paths, o.Paths)
}

// AssertionResult is the outcome of one assertion.
type AssertionResult struct {
	Index   int    `json:"index"`
	Block   string `json:"block,omitempty"`
	Target  string `json:"target"`
	Matcher any    `json:"matcher"`
	// Actual is the value the target held (redacted); absent when the
	// target had no value. A value of more than 4 KiB of compact JSON is
	// cut to the part that fits (a map's members in key order), and
	// ActualClipped says so.
	Actual        any    `json:"actual,omitempty"`
	ActualClipped bool   `json:"actual_clipped,omitempty"`
	Passed        bool   `json:"passed"`
	Message       string `json:"message"`
	// Run is the first run that failed an assertion evaluated per run.
	Run int `json:"run,omitempty"`
	// FailedRuns counts the runs that failed a per-run assertion.
	FailedRuns int      `json:"failed_runs,omitempty"`
	Default    bool     `json:"default,omitempty"`
	Position   diag.Pos `json:"position"`
}

// Floor is a multi-run floor's outcome (tool_selection:, certified floors).
type Floor struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Message string `json:"message"`
	// Lines explain a breach: the FLOOR lines naming each failed condition,
	// then the runs that missed.
	Lines []string `json:"lines,omitempty"`
}

// Finding is an observation a reader should know about: a missed class, a
// restricted call, a gate this version does not compute yet.
type Finding struct {
	Level    string    `json:"level"`
	Gate     string    `json:"gate,omitempty"`
	Message  string    `json:"message"`
	Run      int       `json:"run,omitempty"`
	Position *diag.Pos `json:"position,omitempty"`
}

// Check reports what makes a decoded envelope unusable by the reporters,
// naming the first problem by its JSON path: a null case, a tools entry
// with no tool name or negative calls, a verdict, kind or mode outside its
// set (each may be absent), a reliability class outside its set (in
// reliability.class or the reliability.class label), a label name that is
// not one line, or a control character (a line break, an escape, a bidi override)
// in a one-line field. An envelope is untrusted input (a downloaded
// artifact, a file in a pull request), and the reporters print these
// fields as they are, one per line, to terminals, CI logs and agents.
// Case names, messages and values are recorded text, not checked here:
// the reporters escape them.
func (e *Envelope) Check() error {
	if err := e.checkHead(); err != nil {
		return err
	}
	for i, c := range e.Cases {
		if c == nil {
			return fmt.Errorf("cases[%d] is null: every case is an object", i)
		}
		if err := c.Check(fmt.Sprintf("cases[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

// verdicts, modes and kinds are the values an envelope may hold.
var (
	verdicts = []string{string(Pass), string(Fail), string(Inconclusive)}
	modes    = []string{"replay", "live"}
	kinds    = []string{string(KindAgent), string(KindScenario), string(KindToolQuality), string(KindTool),
		string(KindCompliance), string(KindRedteam), string(KindEval)}
	reliabilityClasses = []string{string(stats.StablePass), string(stats.Flaky), string(stats.StableFail)}
)

func (e *Envelope) checkHead() error {
	if err := oneOf("verdict", string(e.Verdict), verdicts); err != nil {
		return err
	}
	if err := oneOf("run.mode", e.Run.Mode, modes); err != nil {
		return err
	}
	fields := []field{{"tool.name", e.Tool.Name}, {"tool.version", e.Tool.Version}, {"run.id", e.Run.ID},
		{"run.started_at", e.Run.StartedAt}, {"run.shard", e.Run.Shard}, {"suite.path", e.Suite.Path}, {"suite.sha256", e.Suite.SHA256}}
	if s := e.Source; s != nil {
		fields = append(fields, field{"source.repo", s.Repo}, field{"source.branch", s.Branch}, field{"source.commit", s.Commit})
	}
	if err := oneLine(fields); err != nil {
		return err
	}
	return e.CheckCatalogs()
}

// CheckCatalogs refuses a catalog whose digest is not its servers', whose
// names are not one line each, or that is given twice (Check checks them).
func (e *Envelope) CheckCatalogs() error {
	for i := range e.Catalogs {
		at := fmt.Sprintf("catalogs[%d]", i)
		if err := e.Catalogs[i].check(at); err != nil {
			return err
		}
		if i > 0 && e.Catalogs[i].SHA256 <= e.Catalogs[i-1].SHA256 {
			return fmt.Errorf("%s.sha256: the catalogs are not in digest order, each once", at)
		}
	}
	return oneLine([]field{{"catalogs_from", e.CatalogsFrom}})
}

// Check reports the first problem of one case, as Envelope.Check does,
// naming it from the JSON path at.
func (c *CaseResult) Check(at string) error {
	if err := oneOfAt(at, ".verdict", string(c.Verdict), verdicts); err != nil {
		return err
	}
	if err := oneOfAt(at, ".kind", string(c.Kind), kinds); err != nil {
		return err
	}
	if err := c.checkReliability(at); err != nil {
		return err
	}
	for j, u := range c.Tools {
		if u.Tool == "" || u.Calls < 0 {
			return fmt.Errorf("%s.tools[%d]: want {server, tool, calls} with a tool name and calls of 0 or more", at, j)
		}
	}
	// The paths are built for a field that is refused only: a case is
	// checked on every read of an envelope, a million of them in a merge.
	if err := lineOf(at, ".definition_sha256", c.DefinitionSHA256); err != nil {
		return err
	}
	if err := lineOf(at, ".model", c.Model); err != nil {
		return err
	}
	if err := lineOf(at, ".position.file", c.Position.File); err != nil {
		return err
	}
	if err := lineOf(at, ".catalog", c.Catalog); err != nil {
		return err
	}
	if c.Cassettes != nil {
		if err := lineOf(at, ".cassettes.sha256", c.Cassettes.SHA256); err != nil {
			return err
		}
		for j, p := range c.Cassettes.Paths {
			if hasControl(p) {
				return lineOf(at, fmt.Sprintf(".cassettes.paths[%d]", j), p)
			}
		}
	}
	for j, m := range c.UnpricedModels {
		if hasControl(m) {
			return lineOf(at, fmt.Sprintf(".unpriced_models[%d]", j), m)
		}
	}
	for j, a := range c.Assertions {
		if hasControl(a.Position.File) {
			return lineOf(at, fmt.Sprintf(".assertions[%d].position.file", j), a.Position.File)
		}
	}
	for j, f := range c.Findings {
		if !hasControl(f.Level) && !hasControl(f.Gate) && (f.Position == nil || !hasControl(f.Position.File)) {
			continue
		}
		p := fmt.Sprintf("%s.findings[%d]", at, j)
		fields := []field{{p + ".level", f.Level}, {p + ".gate", f.Gate}}
		if f.Position != nil {
			fields = append(fields, field{p + ".position.file", f.Position.File})
		}
		return oneLine(fields)
	}
	return nil
}

// hasControl reports whether v holds a control character (isControl).
func hasControl(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			return strings.ContainsFunc(v[i:], isControl)
		}
	}
	return false
}

// lineOf refuses v, the field at at+path, when it holds a control
// character.
func lineOf(at, path, v string) error {
	if !hasControl(v) {
		return nil
	}
	return fmt.Errorf("%s%s: %s holds a control character: the field is one line of plain text", at, path, quoteClipped(v))
}

// oneOfAt is oneOf for the field at at+path, the path built only for a
// value refused.
func oneOfAt(at, path, v string, set []string) error {
	if v == "" || slices.Contains(set, v) {
		return nil
	}
	return oneOf(at+path, v, set)
}

// checkReliability refuses a reliability class outside its set, in the
// case's reliability object or its reliability.class label, and a label
// name that is not one line: the reporters print both as one-line words.
func (c *CaseResult) checkReliability(at string) error {
	if r := c.Reliability; r != nil {
		if err := oneOfAt(at, ".reliability.class", r.Class, reliabilityClasses); err != nil {
			return err
		}
	}
	if err := oneOfAt(at, `.labels["reliability.class"]`, c.Labels["reliability.class"], reliabilityClasses); err != nil {
		return err
	}
	var names []field
	for k := range c.Labels {
		if hasControl(k) {
			names = append(names, field{at + ".labels", k})
		}
	}
	slices.SortFunc(names, func(a, b field) int { return strings.Compare(a.value, b.value) })
	return oneLine(names)
}

// field is a one-line field of an envelope and its JSON path.
type field struct{ path, value string }

// oneLine refuses the first field that holds a control character.
func oneLine(fields []field) error {
	for _, f := range fields {
		if strings.ContainsFunc(f.value, isControl) {
			return fmt.Errorf("%s: %s holds a control character: the field is one line of plain text", f.path, quoteClipped(f.value))
		}
	}
	return nil
}

// oneOf refuses v unless it is one of the values of set, or absent ("").
func oneOf(path, v string, set []string) error {
	if v == "" || slices.Contains(set, v) {
		return nil
	}
	return fmt.Errorf("%s: %s is not one of %s", path, quoteClipped(v), strings.Join(set, ", "))
}

// quoteClipped quotes v for a message, escapes shown, cut to 60 characters.
func quoteClipped(v string) string {
	if r := []rune(v); len(r) > 60 {
		return strconv.Quote(string(r[:60])) + "…"
	}
	return strconv.Quote(v)
}

// isControl reports a character that moves the cursor, breaks a line or
// reorders text: C0 and C1 controls, DEL, the Unicode line and paragraph
// separators and the bidi embeddings, overrides and isolates.
func isControl(r rune) bool {
	return r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0x2028 || r == 0x2029 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// maxRead is the most bytes Read reads of an envelope.
const maxRead = 256 << 20

// Read decodes a saved run envelope, refusing one of another schema
// version, one over maxRead and one over its decode budget.
func Read(r io.Reader, name string) (*Envelope, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxRead+1))
	if err != nil {
		return nil, fmt.Errorf("%s: not a run envelope: %w", name, err)
	}
	if len(data) > maxRead {
		return nil, fmt.Errorf("%s: not a run envelope: over %s", name, safefile.Size(maxRead))
	}
	if err := PlaceBudget(name, data); err != nil {
		return nil, err
	}
	var env Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, Placed(fmt.Errorf("%s: not a run envelope: %w", name, err), bytes.NewReader(data), name)
	}
	if env.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: run envelope schema_version %d, this mcptest reads %d", name, env.SchemaVersion, SchemaVersion)
	}
	if err := env.Check(); err != nil {
		return nil, fmt.Errorf("%s: not a run envelope: %w", name, err)
	}
	return &env, nil
}
