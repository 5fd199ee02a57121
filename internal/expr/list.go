package expr

// List is a list value whose elements are built when read: a run's calls
// as a target reads them, each call's document made by At and dropped by
// the reader once used, so that a check over a run of a million calls
// holds one call's document at a time, not a million. Wherever a value
// may be a []any (Path.Lookup, Equal, Render, every Matcher, Schema's
// checks) it may be a List, and reads the same: a List and the []any of
// its elements are equal, render alike and match alike.
type List interface {
	// Len is the number of elements.
	Len() int
	// At builds the element at i, 0 <= i < Len. Each call may build a
	// new value; a reader does not change it.
	At(i int) any
}

// sliceList is a []any read as a List.
type sliceList []any

func (l sliceList) Len() int     { return len(l) }
func (l sliceList) At(i int) any { return l[i] }

// listOf reports v as a List when it is a list: a []any or a List.
func listOf(v any) (List, bool) {
	switch x := v.(type) {
	case []any:
		return sliceList(x), true
	case List:
		return x, true
	}
	return nil, false
}

// Materialize returns v with every List in it built into a []any, the
// maps and lists that hold one copied, the rest shared with v: a value
// built from decoded JSON alone is returned as it is. It builds every
// element, so it is for a value known to be small (a Schema's check
// measures a value before it builds it).
func Materialize(v any) any {
	out, _ := materialize(v)
	return out
}

// materialize is Materialize, and whether v held a List.
func materialize(v any) (any, bool) {
	switch x := v.(type) {
	case List:
		out := make([]any, x.Len())
		for i := range out {
			out[i], _ = materialize(x.At(i))
		}
		return out, true
	case []any:
		var out []any
		for i, e := range x {
			m, changed := materialize(e)
			if changed && out == nil {
				out = append(make([]any, 0, len(x)), x[:i]...)
			}
			if out != nil {
				out = append(out, m)
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			m, changed := materialize(e)
			if changed && out == nil {
				out = make(map[string]any, len(x))
			}
			if changed {
				out[k] = m
			}
		}
		if out == nil {
			return v, false
		}
		for k, e := range x {
			if _, done := out[k]; !done {
				out[k] = e
			}
		}
		return out, true
	}
	return v, false
}
