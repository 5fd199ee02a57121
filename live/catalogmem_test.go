//go:build linux

package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/rsstest"
)

// The bounds a catalog read is held to, per byte of the file, in the
// layout a tools/list result is most often saved in (JSON) and in YAML.
// What a read holds is the catalog's decoded values: Go maps cost about
// 300 bytes for each JSON object however small, so the densest layout
// (one line) is the costliest per byte (docs/benchmarks.md, "Catalogs
// read from their bytes").
const (
	// maxCatalogHeld is the live heap a JSON catalog holds once read.
	maxCatalogHeld = 5.0
	// maxCatalogAlloc is what reading a JSON catalog allocates.
	maxCatalogAlloc = 8.0
	// maxCatalogPeak is the peak resident set of a process that reads a
	// JSON catalog, over that of one reading a catalog of ten tools (4.3
	// to 7.2 measured; the collector runs late on a loaded machine).
	maxCatalogPeak = 10.0
	// maxYAMLCatalogPeak is the same for a YAML catalog, which the one
	// YAML reader (yamlpos, on yaml.v3) reads into a node tree first (19
	// to 22 measured).
	maxYAMLCatalogPeak = 32.0
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
	y, err := yaml.Marshal(doc)
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

// readPeak is the peak resident set of a process that reads the catalog
// file (readCatalogEnv), measured from the tests' launcher.
func readPeak(t *testing.T, path string) int64 {
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
// generated shape and the real LiveMCPBench tools), in each layout, and
// holds what a read costs per byte of the file: the heap the catalog
// holds and what the read allocates (JSON), and the peak resident set of
// a process that reads it, over that of one reading ten tools (JSON and
// YAML; from 4,000 tools on, where the file is not lost in the noise of
// the floor). Under -short only 1,000 tools are read (the peak is then
// logged, not held); MCPTEST_LONG=1 (.ci/run) adds 12,000.
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
				// yaml.v3 writes the real descriptions (lines that start
				// with spaces) as block scalars it cannot read back.
				if size > MaxCatalogBytes || layout == "yaml" && (n > 4000 || shape.name != "generated") {
					continue
				}
				peak := float64(readPeak(t, files[layout])-floorPeak[layout]) / size
				held, alloc := heldAndAllocated(t, files[layout])
				t.Logf("%s, %d tools, %s: %d KiB; held %.2fx, allocated %.2fx, peak RSS %.2fx the file",
					shape.name, n, layout, st.Size()>>10, float64(held)/size, float64(alloc)/size, peak)
				limit := maxCatalogPeak
				if layout == "yaml" {
					limit = maxYAMLCatalogPeak
				} else if float64(held)/size > maxCatalogHeld || float64(alloc)/size > maxCatalogAlloc {
					t.Errorf("%s, %d tools, %s: held %.2fx and allocated %.2fx the file, over %.0fx and %.0fx",
						shape.name, n, layout, float64(held)/size, float64(alloc)/size, maxCatalogHeld, maxCatalogAlloc)
				}
				// A file under a few MiB is lost in the noise of the
				// floor: the peak is held from 4,000 tools on.
				if peak > limit && n >= 4000 {
					t.Errorf("%s, %d tools, %s: peak RSS %.2fx the file, over %.0fx", shape.name, n, layout, peak, limit)
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
	bin := filepath.Join(dir, "mcptest")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/mcptest").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
