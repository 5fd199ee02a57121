package annotate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// SARIFSchema is the URI of the SARIF 2.1.0 JSON schema a log names.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// SARIFRule describes one rule id a tool reports: "GATE-ASSERT", and the
// DESC-, SCH- and SEC- rules of doctor and security.
type SARIFRule struct {
	ID string
	// Name is a short PascalCase identifier ("AssertionFailed").
	Name string
	// Short is a one-sentence description; Full may say more.
	Short, Full string
	// Level is the rule's default level: "error", "warning" or "note".
	Level string
}

// SARIFResult is one finding of a SARIF log: a rule id, a level ("error",
// "warning", "note" or "none"), a plain-text message and where it is.
type SARIFResult struct {
	RuleID  string
	Level   string
	Message string
	// Location is a place in a suite file or a catalog; a zero Location
	// (no File) leaves the result without a location.
	Location diag.Pos
	// Fingerprint, when set, identifies the result across runs (GitHub
	// code scanning keeps an alert open while it stays the same); it is
	// hashed into partialFingerprints["mcptest/v1"].
	Fingerprint string
	// Properties are extra facts for the reader (the case, the target).
	Properties map[string]any
}

// SARIFTool names the program that wrote the log.
type SARIFTool struct {
	Name, Version, InformationURI string
}

// WriteSARIF writes a SARIF 2.1.0 log of one run of tool with the given
// rules and results. It is the one SARIF writer of mcptest: the sarif
// reporter feeds it the gate failures of a run envelope, and doctor and
// security feed it their DESC-, SCH- and SEC- findings. Rules appear in
// the given order and results reference them by index; a result whose
// rule is not listed gets a rule with its id alone. File locations are
// written relative to %SRCROOT% (the checkout) unless absolute; line and
// column are 1-based, as diag.Pos keeps them.
func WriteSARIF(w io.Writer, tool SARIFTool, rules []SARIFRule, results []SARIFResult) error {
	index := map[string]int{}
	driver := sarifDriver{Name: tool.Name, Version: tool.Version, SemanticVersion: tool.Version, InformationURI: tool.InformationURI, Rules: []sarifRule{}}
	addRule := func(r SARIFRule) {
		if _, ok := index[r.ID]; ok {
			return
		}
		index[r.ID] = len(driver.Rules)
		sr := sarifRule{ID: r.ID, Name: r.Name}
		if r.Short != "" {
			sr.ShortDescription = &sarifText{Text: r.Short}
		}
		if r.Full != "" {
			sr.FullDescription = &sarifText{Text: r.Full}
		}
		if r.Level != "" {
			sr.DefaultConfiguration = &sarifConfig{Level: r.Level}
		}
		driver.Rules = append(driver.Rules, sr)
	}
	for _, r := range rules {
		addRule(r)
	}
	out := make([]sarifResult, 0, len(results))
	for _, r := range results {
		addRule(SARIFRule{ID: r.RuleID})
		i := index[r.RuleID]
		sr := sarifResult{RuleID: r.RuleID, RuleIndex: i, Level: r.Level, Message: sarifText{Text: sarifMessage(r.Message)}, Properties: r.Properties}
		if r.Location.File != "" {
			loc := sarifPhysical{ArtifactLocation: artifactLocation(r.Location.File)}
			if r.Location.Line > 0 {
				loc.Region = &sarifRegion{StartLine: r.Location.Line, StartColumn: r.Location.Col}
			}
			sr.Locations = []sarifLocation{{PhysicalLocation: loc}}
		}
		if r.Fingerprint != "" {
			sum := sha256.Sum256([]byte(r.RuleID + "\x00" + r.Fingerprint))
			sr.PartialFingerprints = map[string]string{"mcptest/v1": hex.EncodeToString(sum[:16])}
		}
		out = append(out, sr)
	}
	log := sarifLog{
		Schema:  SARIFSchema,
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:        sarifTool{Driver: driver},
			Invocations: []sarifInvocation{{ExecutionSuccessful: true}},
			Results:     out,
		}},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return fmt.Errorf("encode sarif: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// sarifMessage keeps a message plain text: control characters become
// visible escapes, as Clean does for a terminal (line breaks kept).
func sarifMessage(s string) string {
	if s == "" {
		return "(no message)"
	}
	return xmlText(s)
}

func artifactLocation(file string) sarifArtifact {
	if filepath.IsAbs(file) {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(file)}
		return sarifArtifact{URI: u.String()}
	}
	u := url.URL{Path: strings.TrimPrefix(filepath.ToSlash(filepath.Clean(file)), "./")}
	return sarifArtifact{URI: u.EscapedPath(), URIBaseID: "%SRCROOT%"}
}

// The gate rules of mcptest run, in the order a log lists them.
var gateRules = []SARIFRule{
	{ID: "GATE-ASSERT", Name: "AssertionFailed", Level: "error",
		Short: "An expect: assertion of a suite case failed.",
		Full:  "An assertion declared in the suite (a target and a matcher, or a gate block's default floor) did not hold over the case's recorded runs. The location is the assertion in the suite file."},
	{ID: "GATE-FLOOR", Name: "FloorMissed", Level: "error",
		Short: "A multi-run floor (pass^k tool selection, certified floor) was missed.",
		Full:  "A floor computed over several recorded runs was breached; the message names the failed condition and the runs that missed. The location is the case in the suite file."},
	{ID: "GATE-FINDING", Name: "GateFinding", Level: "error",
		Short: "A gate found an error in the recorded runs (a missed class, a restricted call, a state mismatch).",
		Full:  "A metric gate reported an error-level finding that explains why a case failed. The location is the suite value the finding concerns, or the case."},
	{ID: "GATE-INCONCLUSIVE", Name: "CaseInconclusive", Level: "warning",
		Short: "A suite case could not be decided (for example a block this version does not compute).",
		Full:  "The case was validated but not computed, so it neither passed nor failed; it is never silently passed."},
	{ID: "GATE-RESTRICTED", Name: "RestrictedToolCalled", Level: "warning",
		Short: "A passing case called a restricted tool of its tool_edges: block.",
		Full:  "A recorded run called a tool the suite lists under tool_edges: restricted, and the case's expect: list did not gate it, so the case passed. The location is the case in the suite file."},
}

// SARIF writes the gate failures of a run as a SARIF 2.1.0 log for code
// scanning: one result per failed assertion (GATE-ASSERT), missed floor
// (GATE-FLOOR) and error finding (GATE-FINDING) of a failing case, and one
// warning per reason a case is inconclusive (GATE-INCONCLUSIVE), each at
// its place in the suite file, and one warning per restricted call of a
// passing case (GATE-RESTRICTED) at the case. A run whose cases all pass
// without a restricted call gives a log with no results.
type SARIF struct{}

// Report implements Reporter.
func (SARIF) Report(w io.Writer, env *report.Envelope) error {
	ruleOf := map[string]string{"assertion": "GATE-ASSERT", "floor": "GATE-FLOOR", "finding": "GATE-FINDING", "inconclusive": "GATE-INCONCLUSIVE", "run": "GATE-ASSERT"}
	var results []SARIFResult
	for _, c := range env.Cases {
		for _, p := range caseProblems(c) {
			level := "error"
			if p.Kind == "inconclusive" {
				level = "warning"
			}
			msg := "case “" + c.Name + "”: " + p.Message
			if p.Actual != "" {
				msg += " (actual: " + p.Actual + ")"
			}
			for _, l := range p.Lines {
				msg += "\n" + l
			}
			results = append(results, SARIFResult{
				RuleID: ruleOf[p.Kind], Level: level, Message: msg, Location: p.Pos,
				Fingerprint: c.Name + "\x00" + p.Key,
				Properties:  map[string]any{"case": c.Name, "kind": string(c.Kind)},
			})
		}
		results = append(results, restrictedResults(c)...)
	}
	tool := SARIFTool{Name: env.Tool.Name, Version: env.Tool.Version, InformationURI: "https://github.com/mcptest/mcptest"}
	return WriteSARIF(w, tool, gateRules, results)
}

// restrictedResults are the GATE-RESTRICTED warnings of a passing case,
// one per restricted call the tool_edges: gate recorded, at the case.
func restrictedResults(c *report.CaseResult) []SARIFResult {
	var out []SARIFResult
	for i, f := range restrictedOnPass(c) {
		out = append(out, SARIFResult{
			RuleID: "GATE-RESTRICTED", Level: "warning", Message: "case “" + c.Name + "” passed, but " + f.Message, Location: c.Position,
			Fingerprint: c.Name + "\x00" + fmt.Sprintf("restricted/%d", i),
			Properties:  map[string]any{"case": c.Name, "kind": string(c.Kind)},
		})
	}
	return out
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool `json:"executionSuccessful"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri,omitempty"`
	Rules           []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	Name                 string       `json:"name,omitempty"`
	ShortDescription     *sarifText   `json:"shortDescription,omitempty"`
	FullDescription      *sarifText   `json:"fullDescription,omitempty"`
	DefaultConfiguration *sarifConfig `json:"defaultConfiguration,omitempty"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}
