package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/safefile"
	"github.com/mcptest/mcptest/engine/yamlpos"
	"github.com/mcptest/mcptest/gate/toolbench"
	"github.com/mcptest/mcptest/live"
)

// The keys of a tool-bench spec, of an intent and of a mutation.
var (
	specKeys     = []string{"catalog", "catalog_path", "intents", "mutations"}
	intentKeys   = []string{"gold", "query"}
	mutationKeys = []string{"chars", "kind", "tool", "word"}
)

// specYAML words the shared YAML reader's errors for a spec.
var specYAML = yamlpos.Options{Noun: "spec", Kind: "tool-bench",
	Empty: "the spec is empty: expected a mapping with catalog (or catalog_path), intents and mutations"}

// specReader decodes a spec node by node, collecting every problem with
// its position.
type specReader struct {
	path string
	doc  *yamlpos.Doc
	errs diag.List
}

func (r *specReader) errorf(ptr, format string, args ...any) {
	r.errs = append(r.errs, &diag.Error{Pos: r.doc.At(ptr), Pointer: ptr, Kind: "tool-bench", Message: fmt.Sprintf(format, args...)})
}

// readBenchSpec reads a spec file: every problem of the file (syntax,
// unknown keys with a did-you-mean, values of the wrong type, a missing or
// doubled catalog) is returned at once as a positioned diag.List; a file
// that cannot be read is an input error (exit 2). The Doc is returned too, so a problem
// toolbench finds later can be placed.
func readBenchSpec(path string) (toolbench.Spec, *yamlpos.Doc, error) {
	data, err := safefile.ReadFile(path, live.MaxCatalogBytes)
	switch {
	case safefile.IsLimit(err):
		return toolbench.Spec{}, nil, inputErr("spec: %v", err)
	case err != nil:
		return toolbench.Spec{}, nil, inputErr("read spec: %w", err)
	}
	return parseBenchSpec(path, data)
}

// parseBenchSpec is readBenchSpec on the bytes of the spec at path.
func parseBenchSpec(path string, data []byte) (toolbench.Spec, *yamlpos.Doc, error) {
	r := &specReader{path: path, doc: yamlpos.Read(path, data, specYAML)}
	r.errs = r.doc.Errs
	var spec toolbench.Spec
	if r.doc.Node != nil && len(r.errs) == 0 {
		spec = r.spec()
	}
	if len(r.errs) > 0 {
		if _, isMap := r.doc.Root.(map[string]any); isMap {
			for _, e := range r.errs {
				if e.Pos.File == path && e.Source == nil {
					e.Source = data
				}
			}
		}
		return spec, r.doc, r.errs.Sorted()
	}
	return spec, r.doc, nil
}

// spec decodes the root mapping.
func (r *specReader) spec() toolbench.Spec {
	if _, ok := r.doc.Root.(map[string]any); !ok {
		r.errorf("", "expected a mapping with catalog (or catalog_path), intents and mutations")
		return toolbench.Spec{}
	}
	r.errs = append(r.errs, r.doc.UnknownKeys("", "spec", specKeys, "tool-bench")...)
	var s toolbench.Spec
	for i := range r.list("/intents", "an intent {query, gold}") {
		s.Intents = append(s.Intents, r.intent("/intents/"+strconv.Itoa(i)))
	}
	for i := range r.list("/mutations", "a mutation {tool, kind}") {
		s.Mutations = append(s.Mutations, r.mutation("/mutations/"+strconv.Itoa(i)))
	}
	s.Tools = r.catalog()
	return s
}

// list returns the list at ptr, nil when it is absent or not a list (an
// error, naming what its items are).
func (r *specReader) list(ptr, item string) []any {
	v := r.doc.Value(ptr)
	l, ok := v.([]any)
	if !ok && v != nil {
		r.errorf(ptr, "%s: expected a list, each item %s", ptr[1:], item)
	}
	return l
}

// entry checks the item at ptr is a mapping with keys among allowed.
func (r *specReader) entry(ptr, what string, allowed []string) bool {
	section := sectionOf(ptr)
	if _, ok := r.doc.Value(ptr).(map[string]any); !ok {
		r.errorf(ptr, "%s: expected %s", section, what)
		return false
	}
	r.errs = append(r.errs, r.doc.UnknownKeys(ptr, section, allowed, "tool-bench")...)
	return true
}

func (r *specReader) intent(ptr string) toolbench.Intent {
	var in toolbench.Intent
	if !r.entry(ptr, "an intent {query, gold}", intentKeys) {
		return in
	}
	in.Query = r.str(ptr + "/query")
	for i, g := range r.list(ptr+"/gold", "a tool name") {
		if s, ok := g.(string); ok {
			in.Gold = append(in.Gold, s)
		} else {
			r.errorf(ptr+"/gold/"+strconv.Itoa(i), "%s: expected a tool name, a string", sectionOf(ptr+"/gold/"+strconv.Itoa(i)))
		}
	}
	return in
}

func (r *specReader) mutation(ptr string) toolbench.Mutation {
	var m toolbench.Mutation
	if !r.entry(ptr, "a mutation {tool, kind}", mutationKeys) {
		return m
	}
	m.Tool, m.Kind, m.Word = r.str(ptr+"/tool"), r.str(ptr+"/kind"), r.str(ptr+"/word")
	if v := r.doc.Value(ptr + "/chars"); v != nil {
		n, exact := r.doc.Int(ptr + "/chars")
		if f, ok := v.(float64); !ok || !exact || f != float64(n) || n < 0 || n > 1<<31 {
			r.errorf(ptr+"/chars", "%s: expected a whole number of characters (>= 0)", sectionOf(ptr+"/chars"))
		} else {
			c := int(n)
			m.Chars = &c
		}
	}
	return m
}

// str returns the string at ptr, "" when it is absent (an error when it
// is another type).
func (r *specReader) str(ptr string) string {
	v := r.doc.Value(ptr)
	s, ok := v.(string)
	if !ok && v != nil {
		r.errorf(ptr, "%s: expected a string", sectionOf(ptr))
	}
	return s
}

// catalog reads the inline catalog or the catalog_path file, placing its
// problems at the key that gave it.
func (r *specReader) catalog() []map[string]any {
	inline, path := r.doc.Value("/catalog"), r.doc.Value("/catalog_path")
	switch {
	case inline != nil && path != nil:
		r.errs = append(r.errs, &diag.Error{Pos: r.doc.KeyAt("/catalog_path"), Pointer: "/catalog_path", Kind: "tool-bench",
			Message: "give catalog or catalog_path, not both"})
		return nil
	case inline != nil:
		js, err := json.Marshal(inline)
		if err != nil {
			r.errorf("/catalog", "catalog: %v", err)
			return nil
		}
		cat, err := live.ParseCatalog(js)
		if err != nil {
			r.errorf("/catalog", "catalog: %v", err)
			return nil
		}
		return cat.RawTools()
	case path != nil:
		return r.catalogFile(path)
	}
	r.errorf("", "no catalog: give an inline catalog or a catalog_path")
	return nil
}

func (r *specReader) catalogFile(v any) []map[string]any {
	p, ok := v.(string)
	if !ok || p == "" {
		r.errorf("/catalog_path", "catalog_path: expected the path of a catalog file, relative to the spec")
		return nil
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(r.path), p)
	}
	cat, err := live.ReadFile(p)
	var l diag.List
	switch {
	case errors.As(err, &l):
		r.errs = append(r.errs, l...)
		return nil
	case err != nil:
		r.errorf("/catalog_path", "catalog_path: %v", err)
		return nil
	}
	return cat.RawTools()
}

// sectionOf names the value at ptr as messages do: /intents/0/gold is
// intents[0].gold.
func sectionOf(ptr string) string {
	var b strings.Builder
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if _, err := strconv.Atoi(seg); err == nil {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(yamlpos.UnescapePointer(seg))
	}
	return b.String()
}

// specPos places a problem toolbench found in the spec: the section's key
// for the whole section, else the entry's value at its key, else the
// entry; a problem of a catalog read from catalog_path at that key.
func specPos(d *yamlpos.Doc, e *toolbench.SpecError) diag.Pos {
	section, sub, _ := strings.Cut(e.Section, ".")
	if section == "catalog" && d.Value("/catalog") == nil && d.Value("/catalog_path") != nil {
		return d.KeyAt("/catalog_path")
	}
	ptr := "/" + section
	if _, isMap := d.Value(ptr).(map[string]any); isMap && sub != "" {
		ptr += "/" + yamlpos.EscapePointer(sub)
	}
	if e.Index < 0 {
		return d.KeyAt(ptr)
	}
	ptr += "/" + strconv.Itoa(e.Index)
	if e.Key != "" {
		ptr += "/" + yamlpos.EscapePointer(e.Key)
	}
	return d.At(ptr)
}
