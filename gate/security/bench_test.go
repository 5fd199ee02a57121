package security

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// sharedData is the datasets folder beside the repository root; each
// dataset's README there names its source and licence.
const sharedData = "../../../shared/data"

var updateBench = flag.Bool("update", false, "rewrite the SEC-rule table in docs/benchmarks.md")

// poisonedEntry is one labelled poisoned tool of testdata/poisoned.json.
type poisonedEntry struct {
	ID        string           `json:"id"`
	Source    string           `json:"source"`
	Technique string           `json:"technique"`
	Expect    []string         `json:"expect"`
	Tool      map[string]any   `json:"tool"`
	Others    []map[string]any `json:"others"`
}

func loadPoisoned(t *testing.T) []poisonedEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "poisoned.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Poisoned []poisonedEntry `json:"poisoned"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Poisoned
}

// cleanCorpus is one real catalog set: catalogs as tools/list would give
// them, each tool counted once however many catalogs list it.
type cleanCorpus struct {
	name     string
	catalogs [][]map[string]any
}

// requireShared skips when the shared datasets are missing, and fails
// under CI=true, where .ci/run promises them.
func requireShared(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("shared datasets missing under CI: %v", err)
	}
	t.Skipf("shared datasets not available (put ../shared/data beside the repository): %v", err)
}

// liveMCPBench is the 70 servers' tools/list of LiveMCPBench: 527 tools.
func liveMCPBench(t *testing.T) cleanCorpus {
	data, err := os.ReadFile(filepath.Join(sharedData, "livemcpbench", "livemcptool_catalog.json"))
	requireShared(t, err)
	var servers []struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(data, &servers); err != nil {
		t.Fatal(err)
	}
	c := cleanCorpus{name: "LiveMCPBench (70 servers)"}
	for _, s := range servers {
		c.catalogs = append(c.catalogs, s.Tools)
	}
	return c
}

// bfcl is BFCL's candidate function lists (one catalog per question) and
// its multi-turn API documents, parameters read as input schemas.
func bfcl(t *testing.T) cleanCorpus {
	c := cleanCorpus{name: "BFCL functions"}
	files, err := filepath.Glob(filepath.Join(sharedData, "bfcl", "questions", "*.jsonl"))
	if err == nil && len(files) == 0 {
		err = os.ErrNotExist
	}
	requireShared(t, err)
	for _, f := range files {
		eachLine(t, f, func(line []byte) {
			var q struct {
				Function []map[string]any `json:"function"`
			}
			if err := json.Unmarshal(line, &q); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			c.catalogs = append(c.catalogs, asMCP(q.Function))
		})
	}
	docs, _ := filepath.Glob(filepath.Join(sharedData, "bfcl", "multi_turn_func_doc", "*.json"))
	for _, f := range docs {
		var api []map[string]any
		eachLine(t, f, func(line []byte) {
			var fn map[string]any
			if err := json.Unmarshal(line, &fn); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			api = append(api, fn)
		})
		c.catalogs = append(c.catalogs, asMCP(api))
	}
	return c
}

// metaTool is MetaTool's 199 plugin descriptions and its 47 merged tools.
func metaTool(t *testing.T) cleanCorpus {
	c := cleanCorpus{name: "MetaTool plugins"}
	for _, f := range []string{"plugin_des.json", "big_tool_des.json"} {
		data, err := os.ReadFile(filepath.Join(sharedData, "metatool", f))
		requireShared(t, err)
		var des map[string]string
		if err := json.Unmarshal(data, &des); err != nil {
			t.Fatal(err)
		}
		names := make([]string, 0, len(des))
		for n := range des {
			names = append(names, n)
		}
		sort.Strings(names)
		var cat []map[string]any
		for _, n := range names {
			cat = append(cat, map[string]any{"name": n, "description": des[n]})
		}
		c.catalogs = append(c.catalogs, cat)
	}
	return c
}

func eachLine(t *testing.T, path string, fn func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if len(strings.TrimSpace(sc.Text())) > 0 {
			fn(sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// asMCP renames BFCL's parameters to MCP's inputSchema.
func asMCP(fns []map[string]any) []map[string]any {
	out := make([]map[string]any, 0, len(fns))
	for _, fn := range fns {
		tool := map[string]any{"name": fn["name"], "description": fn["description"], "inputSchema": fn["parameters"]}
		out = append(out, tool)
	}
	return out
}

// falsePositives scans every catalog of c and returns, per rule, the
// distinct tools (name and description) it fired on, and how many distinct
// tools c holds.
func falsePositives(c cleanCorpus) (map[string][]string, int) {
	fired := map[string]map[string]bool{}
	seen := map[string]bool{}
	for _, cat := range c.catalogs {
		keys := map[string]string{}
		for _, tool := range cat {
			name, _ := tool["name"].(string)
			desc, _ := tool["description"].(string)
			key := name + "\x00" + desc
			seen[key] = true
			keys[Clean(name, 80)] = key
		}
		for _, f := range Scan(cat) {
			if fired[f.Rule] == nil {
				fired[f.Rule] = map[string]bool{}
			}
			fired[f.Rule][keys[f.Tool]+"\x00"+f.Summary] = true
		}
	}
	out := map[string][]string{}
	for rule, set := range fired {
		for k := range set {
			parts := strings.Split(k, "\x00")
			out[rule] = append(out[rule], parts[0]+": "+parts[len(parts)-1])
		}
		sort.Strings(out[rule])
	}
	return out, len(seen)
}

// recall runs each poisoned entry with the tools beside it and returns,
// per rule, how many entries expect it and how many of those it caught,
// and the entries any rule caught.
func recall(entries []poisonedEntry) (want, caught map[string]int, anyCaught int, missed []string) {
	want, caught = map[string]int{}, map[string]int{}
	for _, e := range entries {
		name, _ := e.Tool["name"].(string)
		got := map[string]bool{}
		// The tools beside it come first: a shadowing tool arrives after
		// the one it imitates.
		for _, f := range Scan(append(append([]map[string]any{}, e.Others...), e.Tool)) {
			if f.Tool == Clean(name, 80) {
				got[f.Rule] = true
			}
		}
		if len(got) > 0 {
			anyCaught++
		}
		for _, r := range e.Expect {
			want[r]++
			if got[r] {
				caught[r]++
			} else {
				missed = append(missed, r+" "+e.ID)
			}
		}
	}
	return want, caught, anyCaught, missed
}

// TestSecurityRulesOnRealCatalogs measures every SEC rule: recall on the
// labelled poisoned definitions of testdata/poisoned.json, false positives
// on the real catalogs of LiveMCPBench, BFCL and MetaTool. A rule is kept
// only with no false positive on the 527 LiveMCPBench tools; the table in
// docs/benchmarks.md is this test's (-update rewrites it).
func TestSecurityRulesOnRealCatalogs(t *testing.T) {
	entries := loadPoisoned(t)
	corpora := []cleanCorpus{liveMCPBench(t), bfcl(t), metaTool(t)}
	want, caught, anyCaught, missed := recall(entries)
	fps := make([]map[string][]string, len(corpora))
	sizes := make([]int, len(corpora))
	for i, c := range corpora {
		fps[i], sizes[i] = falsePositives(c)
	}
	if sizes[0] != 527 {
		t.Errorf("LiveMCPBench holds %d distinct tools, want 527", sizes[0])
	}
	for rule, tools := range fps[0] {
		t.Errorf("%s fires on %d real LiveMCPBench tool(s), a rule is kept only with none: %s", rule, len(tools), strings.Join(tools, "; "))
	}
	for i, c := range corpora[1:] {
		for rule, tools := range fps[i+1] {
			t.Logf("%s: %s fires on %d tool(s): %s", c.name, rule, len(tools), strings.Join(tools, "; "))
		}
	}
	for _, m := range missed {
		t.Logf("missed: %s", m)
	}
	table := benchTable(entries, want, caught, anyCaught, corpora, fps, sizes)
	checkBenchDoc(t, table)
	// Floors: the rules measured below par before this set was built.
	for rule, floor := range map[string]float64{"SEC-006": 0.8, "SEC-001": 0.99, "SEC-002": 0.99, "SEC-003": 0.99} {
		if r := float64(caught[rule]) / float64(want[rule]); r < floor {
			t.Errorf("%s recall %.2f (%d of %d), want at least %.2f", rule, r, caught[rule], want[rule], floor)
		}
	}
}

// benchTable renders the per-rule results as the markdown table of
// docs/benchmarks.md.
func benchTable(entries []poisonedEntry, want, caught map[string]int, anyCaught int, corpora []cleanCorpus, fps []map[string][]string, sizes []int) string {
	var b strings.Builder
	b.WriteString("| rule | poisoned caught | recall |")
	for i, c := range corpora {
		fmt.Fprintf(&b, " false positives: %s, %d tools |", c.name, sizes[i])
	}
	b.WriteString("\n| --- | --- | --- |" + strings.Repeat(" --- |", len(corpora)) + "\n")
	for _, r := range Rules {
		rec := "–"
		if want[r.ID] > 0 {
			rec = fmt.Sprintf("%.0f%%", 100*float64(caught[r.ID])/float64(want[r.ID]))
		}
		fmt.Fprintf(&b, "| %s %s | %d of %d | %s |", r.ID, r.Name, caught[r.ID], want[r.ID], rec)
		for i := range corpora {
			fmt.Fprintf(&b, " %d |", len(fps[i][r.ID]))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nAny rule fired on %d of the %d poisoned definitions.\n", anyCaught, len(entries))
	return b.String()
}

const (
	benchBegin = "<!-- security-bench:begin (go test ./gate/security -run TestSecurityRulesOnRealCatalogs -update) -->\n"
	benchEnd   = "<!-- security-bench:end -->\n"
)

// checkBenchDoc compares the table with the one between the markers of
// docs/benchmarks.md, or writes it there under -update.
func checkBenchDoc(t *testing.T, table string) {
	t.Helper()
	path := filepath.Join("..", "..", "docs", "benchmarks.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, benchBegin), strings.Index(doc, benchEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q and %q around the SEC-rule table", path, benchBegin, benchEnd)
	}
	got := doc[i+len(benchBegin) : j]
	if got == table {
		return
	}
	if *updateBench {
		if err := os.WriteFile(path, []byte(doc[:i+len(benchBegin)]+table+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the SEC-rule table of %s is not this test's (run with -update):\n%s", path, table)
}
