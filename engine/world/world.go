package world

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/expr"
)

// MaxExact is the largest magnitude a number in the world may reach: 2^53,
// beyond which a JSON number no longer holds every integer exactly. An inc,
// dec or set that would pass it is an error, never a silent rounding.
const MaxExact = 1 << 53

// Path is a dotted state path, one object key per segment.
type Path []string

// ParsePath splits a dotted path. Every segment must be non-empty.
func ParsePath(s string) (Path, error) {
	if s == "" {
		return nil, fmt.Errorf("empty path: expected dotted object keys such as `inventory.widgets`")
	}
	p := Path(strings.Split(s, "."))
	for i, seg := range p {
		if seg == "" {
			return nil, fmt.Errorf("path %q has an empty segment (segment %d): expected dotted object keys such as `inventory.widgets`", s, i+1)
		}
	}
	return p, nil
}

// String joins the segments with dots.
func (p Path) String() string { return strings.Join(p, ".") }

// Get follows p through root. ok is false when a key is missing or a
// segment meets a value that is not an object.
func Get(root any, p Path) (v any, ok bool) {
	v = root
	for _, seg := range p {
		m, isMap := v.(map[string]any)
		if !isMap {
			return nil, false
		}
		if v, ok = m[seg]; !ok {
			return nil, false
		}
	}
	return v, true
}

// set writes v at p in root, creating missing parent objects. It fails when
// a parent exists and is not an object.
func set(root map[string]any, p Path, v any) error {
	m := root
	for i, seg := range p[:len(p)-1] {
		next, ok := m[seg]
		if !ok || next == nil {
			child := map[string]any{}
			m[seg] = child
			m = child
			continue
		}
		child, isMap := next.(map[string]any)
		if !isMap {
			return fmt.Errorf("cannot write `%s`: `%s` is %s, not an object", p, p[:i+1], Describe(next))
		}
		m = child
	}
	m[p[len(p)-1]] = v
	return nil
}

// Clone deep-copies a decoded JSON value.
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Clone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Clone(e)
		}
		return out
	}
	return v
}

// Describe names the type of a value for a message: "the string \"x\"".
func Describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "the boolean " + strconv.FormatBool(x)
	case string:
		return "the string " + expr.Render(x)
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	if f, ok := expr.Number(v); ok {
		return "the number " + expr.FormatNumber(f)
	}
	return fmt.Sprintf("a %T", v)
}

// Change is one leaf that differs between two states. A missing side has
// its Has flag false.
type Change struct {
	Path      string
	Before    any
	HadBefore bool
	After     any
	HasAfter  bool
}

// String renders the change as "path: before → after".
func (c Change) String() string {
	side := func(v any, ok bool) string {
		if !ok {
			return "(absent)"
		}
		return expr.Render(v)
	}
	return fmt.Sprintf("%s: %s → %s", c.Path, side(c.Before, c.HadBefore), side(c.After, c.HasAfter))
}

// Diff lists the leaves that differ between before and after, sorted by
// path. Objects are compared key by key; any other value (a list included)
// is a leaf.
func Diff(before, after any) []Change {
	var out []Change
	diff("", before, true, after, true, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func diff(path string, a any, hasA bool, b any, hasB bool, out *[]Change) {
	am, aIsMap := a.(map[string]any)
	bm, bIsMap := b.(map[string]any)
	if hasA && hasB && aIsMap && bIsMap {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for k := range keys {
			av, ha := am[k]
			bv, hb := bm[k]
			p := k
			if path != "" {
				p = path + "." + k
			}
			diff(p, av, ha, bv, hb, out)
		}
		return
	}
	if hasA == hasB && (!hasA || expr.Equal(a, b)) {
		return
	}
	*out = append(*out, Change{Path: path, Before: a, HadBefore: hasA, After: b, HasAfter: hasB})
}

// Mismatch is one expect_state path whose value is not the expected one.
type Mismatch struct {
	Path     string
	Expected any
	Actual   any
	Present  bool
}

// String renders the mismatch as "path: expected X, actual Y".
func (m Mismatch) String() string {
	actual := "absent"
	if m.Present {
		actual = expr.Render(m.Actual)
	}
	return fmt.Sprintf("`%s`: expected %s, actual %s", m.Path, expr.Render(m.Expected), actual)
}
