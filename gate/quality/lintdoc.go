package quality

// LintDoc is the document `mcptest doctor --lint-descriptions --format
// json` prints: every tool's score and DESC findings, then the totals.
type LintDoc struct {
	Tools   []ToolReport `json:"tools"`
	Summary LintSummary  `json:"summary"`
}

// LintSummary counts a LintDoc's tools and findings by severity, with the
// TDQS mean and minimum.
type LintSummary struct {
	Tools     int     `json:"tools"`
	Critical  int     `json:"critical"`
	Warning   int     `json:"warning"`
	Pass      int     `json:"pass"`
	MeanScore float64 `json:"mean_score"`
	MinScore  float64 `json:"min_score"`
}

// LintTools assesses the tools of a tools/list result (decoded JSON) and
// returns the description lint of them.
func LintTools(raw []map[string]any) LintDoc {
	var tools []Tool
	for _, r := range raw {
		tools = append(tools, FromRaw(r))
	}
	rep := Assess(tools)
	doc := LintDoc{Tools: rep.Tools, Summary: LintSummary{Tools: len(rep.Tools), Critical: rep.CriticalCount, Warning: rep.WarningCount, MeanScore: rep.MeanScore, MinScore: rep.MinScore}}
	for _, tr := range rep.Tools {
		for _, f := range tr.Findings {
			if f.Severity == Pass {
				doc.Summary.Pass++
			}
		}
	}
	return doc
}
