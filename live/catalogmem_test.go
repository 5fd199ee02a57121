//go:build linux

package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/rsstest"
)

// The bounds a catalog read is held to, per byte of the file, in each
// layout a catalog is saved in: JSON on one line, JSON pretty-printed,
// YAML. A catalog file's tools are kept as compact JSON text (their
// schemas slices of it) and a YAML catalog is read tool by tool, so what
// a read holds is about the size of the file's compact JSON, and the peak
// is the file, that text and the collector's headroom
// (docs/benchmarks.md, "Catalogs kept as text").
const (
	// maxCatalogHeld is the live heap a catalog holds once read (0.9 to
	// 1.6 measured).
	maxCatalogHeld = 2.0
	// maxCatalogAlloc is what reading a JSON catalog allocates (3.4 to
	// 5.3 measured; a YAML catalog's parser allocates its nodes).
	maxCatalogAlloc = 6.0
	// maxCatalogPeak is the peak resident set of a process that reads a
	// catalog, over that of one reading a catalog of ten tools, in every
	// layout: the bound (2.5 to 4.1 measured from 4,000 tools).
	maxCatalogPeak = 5.0
)

// catalogShape makes a catalog of about n tools.
type catalogShape struct {
	name string
	make func(tb testing.TB, n int) map[string]any
}

var catalogShapes = []catalogShape{
	{"generated", func(_ testing.TB, n int) map[string]any { return genCatalog(n) }},
	{"livemcpbench", liveMCPBenchCatalog},
}

// liveMCPBenchCatalog is a catalog of the real tools of the 70
// LiveMCPBench servers (527 tools, ../shared/data), repeated with their
// names numbered until it holds at least n tools.
func liveMCPBenchCatalog(tb testing.TB, n int) map[string]any {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "shared", "data", "livemcpbench", "livemcptool_catalog.json"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("the LiveMCPBench catalog: %v", err)
		}
		tb.Skipf("the LiveMCPBench catalog: %v", err)
	}
	var servers []struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(data, &servers); err != nil {
		tb.Fatal(err)
	}
	var tools []any
	for round := 0; len(tools) < n; round++ {
		for _, s := range servers {
			for _, t := range s.Tools {
				c := map[string]any{}
				for k, v := range t {
					c[k] = v
				}
				c["name"] = fmt.Sprintf("%v_%d", t["name"], round)
				tools = append(tools, c)
			}
		}
	}
	return map[string]any{"tools": tools}
}

// writeLayouts writes a catalog in each layout a catalog file has: JSON on
// one line, JSON pretty-printed, YAML.
func writeLayouts(tb testing.TB, dir, name string, cat map[string]any) map[string]string {
	tb.Helper()
	oneLine, err := json.Marshal(cat)
	if err != nil {
		tb.Fatal(err)
	}
	pretty, err := json.MarshalIndent(cat, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(oneLine, &doc); err != nil {
		tb.Fatal(err)
	}
	y, err := yaml.Marshal(yamlNode(doc))
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for layout, data := range map[string][]byte{"json-one-line": oneLine, "json-pretty": pretty, "yaml": y} {
		ext := ".json"
		if layout == "yaml" {
			ext = ".yml"
		}
		path := filepath.Join(dir, name+"-"+layout+ext)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			tb.Fatal(err)
		}
		out[layout] = path
	}
	return out
}

// yamlNode is a decoded JSON value as a YAML tree, a mapping's keys in
// order, each string of several lines or with spaces at an end
// double-quoted: yaml.v3 writes such a string as a block scalar that it
// cannot always read back (a line that starts with spaces becomes a |4
// block it refuses at the next key), as the real descriptions have them.
func yamlNode(v any) *yaml.Node {
	switch v := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			n.Content = append(n.Content, yamlNode(k), yamlNode(v[k]))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, c := range v {
			n.Content = append(n.Content, yamlNode(c))
		}
		return n
	case string:
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		if strings.Contains(v, "\n") || strings.TrimSpace(v) != v {
			n.Style = yaml.DoubleQuotedStyle
		}
		return n
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		panic(err) // not reached: a number, a boolean or null
	}
	return &n
}

// readPeak is the peak resident set of a process that reads the catalog
// file (readCatalogEnv), measured from the tests' launcher: the least of
// three reads, for the collector's timing on a loaded machine moves a
// peak one way only.
func readPeak(t *testing.T, path string) int64 {
	t.Helper()
	least := readPeakOnce(t, path)
	for range 2 {
		least = min(least, readPeakOnce(t, path))
	}
	return least
}

func readPeakOnce(t *testing.T, path string) int64 {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), readCatalogEnv+"="+path)
	out, _ := os.CreateTemp(t.TempDir(), "stderr")
	cmd.Stderr = out
	u, err := rsstest.Run(t, cmd)
	if err != nil || u.Code != 0 {
		msg, _ := os.ReadFile(out.Name())
		t.Fatalf("reading %s: exit %d, %v\n%s", path, u.Code, err, msg)
	}
	return u.Peak
}

// heldAndAllocated reads the catalog file in this process and returns the
// bytes the read allocated and the bytes the catalog holds once read.
func heldAndAllocated(t *testing.T, path string) (held, alloc int64) {
	t.Helper()
	var before, after, kept runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&kept)
	runtime.KeepAlive(c)
	return int64(kept.HeapAlloc) - int64(before.HeapAlloc), int64(after.TotalAlloc - before.TotalAlloc)
}

// TestCatalogReadMemoryIsBounded reads catalogs of growing size (the
// generated shape and the real LiveMCPBench tools), in each layout (JSON
// on one line, pretty-printed, YAML), and holds what a read costs per
// byte of the file: the heap the catalog holds once read, what the read
// allocates (JSON), and the peak resident set of a process that reads it,
// over that of one reading ten tools (from 4,000 tools on, where the file
// is not lost in the noise of the floor). Under -short only 1,000 tools
// are read (the peak is then logged, not held); MCPTEST_LONG=1 (.ci/run)
// adds 12,000.
func TestCatalogReadMemoryIsBounded(t *testing.T) {
	sizes := []int{1000, 4000}
	switch {
	case testing.Short():
		sizes = sizes[:1]
	case os.Getenv("MCPTEST_LONG") == "1":
		sizes = append(sizes, 12000)
	}
	dir := t.TempDir()
	for _, shape := range catalogShapes {
		floor := writeLayouts(t, dir, shape.name+"-floor", genCatalog(10))
		floorPeak := map[string]int64{}
		for layout, path := range floor {
			floorPeak[layout] = readPeak(t, path)
		}
		for _, n := range sizes {
			files := writeLayouts(t, dir, fmt.Sprintf("%s-%d", shape.name, n), shape.make(t, n))
			for _, layout := range []string{"json-one-line", "json-pretty", "yaml"} {
				st, err := os.Stat(files[layout])
				if err != nil {
					t.Fatal(err)
				}
				size := float64(st.Size())
				if size > MaxCatalogBytes {
					continue
				}
				held, alloc := heldAndAllocated(t, files[layout])
				h, a := float64(held)/size, float64(alloc)/size
				// A file under a few MiB is lost in the noise of the
				// floor: the peak is measured and held from 4,000 tools on.
				peak := 0.0
				if n >= 4000 {
					peak = float64(readPeak(t, files[layout])-floorPeak[layout]) / size
				}
				t.Logf("%s, %d tools, %s: %d KiB; held %.2fx, allocated %.2fx, peak RSS %.2fx the file",
					shape.name, n, layout, st.Size()>>10, h, a, peak)
				if h > maxCatalogHeld {
					t.Errorf("%s, %d tools, %s: held %.2fx the file, over %.0fx", shape.name, n, layout, h, maxCatalogHeld)
				}
				if layout != "yaml" && a > maxCatalogAlloc {
					t.Errorf("%s, %d tools, %s: allocated %.2fx the file, over %.0fx", shape.name, n, layout, a, maxCatalogAlloc)
				}
				if peak > maxCatalogPeak {
					t.Errorf("%s, %d tools, %s: peak RSS %.2fx the file, over %.0fx", shape.name, n, layout, peak, maxCatalogPeak)
				}
			}
		}
	}
}

// TestProcessCatalogFiles runs the built binary's `mcptest tools --catalog`
// over drawn JSON catalogs (drawCatalog) and the real LiveMCPBench tools:
// a catalog the checks over a node tree refuse exits 2 with each of their
// errors at its file:line:col; one they accept lists its tools.
func TestProcessCatalogFiles(t *testing.T) {
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	run := func(path string) (string, string, int) {
		var stdout, stderr strings.Builder
		cmd := exec.Command(bin, "tools", "--catalog", path)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
	}
	r := rand.New(rand.NewPCG(40, 6))
	refused, accepted := 0, 0
	for d := range 24 {
		data := []byte(drawCatalog(r))
		path := filepath.Join(dir, fmt.Sprintf("draw-%02d.json", d))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := run(path)
		want := treeCheck(path, data)
		if len(want) == 0 {
			accepted++
			if code != 0 || !strings.Contains(stdout, "tool") {
				t.Errorf("draw %d: accepted by the checks, the binary exits %d:\n%s%s", d, code, stdout, stderr)
			}
			continue
		}
		refused++
		if code != 2 {
			t.Errorf("draw %d: exit %d, want 2:\n%s", d, code, stderr)
		}
		for _, e := range want {
			if at := fmt.Sprintf("%s:%d:%d: %s", path, e.Pos.Line, e.Pos.Col, e.Message); !strings.Contains(stderr, at) {
				t.Errorf("draw %d: the binary does not say %q:\n%s", d, at, stderr)
			}
		}
	}
	t.Logf("%d drawn catalogs refused, %d accepted", refused, accepted)
	if refused == 0 || accepted == 0 {
		t.Errorf("%d drawn catalogs refused, %d accepted: both are wanted", refused, accepted)
	}
	real := writeLayouts(t, dir, "livemcpbench", liveMCPBenchCatalog(t, 1))
	for _, layout := range []string{"json-one-line", "json-pretty"} {
		stdout, stderr, code := run(real[layout])
		if code != 0 || !strings.HasSuffix(stdout, "527 tools\n") {
			t.Errorf("the LiveMCPBench tools (%s): exit %d\n%.300s\n%s", layout, code, stdout, stderr)
		}
	}
}

// TestCatalogLayoutsAgree: the generated tools and the 527 real
// LiveMCPBench tools, saved as JSON on one line, pretty-printed and as
// YAML, read to the same tools in every layout (raw and typed), the YAML
// tool by tool.
func TestCatalogLayoutsAgree(t *testing.T) {
	dir := t.TempDir()
	for _, shape := range catalogShapes {
		files := writeLayouts(t, dir, shape.name, shape.make(t, 300))
		var want *Catalog
		for _, layout := range []string{"json-one-line", "json-pretty", "yaml"} {
			c, err := ReadFile(files[layout])
			if err != nil {
				t.Fatalf("%s, %s: %v", shape.name, layout, err)
			}
			if layout == "yaml" {
				data, err := os.ReadFile(files[layout])
				if err != nil {
					t.Fatal(err)
				}
				if _, byTool := readYAMLTools(files[layout], data); !byTool {
					t.Errorf("%s: the YAML is not read tool by tool", shape.name)
				}
			}
			if want == nil {
				want = c
				continue
			}
			if !reflect.DeepEqual(c.RawTools(), want.RawTools()) {
				t.Errorf("%s, %s: the raw tools differ from JSON's", shape.name, layout)
			}
			g, _ := json.Marshal(c)
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				t.Errorf("%s, %s: the catalog differs from JSON's:\n%.300s\n%.300s", shape.name, layout, g, w)
			}
		}
	}
}

// maxToolsCommandPeak bounds the peak resident set of the built binary's
// `mcptest tools --catalog`, over that of one listing ten tools, per byte
// of the file: the read (maxCatalogPeak) and the description-poisoning
// scan of every tool, each decoded from its text in turn, the collector
// paced as for the read (2.8 to 4.2 measured at 4,000 tools under
// MCPTEST_LONG=1; 3.8 to 5.9 with the scan at the default pace; 8.1 to 24.4
// before catalogs were kept as text and YAML read tool by tool).
const maxToolsCommandPeak = 5.0

// TestProcessToolsCommandMemory runs the built binary's `mcptest tools
// --catalog` over generated tools and real LiveMCPBench tools in each
// layout: every layout lists the same tools with the same warnings. With
// MCPTEST_LONG=1 (.ci/run) it lists 4,000 of each, the least peak of two
// runs held within maxToolsCommandPeak of the file; else 300, the peak
// logged (the scan of a tool's texts takes about 2 ms, so 4,000 tools
// take some 8 s a run).
func TestProcessToolsCommandMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcptest and lists the tools of twelve catalogs")
	}
	n, runs := 300, 1
	if os.Getenv("MCPTEST_LONG") == "1" {
		n, runs = 4000, 2
	}
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	run := func(path string) (string, int64) {
		least := int64(-1)
		var out string
		for range runs {
			stdout, err := os.CreateTemp(dir, "out")
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "tools", "--catalog", path)
			cmd.Stdout, cmd.Stderr = stdout, stdout
			u, err := rsstest.Run(t, cmd)
			stdout.Close()
			text, _ := os.ReadFile(stdout.Name())
			if err != nil || u.Code != 0 {
				t.Fatalf("mcptest tools --catalog %s: exit %d, %v\n%.500s", path, u.Code, err, text)
			}
			out = string(text)
			if least < 0 || u.Peak < least {
				least = u.Peak
			}
		}
		return out, least
	}
	for _, shape := range catalogShapes {
		_, floor := run(writeLayouts(t, dir, shape.name+"-floor", genCatalog(10))["json-one-line"])
		files := writeLayouts(t, dir, shape.name, shape.make(t, n))
		want := ""
		for _, layout := range []string{"json-one-line", "json-pretty", "yaml"} {
			out, peak := run(files[layout])
			st, err := os.Stat(files[layout])
			if err != nil {
				t.Fatal(err)
			}
			ratio := float64(peak-floor) / float64(st.Size())
			t.Logf("%s, %s: %d KiB, %d lines listed, peak RSS %d KiB, %.2fx the file over the floor", shape.name, layout, st.Size()>>10, strings.Count(out, "\n"), peak>>10, ratio)
			if want == "" {
				want = out
			} else if out != want {
				t.Errorf("%s, %s: lists\n%.300s\nJSON on one line lists\n%.300s", shape.name, layout, out, want)
			}
			if n >= 4000 && ratio > maxToolsCommandPeak {
				t.Errorf("%s, %s: peak RSS %.2fx the file, over %.1fx", shape.name, layout, ratio, maxToolsCommandPeak)
			}
		}
	}
}
