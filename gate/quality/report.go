package quality

import (
	"strconv"
)

// Smells are the named groups DESC findings fall into, in report order.
var Smells = []string{"underspecified", "verbose", "uninformative", "brittle", "missing_examples", "missing_return_format", "missing_annotations", "invalid_annotation"}

// ToolReport is one tool's score and findings.
type ToolReport struct {
	Name     string    `json:"name"`
	Score    float64   `json:"score"`
	Findings []Finding `json:"findings"`
	Schema   []Finding `json:"schema_findings,omitempty"`
}

// Report is a catalog's quality: per tool, and the figures a
// `tool_quality:` check gates on.
type Report struct {
	Tools           []ToolReport   `json:"tools"`
	MinScore        float64        `json:"min_score"`
	MeanScore       float64        `json:"mean_score"`
	CriticalCount   int            `json:"critical_count"`
	WarningCount    int            `json:"warning_count"`
	SchemaCriticals int            `json:"schema_criticals"`
	SchemaWarnings  int            `json:"schema_warnings"`
	Smells          map[string]int `json:"smells"`
	SmellTotal      int            `json:"smell_total"`
}

// Assess scores and lints a catalog. An empty catalog scores 0 on min and
// mean: there is nothing an agent could select.
func Assess(tools []Tool) Report {
	r := Report{Tools: []ToolReport{}, Smells: map[string]int{}}
	for _, s := range Smells {
		r.Smells[s] = 0
	}
	smellOf := map[string]string{}
	for _, rule := range Rules {
		smellOf[rule.ID] = rule.Smell
	}
	sum := 0.0
	for i, t := range tools {
		tr := ToolReport{Name: t.Name, Score: Score(t), Findings: Lint(t), Schema: LintSchema(t)}
		sum += tr.Score
		if i == 0 || tr.Score < r.MinScore {
			r.MinScore = tr.Score
		}
		for _, f := range tr.Findings {
			switch f.Severity {
			case Critical:
				r.CriticalCount++
			case Warning:
				r.WarningCount++
			}
			if s := smellOf[f.Rule]; s != "" {
				r.Smells[s]++
				r.SmellTotal++
			}
		}
		for _, f := range tr.Schema {
			if f.Severity == Critical {
				r.SchemaCriticals++
			} else {
				r.SchemaWarnings++
			}
		}
		r.Tools = append(r.Tools, tr)
	}
	if len(tools) > 0 {
		r.MeanScore = round2(sum / float64(len(tools)))
	}
	return r
}

// Targets are the report's assertable figures by target name: min_score,
// mean_score, critical_count, warning_count, schema_criticals,
// schema_warnings, smells.<category>, smell_total and tool["<name>"].score.
func (r Report) Targets() map[string]float64 {
	out := map[string]float64{
		"min_score":        r.MinScore,
		"mean_score":       r.MeanScore,
		"critical_count":   float64(r.CriticalCount),
		"warning_count":    float64(r.WarningCount),
		"schema_criticals": float64(r.SchemaCriticals),
		"schema_warnings":  float64(r.SchemaWarnings),
		"smell_total":      float64(r.SmellTotal),
	}
	for s, n := range r.Smells {
		out["smells."+s] = float64(n)
	}
	for _, t := range r.Tools {
		out["tool["+strconv.Quote(t.Name)+"].score"] = t.Score
	}
	return out
}
