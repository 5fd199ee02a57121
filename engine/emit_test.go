package engine_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/report"
)

// TestRunEmitsWhatItKeeps: with Options.Emit, Run hands over every case in
// suite order and keeps none, and the envelope's totals, verdict, summary
// and floors are those of the run that kept its cases, over every example
// replayed suite (passing, failing, multi-run, scenarios, suite floors).
func TestRunEmitsWhatItKeeps(t *testing.T) {
	suites, _ := filepath.Glob("../examples/*/suite.yml")
	if len(suites) < 10 {
		t.Fatalf("found %d example suites", len(suites))
	}
	for _, path := range suites {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			s, err := engine.LoadSuite(path)
			if err != nil {
				t.Fatal(err)
			}
			kept, err := engine.Run(s, engine.Options{Version: "test"})
			if err != nil || kept.Run.Mode == "live" {
				t.Skip("the example does not replay offline: a live run's results hold timings")
			}
			var emitted []*report.CaseResult
			streamed, err := engine.Run(s, engine.Options{Version: "test", Emit: func(c *report.CaseResult) error {
				emitted = append(emitted, c)
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if streamed.Cases == nil || len(streamed.Cases) != 0 {
				t.Errorf("the streamed envelope holds %d cases (nil: %v), want an empty list", len(streamed.Cases), streamed.Cases == nil)
			}
			if !reflect.DeepEqual(emitted, kept.Cases) {
				t.Errorf("emitted %d cases, kept %d: they differ", len(emitted), len(kept.Cases))
			}
			streamed.Cases = kept.Cases
			if !reflect.DeepEqual(streamed, kept) {
				t.Errorf("the streamed envelope differs from the kept one:\n%+v\n%+v", streamed, kept)
			}
		})
	}
}
