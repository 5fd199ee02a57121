package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcptest/mcptest/engine/schema"
	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// rawSuiteSchema is the suite schema as generic JSON, read to name the keys
// a section expects when an unknown key is found. It is decoded on first
// use, by a suite with a problem: decoding it in the package's init was
// 2,700 allocations and about 1 ms of every process's start.
var rawSuiteSchema = sync.OnceValue(func() map[string]any {
	var m map[string]any
	if err := json.Unmarshal(schema.SuiteJSON, &m); err != nil {
		panic("embedded suite schema: " + err.Error())
	}
	return m
})

// validateSchema checks the document against the embedded suite schema and
// turns every leaf failure into a positioned error that teaches.
// A suite of more items than maxLoadErrors is checked a piece at a time
// (validatePiecewise), and stop is then the pointer of the item it
// stopped at, "" when it checked them all.
func validateSchema(d *document) (errs diag.List, stop string) {
	if validSuite(d.Root) {
		return nil, ""
	}
	if root, ok := d.Root.(map[string]any); ok && sectionItems(root) > maxLoadErrors {
		errs, stop = validatePiecewise(d, root)
		return dropImpliedRequired(errs), stop
	}
	return dropImpliedRequired(schemaErrors(d, schema.Suite().Validate(d.Root), "", "")), ""
}

// schemaErrors turns the validator's err into positioned errors; a leaf's
// instance location starting with from (when not "") is read as starting
// with to (an item validated alone, as the first of its section, is
// reported at its place in the document).
func schemaErrors(d *document, err error, from, to string) diag.List {
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return diag.List{{Pos: diag.Pos{File: d.File}, Kind: "schema", Message: err.Error()}}
	}
	var out diag.List
	for _, leaf := range gate.SchemaLeaves(ve) {
		if rest, ok := strings.CutPrefix(leaf.InstanceLocation, from); ok && from != "" && (rest == "" || rest[0] == '/') {
			leaf.InstanceLocation = to + rest
		}
		out = append(out, schemaError(d, leaf)...)
	}
	return out
}

// maxLoadErrors is how many errors the load of a suite collects before it
// stops checking its items: a suite generated with one mistake in each of
// a million tests had as many errors, and the validator's tree of them
// and the errors took 2.9 GB to report. The first errors say what the
// rest would; one more says where the checking stopped.
const maxLoadErrors = 1000

// itemSections are the sections of a suite that hold a list of items.
var itemSections = []string{"agents", "tests", "scenarios", "tool_quality", "tools", "compliance", "redteam", "evals"}

// sectionItems is how many items the sections of root hold.
func sectionItems(root map[string]any) int {
	n := 0
	for _, key := range itemSections {
		list, _ := root[key].([]any)
		n += len(list)
	}
	return n
}

// validatePiecewise validates a suite of more items than maxLoadErrors a
// piece at a time: the root with each section cut to its first item, then
// each other item on its own, as the first of its section (validItem; the
// schema states no constraint across the items of a section). It stops
// once maxLoadErrors errors are found, the last error then saying which
// item it stopped at, and stop its pointer.
func validatePiecewise(d *document, root map[string]any) (errs diag.List, stop string) {
	cut := make(map[string]any, len(root))
	for k, v := range root {
		cut[k] = v
		if list, ok := v.([]any); ok && slices.Contains(itemSections, k) && len(list) > 1 {
			cut[k] = list[:1]
		}
	}
	// Each piece's errors are counted as the load reports them: what
	// dropImpliedRequired drops and repeats (diag.List.Sorted) left out.
	errs = dropImpliedRequired(schemaErrors(d, schema.Suite().Validate(cut), "", "")).Sorted()
	for _, key := range itemSections {
		list, _ := root[key].([]any)
		for i := 1; i < len(list); i++ {
			ptr := "/" + key + "/" + strconv.Itoa(i)
			if len(errs) >= maxLoadErrors {
				return append(errs, tooManyErrors(d, ptr)), ptr
			}
			if key == "tests" && fastTest(list[i]) || suiteCheck().validItem(key, list[i]) {
				continue
			}
			err := schema.Suite().Validate(map[string]any{key: []any{list[i]}})
			errs = append(errs, dropImpliedRequired(schemaErrors(d, err, "/"+key+"/0", ptr)).Sorted()...)
		}
	}
	return errs, ""
}

// tooManyErrors is the error that ends a load stopped at maxLoadErrors, at
// the item ptr, the first not checked.
func tooManyErrors(d *document, ptr string) *diag.Error {
	return &diag.Error{Pos: d.At(ptr), Pointer: ptr, Kind: "suite",
		Message: fmt.Sprintf("stopped here after %d errors: the items from here on were not checked (fix those, then load the suite again)", maxLoadErrors)}
}

// dropImpliedRequired removes a "missing required key" error when the same
// section has an unknown key whose did-you-mean is that key: the typo is the
// one problem, reported once.
func dropImpliedRequired(errs diag.List) diag.List {
	hinted := map[string]bool{}
	for _, e := range errs {
		if e.Hint != "" {
			hinted[e.Pointer+"\x00"+e.Hint] = true
		}
	}
	out := errs[:0]
	for _, e := range errs {
		if name, ok := strings.CutPrefix(e.Message, "missing required key "); ok {
			key, _ := strconv.Unquote(strings.Fields(name)[0])
			if hinted[e.Pointer+"\x00did you mean `"+key+"`?"] {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

func keyword(loc string) string {
	return loc[strings.LastIndexByte(loc, '/')+1:]
}

// fromSchemaPointer converts the validator's instance location, whose
// segments are URL-path-escaped, to a plain RFC 6901 pointer.
func fromSchemaPointer(loc string) string {
	if loc == "" {
		return ""
	}
	segs := strings.Split(loc[1:], "/")
	for i, seg := range segs {
		if u, err := url.PathUnescape(seg); err == nil {
			segs[i] = u
		}
	}
	return "/" + strings.Join(segs, "/")
}

func schemaError(d *document, ve *jsonschema.ValidationError) diag.List {
	ptr := fromSchemaPointer(ve.InstanceLocation)
	kw := keyword(ve.KeywordLocation)
	section := sectionName(ptr)
	switch kw {
	case "additionalProperties", "unevaluatedProperties":
		obj, keys := ptr, []string(nil)
		if kw == "unevaluatedProperties" {
			i := strings.LastIndexByte(ptr, '/')
			obj, keys = ptr[:i], []string{yamlpos.UnescapePointer(ptr[i+1:])}
		} else if m, ok := yamlpos.ValueAt(d.Root, ptr).(map[string]any); ok {
			allowed := schemaKeys(ve.AbsoluteKeywordLocation)
			for k := range m {
				if !contains(allowed, k) {
					keys = append(keys, k)
				}
			}
		}
		allowed := schemaKeys(ve.AbsoluteKeywordLocation)
		section = sectionName(obj)
		var out diag.List
		for _, k := range keys {
			e := yamlpos.UnknownKey(d.KeyAt(obj+"/"+yamlpos.EscapePointer(k)), obj, section, k, allowed, "schema")
			if e.Hint == "" {
				e.Hint = stepKeyHint(ve.AbsoluteKeywordLocation, k)
			}
			if slices.Equal(allowed, matcherKeys()) {
				// The matcher grammar knows operator aliases (=>, gte).
				var me *expr.MatcherError
				if _, err := expr.ParseMatcher(map[string]any{k: 0.0}); errors.As(err, &me) {
					e.Hint = me.Hint
				}
			}
			out = append(out, e)
		}
		return out
	case "required":
		var out diag.List
		for _, name := range quotedNames(ve.Message) {
			out = append(out, &diag.Error{Pos: d.At(ptr), Pointer: ptr, Kind: "schema",
				Message: fmt.Sprintf("missing required key %q in %q section", name, section)})
		}
		return out
	case "type":
		return diag.List{{Pos: d.At(ptr), Pointer: ptr, Kind: "schema",
			Message: fmt.Sprintf("%s: %s, got %s", section, typeWant(ve.Message), describe(yamlpos.ValueAt(d.Root, ptr))),
			Hint:    stepShapeHint(ve.AbsoluteKeywordLocation, yamlpos.ValueAt(d.Root, ptr))}}
	case "const", "enum":
		e := &diag.Error{Pos: d.At(ptr), Pointer: ptr, Kind: "schema",
			Message: fmt.Sprintf("%s: %s is not allowed here: %s", section, describe(yamlpos.ValueAt(d.Root, ptr)), ve.Message)}
		if v, ok := yamlpos.ValueAt(d.Root, ptr).(string); ok {
			var allowed []string
			for _, f := range strings.Split(ve.Message, ", ") {
				if u, err := strconv.Unquote(strings.TrimPrefix(f, "value must be one of ")); err == nil {
					allowed = append(allowed, u)
				}
			}
			if sug := diag.Suggest(v, allowed); sug != "" && sug != v {
				e.Hint = "did you mean `" + sug + "`?"
			}
		}
		return diag.List{e}
	case "minProperties", "maxProperties":
		if strings.Contains(ve.AbsoluteKeywordLocation, "/matcher/") || strings.HasSuffix(schemaParent(ve.AbsoluteKeywordLocation), "/matcher") {
			return diag.List{{Pos: d.At(ptr), Pointer: ptr, Kind: "schema",
				Message: fmt.Sprintf("%s: a matcher has exactly one key, one of %s", section, quoteList(matcherKeys()))}}
		}
		if strings.HasSuffix(schemaParent(ve.AbsoluteKeywordLocation), "/assertion/else") || strings.HasSuffix(schemaParent(ve.AbsoluteKeywordLocation), "/assertion") {
			return diag.List{{Pos: d.At(ptr), Pointer: ptr, Kind: "schema",
				Message: fmt.Sprintf("%s: an assertion is {target, matcher} or one `target: {\">=\": 80}` pair", section)}}
		}
	}
	return diag.List{{Pos: d.At(ptr), Pointer: ptr, Kind: "schema", Message: fmt.Sprintf("%s: %s", section, ve.Message)}}
}

// sectionName renders a pointer as the section a reader recognises:
// "" → suite, /agents/0/tool_edges → agents[0].tool_edges.
func sectionName(ptr string) string {
	if ptr == "" {
		return "suite"
	}
	var b strings.Builder
	for _, seg := range strings.Split(ptr[1:], "/") {
		seg = yamlpos.UnescapePointer(seg)
		if _, err := strconv.Atoi(seg); err == nil {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

func schemaParent(loc string) string {
	return loc[:strings.LastIndexByte(loc, '/')]
}

// schemaKeys lists, sorted, the properties the schema object holding the
// failing keyword declares, following local $refs.
func schemaKeys(absLoc string) []string {
	_, frag, _ := strings.Cut(absLoc, "#")
	obj, _ := yamlpos.ValueAt(rawSuiteSchema(), schemaParent(frag)).(map[string]any)
	seen := map[string]bool{}
	for depth := 0; obj != nil && depth < 8; depth++ {
		if props, ok := obj["properties"].(map[string]any); ok {
			for k := range props {
				seen[k] = true
			}
		}
		ref, _ := obj["$ref"].(string)
		if !strings.HasPrefix(ref, "#") {
			break
		}
		obj, _ = yamlpos.ValueAt(rawSuiteSchema(), ref[1:]).(map[string]any)
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func matcherKeys() []string {
	return schemaKeys("#/$defs/matcher/additionalProperties")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}

// quotedNames extracts 'a', 'b' from a validator message.
func quotedNames(msg string) []string {
	var out []string
	for {
		i := strings.IndexByte(msg, '\'')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(msg[i+1:], '\'')
		if j < 0 {
			return out
		}
		out = append(out, msg[i+1:i+1+j])
		msg = msg[i+j+2:]
	}
}

// typeWant rewrites "expected string, but got number" as "expected a string".
func typeWant(msg string) string {
	want, _, _ := strings.Cut(strings.TrimPrefix(msg, "expected "), ", but got")
	var parts []string
	for _, t := range strings.Split(want, " or ") {
		parts = append(parts, article(t))
	}
	return "expected " + strings.Join(parts, " or ")
}

func article(t string) string {
	switch t {
	case "object":
		return "a mapping"
	case "array":
		return "a list"
	case "integer":
		return "an integer"
	case "null":
		return "null"
	}
	return "a " + t
}

// describe names a value's type and, for scalars, the value.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case float64:
		return "the number " + strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		if r := []rune(x); len(r) > 40 {
			x = string(r[:40]) + "…"
		}
		return fmt.Sprintf("the string %q", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}
