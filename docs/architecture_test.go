package docs

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated package graph in architecture.md")

const (
	modulePath = "github.com/mcptest/mcptest/"
	graphBegin = "<!-- BEGIN package graph: generated from `go list` by TestPackageGraph in docs/architecture_test.go; `go test ./docs -run TestPackageGraph -update` rewrites it -->\n"
	graphEnd   = "<!-- END package graph -->\n"
)

// packageImports runs `go list` over the module and returns each package
// (module-relative, docs/ left out) with the module's packages it imports
// in non-test code, both sorted.
func packageImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], modulePath)
		if pkg == "docs" {
			continue
		}
		deps := []string{}
		for _, imp := range fields[1:] {
			if rel, ok := strings.CutPrefix(imp, modulePath); ok {
				deps = append(deps, rel)
			}
		}
		slices.Sort(deps)
		graph[pkg] = deps
	}
	return graph
}

// TestPackageGraph: the package graph in architecture.md is the one
// `go list` reports for the tree, so it cannot go stale. -update rewrites it.
func TestPackageGraph(t *testing.T) {
	graph := packageImports(t)
	if len(graph) < 10 {
		t.Fatalf("go list found %d packages", len(graph))
	}
	data, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(data), graphBegin)
	old, after, ok2 := strings.Cut(rest, graphEnd)
	if !ok || !ok2 {
		t.Fatalf("architecture.md has no %q ... %q section", strings.TrimSpace(graphBegin), strings.TrimSpace(graphEnd))
	}
	want := renderGraph(graph)
	if old == want {
		return
	}
	if *update {
		if err := os.WriteFile("architecture.md", []byte(before+graphBegin+want+graphEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("architecture.md's package graph is not the tree's; run `go test ./docs -run TestPackageGraph -update`\n--- architecture.md\n%s--- go list\n%s", old, want)
}

// renderGraph draws graph as a Mermaid flowchart of its transitive
// reduction (an edge implied by a longer path is left out, so the layers
// show), followed by a table of every package's direct imports and
// importers.
func renderGraph(graph map[string][]string) string {
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	var b strings.Builder
	b.WriteString("```mermaid\nflowchart TD\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", nodeID(p), p)
	}
	for _, p := range pkgs {
		for _, d := range graph[p] {
			if !implied(graph, p, d) {
				fmt.Fprintf(&b, "  %s --> %s\n", nodeID(p), nodeID(d))
			}
		}
	}
	b.WriteString("```\n\n| package | imports | imported by |\n| --- | --- | --- |\n")
	for _, p := range pkgs {
		var by []string
		for _, q := range pkgs {
			if slices.Contains(graph[q], p) {
				by = append(by, q)
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p, codeList(graph[p]), codeList(by))
	}
	return b.String()
}

// implied reports whether p reaches d through another of its imports, so
// the edge p -> d adds nothing to the drawing.
func implied(graph map[string][]string, p, d string) bool {
	for _, via := range graph[p] {
		if via != d && reaches(graph, via, d, map[string]bool{}) {
			return true
		}
	}
	return false
}

// reaches reports whether from imports to, directly or not.
func reaches(graph map[string][]string, from, to string, seen map[string]bool) bool {
	if from == to {
		return true
	}
	if seen[from] {
		return false
	}
	seen[from] = true
	for _, d := range graph[from] {
		if reaches(graph, d, to, seen) {
			return true
		}
	}
	return false
}

// nodeID is a package's Mermaid node id: its path with / turned into _.
func nodeID(pkg string) string { return strings.ReplaceAll(pkg, "/", "_") }

// codeList prints package names as a comma-separated list of code spans,
// or "" for none.
func codeList(pkgs []string) string {
	if len(pkgs) == 0 {
		return ""
	}
	return "`" + strings.Join(pkgs, "`, `") + "`"
}

// namedLayer is the place of a named package in the one-way order, top
// down: cmd -> {action, mcpserver} -> engine -> {annotate, live} ->
// {baseline, gate} -> {report, cassette} -> the leaves (internal/ and
// cli), or 0 for a package the order does not name. Packages of one
// layer do not import one another, the leaves aside.
func namedLayer(pkg string) float64 {
	switch {
	case strings.HasPrefix(pkg, "cmd/"):
		return 6
	case pkg == "action", pkg == "mcpserver":
		return 5
	case pkg == "engine":
		return 4
	case pkg == "annotate", pkg == "live":
		return 3
	case pkg == "baseline", pkg == "gate":
		return 2
	case pkg == "report", pkg == "cassette":
		return 1.5
	case strings.HasPrefix(pkg, "internal/"), pkg == "cli":
		return 1
	}
	return 0
}

// layers places every package of graph: a named package where namedLayer
// puts it; any other package is a leaf (1) when it imports only leaves,
// and otherwise sits just above the highest package it imports
// (engine/agentsuite, built on engine, sits above engine).
func layers(graph map[string][]string) map[string]float64 {
	out := map[string]float64{}
	var place func(p string) float64
	place = func(p string) float64 {
		if l, ok := out[p]; ok {
			return l
		}
		if l := namedLayer(p); l > 0 {
			out[p] = l
			return l
		}
		l := 1.0
		for _, d := range graph[p] {
			if dl := place(d); dl > 1 && dl+0.5 > l {
				l = dl + 0.5
			}
		}
		out[p] = l
		return l
	}
	for p := range graph {
		place(p)
	}
	return out
}

// TestPackageLayers: every import points down the one-way order of
// namedLayer, leaves aside (the packages of internal/ and cli may import
// one another), and no package reaches a higher layer through a
// subpackage: no reporter links the runner and no gate links the engine.
func TestPackageLayers(t *testing.T) {
	graph := packageImports(t)
	layer := layers(graph)
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, pkg := range pkgs {
		for _, d := range graph[pkg] {
			if lp, ld := layer[pkg], layer[d]; ld > lp || (ld == lp && lp != 1) {
				t.Errorf("%s imports %s: imports point down cmd -> action, mcpserver -> engine -> annotate, live -> baseline, gate -> report, cassette -> internal/, cli", pkg, d)
			}
		}
	}
}

// TestLayers holds layers to the order on a small graph.
func TestLayers(t *testing.T) {
	graph := map[string][]string{
		"cmd/x":          {"engine/suite", "annotate"},
		"annotate":       {"gate/leaf", "report"},
		"engine":         {"gate/leaf", "gate", "live"},
		"gate/leaf":      {"internal/diag"},
		"internal/diag":  {},
		"engine/suite":   {"engine"},
		"gate":           {"report", "cassette"},
		"live":           {"cassette"},
		"report":         {"internal/diag"},
		"report/stamp":   {"report"},
		"cassette":       {"internal/diag"},
		"internal/stats": {},
	}
	l := layers(graph)
	want := map[string]float64{"cmd/x": 6, "annotate": 3, "engine": 4, "gate/leaf": 1, "internal/diag": 1,
		"engine/suite": 4.5, "gate": 2, "live": 3, "report": 1.5, "report/stamp": 2, "cassette": 1.5, "internal/stats": 1}
	for p, w := range want {
		if l[p] != w {
			t.Errorf("layer of %s = %v, want %v", p, l[p], w)
		}
	}
}

// TestFormatsAreLeaves: the formats (report, the run envelope; cassette,
// the recordings) link the standard library and internal/ only (no other
// package of mcptest and no library: the envelope judges its floors with
// the judge its caller gives), so a reader of envelopes or recordings
// links neither the runner, the MCP client nor the SDK; and the packages of
// internal/ import no package of mcptest outside internal/.
func TestFormatsAreLeaves(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./report", "./cassette")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		rel, ours := strings.CutPrefix(dep, modulePath)
		first, _, _ := strings.Cut(dep, "/")
		switch {
		case ours && (rel == "report" || rel == "cassette" || strings.HasPrefix(rel, "internal/")):
		case ours:
			t.Errorf("report or cassette links %s", dep)
		case strings.Contains(first, "."):
			t.Errorf("report or cassette links the library %s", dep)
		}
	}
	for pkg, deps := range packageImports(t) {
		for _, d := range deps {
			if strings.HasPrefix(pkg, "internal/") && !strings.HasPrefix(d, "internal/") {
				t.Errorf("%s imports %s: a package of internal/ imports only internal/", pkg, d)
			}
		}
	}
}
