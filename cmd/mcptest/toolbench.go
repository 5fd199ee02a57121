package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/safefile"
	"github.com/mcptest/mcptest/gate/toolbench"
	"github.com/mcptest/mcptest/live"
)

// toolBench is `mcptest tool-bench run <spec> [--min-drop FRACTION]
// [--json]`.
func (c *Command) toolBench(args []string) error {
	if len(args) > 0 && isHelp(args[0]) {
		args = []string{"run", "--help"}
	}
	if len(args) == 0 || args[0] != "run" {
		return inputErr("usage: mcptest tool-bench run <spec.yml> [--min-drop FRACTION] [--json]")
	}
	fs := c.newFlags("tool-bench run", "mcptest tool-bench run <spec.yml> [--min-drop FRACTION] [--json]")
	minDrop := fs.Float64("min-drop", -1, "exit 1 when the largest selection drop across mutations is below `FRACTION` (0..1)")
	asJSON := fs.Bool("json", false, "print the structured report")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return inputErr("usage: mcptest tool-bench run <spec.yml> [--min-drop FRACTION] [--json]")
	}
	if *minDrop > 1 {
		return inputErr("--min-drop %v: expected a fraction between 0 and 1", *minDrop)
	}
	spec, root, err := readBenchSpec(pos[0])
	if err != nil {
		return &exitError{code: ExitInput, err: err}
	}
	rep, err := toolbench.Run(spec)
	if err != nil {
		var se *toolbench.SpecError
		if errors.As(err, &se) {
			line, col := specPos(root, se)
			return &diag.Error{Pos: diag.Pos{File: pos[0], Line: line, Col: col}, Kind: "tool-bench", Message: se.Error()}
		}
		return inputErr("%s: %v", pos[0], err)
	}
	if *asJSON {
		if err := writeJSON(c.Stdout, rep); err != nil {
			return err
		}
	} else {
		writeBench(c, rep)
	}
	if *minDrop >= 0 && rep.MaxDrop < *minDrop {
		fmt.Fprintf(c.Stderr, "FLOOR tool-bench: the largest selection drop %.2f is below --min-drop %.2f: the descriptions do not carry the selection signal\n", rep.MaxDrop, *minDrop)
		return errFailed
	}
	return nil
}

// benchSpec is the spec file: catalog (inline tools/list result or bare
// array) or catalog_path, intents, mutations.
type benchSpec struct {
	Catalog     json.RawMessage      `json:"catalog"`
	CatalogPath string               `json:"catalog_path"`
	Intents     []toolbench.Intent   `json:"intents"`
	Mutations   []toolbench.Mutation `json:"mutations"`
}

// readBenchSpec reads a spec file, returning its YAML tree too so an
// error can point at the entry it is about.
func readBenchSpec(path string) (out toolbench.Spec, root *yaml.Node, err error) {
	data, err := safefile.ReadFile(path, live.MaxCatalogBytes)
	switch {
	case safefile.IsLimit(err):
		return out, nil, inputErr("spec: %v", err)
	case err != nil:
		return out, nil, fmt.Errorf("read spec: %w", err)
	}
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		return out, nil, fmt.Errorf("spec %q: %v", path, err)
	}
	root = &node
	var doc any
	if err := node.Decode(&doc); err != nil {
		return out, root, fmt.Errorf("spec %q: %v", path, err)
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return out, root, fmt.Errorf("spec %q: expected a mapping with catalog (or catalog_path), intents and mutations", path)
	}
	var unknown []string
	for k := range m {
		if k != "catalog" && k != "catalog_path" && k != "intents" && k != "mutations" {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		return out, root, fmt.Errorf("spec %q: unexpected key %q: expected catalog, catalog_path, intents, mutations", path, unknown[0])
	}
	js, err := json.Marshal(m)
	if err != nil {
		return out, root, fmt.Errorf("spec %q: %v", path, err)
	}
	var s benchSpec
	if err := json.Unmarshal(js, &s); err != nil {
		return out, root, fmt.Errorf("spec %q: %v", path, err)
	}
	var cat *live.Catalog
	switch {
	case len(s.Catalog) > 0 && s.CatalogPath != "":
		return out, root, fmt.Errorf("spec %q: give catalog or catalog_path, not both", path)
	case len(s.Catalog) > 0:
		cat, err = live.ParseCatalog(s.Catalog)
	case s.CatalogPath != "":
		p := s.CatalogPath
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(path), p)
		}
		cat, err = live.ReadFile(p)
	default:
		return out, root, fmt.Errorf("spec %q: no catalog: give an inline catalog or a catalog_path", path)
	}
	if err != nil {
		return out, root, fmt.Errorf("spec %q: catalog: %v", path, err)
	}
	return toolbench.Spec{Tools: cat.RawTools(), Intents: s.Intents, Mutations: s.Mutations}, root, nil
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }

func writeBench(c *Command, rep toolbench.Report) {
	b := rep.Baseline
	fmt.Fprintf(c.Stdout, "baseline     accuracy %s (%d/%d, 95%% CI %s-%s)  TDQS mean %.2f min %.2f  smells %d  ~%d tokens\n",
		pct(b.Accuracy), b.Correct, b.Intents, pct(b.CILow), pct(b.CIHigh), b.TDQSMean, b.TDQSMin, b.SmellSum, b.Tokens)
	for i, m := range rep.Mutations {
		what := m.Kind
		switch m.Kind {
		case toolbench.Truncate:
			what += fmt.Sprintf(" %d", *m.Chars)
		case toolbench.DropKeyword:
			what += " " + annotate.Clean(m.Word)
		}
		var smells []string
		for _, s := range sortedSmells(m.NewSmells) {
			smells = append(smells, fmt.Sprintf("+%s %d", s, m.NewSmells[s]))
		}
		extra := ""
		if len(smells) > 0 {
			extra = "  " + strings.Join(smells, " ")
		}
		fmt.Fprintf(c.Stdout, "mutation %-3d %s %s  accuracy %s (%d/%d)  drop %.2f  %d tokens removed%s\n",
			i+1, annotate.Clean(m.Tool), what, pct(m.Accuracy), m.Correct, m.Intents, m.Drop, m.TokensRemoved, extra)
	}
	fmt.Fprintf(c.Stdout, "max drop %.2f\n", rep.MaxDrop)
}

func sortedSmells(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// specPos locates a spec error in the spec's YAML (1-based line and
// column): the entry's key when there is one, else the entry, else the
// section; 0, 0 when the spec does not hold it (a catalog_path file).
func specPos(root *yaml.Node, e *toolbench.SpecError) (int, int) {
	if root == nil || len(root.Content) == 0 {
		return 0, 0
	}
	doc := root.Content[0]
	section, sub, _ := strings.Cut(e.Section, ".")
	key, val := mapEntry(doc, section)
	if key == nil {
		key, _ = mapEntry(doc, "catalog_path")
		if key != nil && section == "catalog" {
			return key.Line, key.Column
		}
		return 0, 0
	}
	best := key
	if sub != "" && val.Kind == yaml.MappingNode {
		k, v := mapEntry(val, sub)
		if k == nil {
			return best.Line, best.Column
		}
		best, val = k, v
	}
	if e.Index >= 0 && val.Kind == yaml.SequenceNode && e.Index < len(val.Content) {
		item := val.Content[e.Index]
		best = item
		if e.Key != "" {
			if k, v := mapEntry(item, e.Key); k != nil {
				best = v
			}
		}
	}
	return best.Line, best.Column
}

// mapEntry returns the key and value nodes of key in a mapping node.
func mapEntry(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}
