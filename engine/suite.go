package engine

import (
	"bytes"
	"compress/flate"
	"io"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/internal/yamlpos"
	"github.com/mcptest/mcptest/live"
	"github.com/mcptest/mcptest/report"
)

// Suite is a loaded suite.yml: every value keeps the position it was
// written at.
type Suite struct {
	// Path is the suite file as the user named it; positions use it.
	Path string
	// Dir is the directory relative paths in the suite resolve against.
	Dir string
	// SHA256 is the hex digest of the suite file's bytes.
	SHA256 string

	Servers []Server
	// Aliases are the suite's aliases: (other name -> tool), which every
	// agent test starts from; nil for none.
	Aliases map[string]string
	// aliasAt is where each of the suite's aliases is written.
	aliasAt map[string]diag.Pos
	// Reliability is the suite's default reliability: block, nil when it
	// sets no floor; Confidence the confidence of its certified bounds.
	Reliability *ReliabilityBlock
	Confidence  Confidence
	// Floors are the suite's floors: on the summary across its cases.
	Floors []*Assertion
	// Cases are the suite's cases in file order: agent tests from agents:
	// and tests:, and the entries of blocks this version does not run yet.
	Cases []*Case

	// source is the suite file's bytes, kept so the errors found in a
	// run at a case's position can show its line; packed holds them
	// instead, compressed, for a text of packMin bytes or more (see
	// keepSource); kept holds them for a suite whose tests: the reader
	// held, compressed as the reader kept them (yamlpos.Doc.Packed).
	source, packed []byte
	kept           *yamlpos.Packed

	// dropped are the tests a suite loaded for a run checked and left out
	// of Cases, in order (see LoadSuiteForRun), which the reader of doc
	// hands over again (yamlpos.Doc.Again); doc is nil when there are
	// none.
	dropped []droppedTest
	doc     *document
	// keep is how many droppable tests a suite loaded for a run keeps
	// built (keepBuilt), keptBuilt how many it kept.
	keep, keptBuilt int
	// ahead computes the replayed tests of a suite loaded for a run as
	// they are built (LoadSuiteAhead); nil once Run took it, or when the
	// load computes nothing ahead.
	ahead *loadAhead
	// paced puts the collector's pace back (paceRun) once a suite loaded
	// for a run (LoadSuiteAhead) is released; nil otherwise.
	paced func()
}

// packMin is the size of suite text from which the suite keeps it
// compressed: a long suite's text is a quarter of what it keeps beside
// its cases (3 MB of 11.5 at 8,000 tests) and compresses about tenfold,
// while it is read only for an error.
const packMin = 1 << 20

// keepSource keeps data, the suite file's bytes, for the errors of a
// run: as they are, or compressed (packMin).
func (s *Suite) keepSource(data []byte) {
	if len(data) < packMin {
		s.source = data
		return
	}
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestSpeed)
	if err == nil {
		_, err = w.Write(data)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		s.source = data // not reached: writing to memory does not fail
		return
	}
	s.packed = bytes.Clone(b.Bytes())
}

// text returns the suite file's bytes that keepSource or the reader kept.
func (s *Suite) text() []byte {
	if s.kept != nil {
		return s.kept.Bytes()
	}
	if s.packed == nil {
		return s.source
	}
	data, err := io.ReadAll(flate.NewReader(bytes.NewReader(s.packed)))
	if err != nil {
		return nil // not reached: the bytes were compressed here
	}
	return data
}

// sourced attaches the suite file's bytes to the errors of l about it
// that carry none, for the printer to show their lines.
func (s *Suite) sourced(l diag.List) diag.List {
	var text []byte
	for _, e := range l {
		if e.Pos.File == s.Path && e.Source == nil && !e.HideSource {
			if text == nil {
				text = s.text()
			}
			e.Source = text
		}
	}
	return l
}

// Server is one entry of servers:.
type Server struct {
	Name           string
	Pos            diag.Pos
	Command        []string
	Env            map[string]string
	URL            string
	BearerTokenEnv string
	// Timeout bounds starting the server, its initialize handshake and
	// each request (timeout:); 0 is live.DefaultTimeout.
	Timeout time.Duration
}

// Target is the live target of the server the suite declares under name,
// run in the suite's directory; false when it declares none.
func (s *Suite) Target(name string) (live.Target, bool) {
	for _, srv := range s.Servers {
		if srv.Name == name {
			return live.Target{Name: srv.Name, Command: srv.Command, Env: srv.Env, URL: srv.URL, BearerTokenEnv: srv.BearerTokenEnv, Dir: s.Dir, Timeout: srv.Timeout}, true
		}
	}
	return live.Target{}, false
}

// Case is one test of the suite.
type Case struct {
	Name string
	Kind report.Kind
	Pos  diag.Pos
	// Pointer is the RFC 6901 pointer of the case in the suite document.
	Pointer string
	// DefinitionSHA256 digests the case's definition (its subtree of the
	// suite, canonically encoded), so a comparison can tell when a case
	// changed between two runs.
	DefinitionSHA256 string
	// ahead gives the case's outcome when the load computed it for a run
	// (loadAhead.take), until Run takes it; nil otherwise.
	ahead chan caseOutcome

	Agent   string
	Models  []string
	Servers []string
	Prompt  string
	// Runs is the number of runs the suite asks for (runs:, 0 clamped to
	// 1); 0 when the suite does not say.
	Runs int
	// NoCalls is no_calls: true, the test's word that its runs call no
	// tool: without it a test whose every run holds no call is
	// inconclusive, not pass (a recording read without its calls would
	// pass every gate); with it a run that calls a tool fails the test.
	NoCalls bool
	// Cassette is the cassette path, directory or glob as written, ""
	// when the runner looks the test up by name in the cassette directory.
	Cassette    string
	CassettePos diag.Pos
	// cassetteFiles are the files Cassette named when the suite was
	// loaded, so the run does not look them up a second time; nil when
	// they were not found (a suite loaded before recording).
	cassetteFiles []string
	// Sources are the recordings of a sources: list, joined run by run
	// (join.go); nil for a test of one cassette:. SourcesPos is the
	// position of the sources: key, where a join that fails is reported.
	Sources    []*Source
	SourcesPos diag.Pos
	// Aliases maps each other name of a tool to the name the suite writes
	// (the suite's aliases: and the test's own); nil for none.
	Aliases map[string]string

	// Reliability is the case's reliability: block, or the suite's default;
	// nil when neither is declared. Confidence is the suite's confidence of
	// certified bounds.
	Reliability *ReliabilityBlock
	Confidence  Confidence

	// Expect holds every assertion of the case: the test's own expect:
	// list, each gate block's expect: list, and the default gate of a
	// block whose expect: is empty.
	Expect []*Assertion

	// Blocks are the test's gate blocks, in registry order (gateRows):
	// *SelectionBlock for equal_function_sets:, *EdgesBlock for
	// tool_edges:, and so on. Block looks one up by its key.
	Blocks []Block
	// Quality is the catalog of a tool_quality: entry (quality.go).
	Quality *QualityBlock
	// ToolTest is a tools: entry's live call.
	ToolTest *ToolTestBlock
	// Scenario is the world and oracles of a scenarios: entry.
	Scenario *Scenario
	// Compliance is a compliance: entry's protocol check (compliance.go).
	Compliance *ComplianceBlock
	// SystemPrompt and Judge belong to the cases that need a live model:
	// redteam: probes and evals: cases (modelcase.go).
	SystemPrompt string
	Judge        *JudgeBlock
}

// Assertion is one {target, matcher} of an expect: list.
type Assertion struct {
	// Index is the assertion's number within its expect: list, as the
	// failure message reads it ("assertion #0").
	Index int
	// Block is the gate block whose expect: list holds the assertion, ""
	// for the test's own list.
	Block   string
	Target  expr.Path
	Matcher *expr.Matcher
	Message string
	Pos     diag.Pos
	// Default is true for a gate's default assertion, applied because
	// the block's expect: list was empty.
	Default bool
	// Floor is the key of a floor a block declares beside its expect:
	// list (max_calls of budget:), which the assertion applies; "" for
	// none. A floor is Default, in the sense that no expect: item wrote it.
	Floor string
}
