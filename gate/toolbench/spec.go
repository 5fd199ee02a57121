package toolbench

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// MaxSpecBytes bounds a spec file, as a catalog file is bounded: a spec is
// untrusted input.
const MaxSpecBytes = 16 << 20

// Catalogs reads the catalog a spec gives, inline or by catalog_path, into
// decoded tools/list entries. mcptest hands in the catalog readers of its
// MCP client, so a spec's catalog reads as every other catalog does and
// this package links no client.
type Catalogs struct {
	// Parse reads an inline catalog, given as JSON; its error is placed
	// at the catalog key.
	Parse func(data []byte) ([]map[string]any, error)
	// File reads the catalog file at path; a diag.List it returns is
	// passed on as it is, any other error is placed at catalog_path.
	File func(path string) ([]map[string]any, error)
}

// CatalogsOf builds Catalogs from a client's readers of an inline
// catalog and of a catalog file, whose catalogs give their tools as
// decoded tools/list entries.
func CatalogsOf[C interface{ RawTools() []map[string]any }](parse func(data []byte) (C, error), file func(path string) (C, error)) Catalogs {
	return Catalogs{
		Parse: func(data []byte) ([]map[string]any, error) { return rawTools(parse(data)) },
		File:  func(path string) ([]map[string]any, error) { return rawTools(file(path)) },
	}
}

func rawTools[C interface{ RawTools() []map[string]any }](c C, err error) ([]map[string]any, error) {
	if err != nil {
		return nil, err
	}
	return c.RawTools(), nil
}

// The keys of a spec, of an intent and of a mutation.
var (
	specKeys     = []string{"catalog", "catalog_path", "intents", "mutations"}
	intentKeys   = []string{"gold", "query"}
	mutationKeys = []string{"chars", "kind", "tool", "word"}
)

// specYAML words the shared YAML reader's errors for a spec.
var specYAML = yamlpos.Options{Noun: "spec", Kind: "tool-bench",
	Empty: "the spec is empty: expected a mapping with catalog (or catalog_path), intents and mutations"}

// RunFile reads the spec at path and runs it. Every problem of the spec,
// whether its reader or Validate finds it, is a positioned diag error
// (a diag.List or a *diag.Error); a file that cannot be read is wrong
// input too, a *diag.InputError that names it.
func RunFile(path string, cats Catalogs) (Report, error) {
	spec, doc, err := ReadSpec(path, cats)
	var l diag.List
	var d *diag.Error
	switch {
	case errors.As(err, &l), errors.As(err, &d):
		return Report{}, err
	case err != nil:
		return Report{}, &diag.InputError{Err: err}
	}
	rep, err := Run(spec)
	var se *SpecError
	switch {
	case errors.As(err, &se):
		return Report{}, &diag.Error{Pos: SpecPos(doc, se), Kind: "tool-bench", Message: se.Error(), Source: doc.Data}
	case err != nil:
		return Report{}, diag.Input("%s: %v", path, err)
	}
	return rep, nil
}

// ReadSpec reads a spec file: every problem of the file (syntax, unknown
// keys with a did-you-mean, values of the wrong type, a missing or doubled
// catalog) is returned at once as a positioned diag.List; a file that
// cannot be read, or is over MaxSpecBytes, is another error. The Doc is
// returned too, so a problem Validate finds later can be placed (SpecPos).
func ReadSpec(path string, cats Catalogs) (Spec, *yamlpos.Doc, error) {
	data, err := safefile.ReadFile(path, MaxSpecBytes)
	switch {
	case safefile.IsLimit(err):
		return Spec{}, nil, fmt.Errorf("spec: %v", err)
	case err != nil:
		return Spec{}, nil, fmt.Errorf("read spec: %w", err)
	}
	return ParseSpec(path, data, cats)
}

// ParseSpec is ReadSpec on the bytes of the spec at path.
func ParseSpec(path string, data []byte, cats Catalogs) (Spec, *yamlpos.Doc, error) {
	r := &specReader{path: path, doc: yamlpos.Read(path, data, specYAML), cats: cats}
	r.errs = r.doc.Errs
	var spec Spec
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

// specReader decodes a spec node by node, collecting every problem with
// its position.
type specReader struct {
	path string
	doc  *yamlpos.Doc
	cats Catalogs
	errs diag.List
}

func (r *specReader) errorf(ptr, format string, args ...any) {
	r.errs = append(r.errs, &diag.Error{Pos: r.doc.At(ptr), Pointer: ptr, Kind: "tool-bench", Message: fmt.Sprintf(format, args...)})
}

// spec decodes the root mapping.
func (r *specReader) spec() Spec {
	if _, ok := r.doc.Root.(map[string]any); !ok {
		r.errorf("", "expected a mapping with catalog (or catalog_path), intents and mutations")
		return Spec{}
	}
	r.errs = append(r.errs, r.doc.UnknownKeys("", "spec", specKeys, "tool-bench")...)
	var s Spec
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

func (r *specReader) intent(ptr string) Intent {
	var in Intent
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

func (r *specReader) mutation(ptr string) Mutation {
	var m Mutation
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
		tools, err := r.cats.Parse(js)
		if err != nil {
			r.errorf("/catalog", "catalog: %v", err)
			return nil
		}
		return tools
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
	tools, err := r.cats.File(p)
	var l diag.List
	switch {
	case errors.As(err, &l):
		r.errs = append(r.errs, l...)
		return nil
	case err != nil:
		r.errorf("/catalog_path", "catalog_path: %v", err)
		return nil
	}
	return tools
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

// SpecPos places a problem Validate found in the spec d was read from: the
// section's key for the whole section, else the entry's value at its key,
// else the entry; a problem of a catalog read from catalog_path at that
// key.
func SpecPos(d *yamlpos.Doc, e *SpecError) diag.Pos {
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
