package quality

import "testing"

// TestAssessCounts: the catalog's figures are sums and extremes over its
// tools whatever their order: the lowest score (first or not), the mean
// rounded to two places, each finding counted under its severity, each
// schema finding as critical or warning.
func TestAssessCounts(t *testing.T) {
	low := tool(t, `{"name": "get", "description": "get", "inputSchema": {"type": "object", "properties": {"q": {}, "s": {}, "r": {"type": "text"}}}}`)
	good := tool(t, clean)
	var crit, warn, schemaCrit, schemaWarn int
	for _, x := range []Tool{low, good} {
		for _, f := range Lint(x) {
			switch f.Severity {
			case Critical:
				crit++
			case Warning:
				warn++
			}
		}
		for _, f := range LintSchema(x) {
			if f.Severity == Critical {
				schemaCrit++
			} else {
				schemaWarn++
			}
		}
	}
	if warn == 0 || crit == 0 || schemaCrit == 0 || schemaWarn == 0 || schemaCrit == schemaWarn {
		t.Fatalf("the fixture should have critical, warning and schema findings: %d %d %d %d", crit, warn, schemaCrit, schemaWarn)
	}
	mean := round2((Score(low) + Score(good)) / 2)
	for _, order := range [][]Tool{{low, good}, {good, low}} {
		r := Assess(order)
		if r.MinScore != Score(low) || r.MeanScore != mean || r.CriticalCount != crit || r.WarningCount != warn ||
			r.SchemaCriticals != schemaCrit || r.SchemaWarnings != schemaWarn || len(r.Tools) != 2 {
			t.Errorf("order %s, %s: %+v; want min %v, mean %v, %d critical, %d warnings, schema %d and %d",
				order[0].Name, order[1].Name, r, Score(low), mean, crit, warn, schemaCrit, schemaWarn)
		}
	}
	if Score(low) >= Score(good) {
		t.Errorf("the fixture's scores do not differ: %v, %v", Score(low), Score(good))
	}
}
