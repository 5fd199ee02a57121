package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/history/historytest"
	"github.com/mcptest/mcptest/internal/yamlpos"
	"github.com/mcptest/mcptest/report"
	"github.com/mcptest/mcptest/report/casedraw"
)

// yamlFloods are units of YAML that cost the most memory a byte to read,
// each repeated into a flood: inside a flow sequence (flow) or as the
// lines of a block sequence (the key x: of the root mapping).
var yamlFloods = []struct {
	unit string
	flow bool
}{
	{"{a: 0},", true},
	{"{},", true},
	{"[a: ],", true},
	{"- ?\n", false},
	{"- a:\n", false},
}

// yamlFlood is unit repeated so that it costs scale times the read
// budget's floor past the budget's ratio, as the value at indent (a flow
// sequence on the line, or a block sequence on the lines below it).
func yamlFlood(unit string, flow bool, scale float64, indent string) string {
	if flow {
		indent = ""
	}
	over := yamlpos.Cost([]byte(unit)) - yamlpos.BudgetRatio*int64(len(unit)+len(indent))
	n := int(scale * yamlpos.BudgetFloor / float64(over))
	if flow {
		return " [" + strings.Repeat(unit, n) + "]\n"
	}
	return "\n" + indent + strings.ReplaceAll(strings.Repeat(unit, n), "\n", "\n"+indent)
}

// TestProcessYAMLFloodsWithinBudget runs the built binary over a suite, a
// catalog and a tool-bench spec, each holding one flood of YAML 1.5 times
// the floor past the read budget's ratio (yamlpos.Budget): `validate`,
// `run`, `tools --catalog` and `tool-bench run` exit 2 with the budget's
// error at a line and column of the file, within 3 times the file plus
// 48 MiB resident. Before the budget a flood of 5.6 MB took 1.76 GB to
// validate. At 0.8 of the floor the same floods are read, within twice
// the budget (a suite read item by item, then whole to word its errors)
// plus 48 MiB.
func TestProcessYAMLFloodsWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary over 40 YAML files of up to 250 KB")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"mcptest_cassette": 1, "runs": [{"calls": []}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []struct {
		name string
		text func(flood func(indent string) string) string
		args []string
	}{
		{"suite.yml", func(flood func(string) string) string {
			return "tests:\n  - name: t\n    type: agent\n    cassette: c.json\n    expect:\n      - target: calls\n        matcher:\n          \"==\":" + flood("            ")
		}, []string{"validate", "--config", "suite.yml"}},
		{"suite.yml", func(flood func(string) string) string {
			return "tests:\n  - name: t\n    type: agent\n    cassette: c.json\n    expect:\n      - target: calls\n        matcher:\n          \"==\":" + flood("            ")
		}, []string{"run", "--config", "suite.yml", "--no-cache"}},
		{"catalog.yml", func(flood func(string) string) string {
			return "tools:\n  - name: t\n    description: d\n    inputSchema:\n      type: object\n      properties:\n        x:\n          enum:" + flood("            ")
		}, []string{"tools", "--catalog", "catalog.yml"}},
		{"spec.yml", func(flood func(string) string) string {
			return "catalog_path: catalog.yml\nintents:\n  - query: q\n    gold:" + flood("      ")
		}, []string{"tool-bench", "run", "spec.yml"}},
	}
	refused := regexp.MustCompile(`(?m)^(suite|catalog|spec)\.yml:\d+:\d+: this (suite|catalog|spec) would take about [0-9.]+ MiB of memory to read; what stands before this point takes up the read budget of `)
	for _, scale := range []float64{1.5, 0.8} {
		for _, fl := range yamlFloods {
			for _, f := range files {
				var text string
				if fl.flow {
					text = f.text(func(indent string) string { return yamlFlood(fl.unit, true, scale, indent) })
				} else {
					// A block flood at the root: indented, each line would
					// cost less than the ratio.
					text = f.text(func(string) string { return " []\n" }) + "x:" + yamlFlood(fl.unit, false, scale, "")
				}
				if f.name == "spec.yml" {
					// the spec's catalog, plain
					cat := "tools:\n  - name: t\n    description: d\n    inputSchema: {type: object}\n"
					if err := os.WriteFile(filepath.Join(dir, "catalog.yml"), []byte(cat), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(dir, f.name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s over %q at %.1f (%d bytes)", strings.Join(f.args, " "), fl.unit, scale, len(text))
				u := runMeasured(t, dir, []string{"CI=", "GITHUB_ACTIONS=", "MCPTEST_DIR=" + t.TempDir()}, f.args...)
				over := yamlpos.Cost([]byte(text)) > yamlpos.Budget(len(text))
				if over != (scale > 1) {
					t.Fatalf("%s: over the budget %v", what, over)
				}
				if scale > 1 {
					if u.code != 2 || !refused.MatchString(u.out) {
						t.Errorf("%s: exit %d, want 2 and the read budget's error\n%.600s", what, u.code, u.out)
					}
					if bound := 3*int64(len(text)) + 48<<20; u.peak > bound {
						t.Errorf("%s: refused in %d KiB, over %d", what, u.peak>>10, bound>>10)
					}
				} else {
					if refused.MatchString(u.out) {
						t.Errorf("%s: refused within the budget\n%.600s", what, u.out)
					}
					if bound := 2*yamlpos.Budget(len(text)) + 48<<20; u.peak > bound {
						t.Errorf("%s: read in %d KiB, over %d", what, u.peak>>10, bound>>10)
					}
				}
				t.Logf("%s: exit %d, %d KiB", what, u.code, u.peak>>10)
			}
		}
	}
}

// TestProcessHistoryFloodPlaced runs the built binary's `mcptest history`
// over an envelope whose floor's matcher is a flood past the decode
// budget: exit 2, the budget's error placed at the line and column inside
// the flood where the budget runs out (the history's reader used to name
// the file alone), within three times the file plus 48 MiB resident.
func TestProcessHistoryFloodPlaced(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary over four envelopes of about 2 MB")
	}
	dir := t.TempDir()
	placed := regexp.MustCompile(`(?m)^mcptest: flood\.json:1:(\d+): floors would take [0-9.]+ [KMG]iB decoded; the values before this point take up the decode budget of `)
	for shape, flood := range casedraw.Floods(1.3, 30, report.DecodeCost) {
		env := historytest.Envelope(historytest.Spec{Runs: 2, Suite: "s.yml"}, 0)
		if len(env.Floors) == 0 {
			t.Fatal("the generated envelope has no floor")
		}
		env.Floors[0].Matcher = json.RawMessage(flood)
		doc, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "flood.json"), doc, 0o644); err != nil {
			t.Fatal(err)
		}
		u := runMeasured(t, dir, []string{"CI=", "GITHUB_ACTIONS="}, "history", "flood.json")
		m := placed.FindStringSubmatch(u.out)
		if u.code != 2 || m == nil {
			t.Errorf("%s: exit %d, want 2 and the placed budget error\n%.600s", shape, u.code, u.out)
			continue
		}
		from := bytes.Index(doc, []byte(flood))
		if col, _ := strconv.Atoi(m[1]); col-1 < from || col-1 >= from+len(flood) {
			t.Errorf("%s: placed at column %d, not inside the flood (columns %d to %d)", shape, col, from+1, from+len(flood))
		}
		if bound := 3*int64(len(doc)) + 48<<20; u.peak > bound {
			t.Errorf("%s: %d KiB, over %d", shape, u.peak>>10, bound>>10)
		}
		t.Logf("%s: %d bytes, exit %d, %d KiB: %.160s", shape, len(doc), u.code, u.peak>>10, u.out)
	}
}
