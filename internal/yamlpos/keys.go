package yamlpos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
)

// UnknownKey is the error for key, found at pos in the mapping that
// section names, when the mapping's keys are the allowed ones: it names
// the allowed set and, for a near miss, suggests the key meant. ptr is
// the pointer of the mapping.
func UnknownKey(pos diag.Pos, ptr, section, key string, allowed []string, kind string) *diag.Error {
	e := &diag.Error{Pos: pos, Pointer: ptr, Kind: kind,
		Message: fmt.Sprintf("unexpected key %q for %q section. expected one of %s", key, section, QuoteList(allowed))}
	if s := diag.Suggest(key, allowed); s != "" {
		e.Hint = "did you mean `" + s + "`?"
	}
	return e
}

// UnknownKeys returns an UnknownKey error for every key of the mapping at
// ptr outside allowed, in the order of the file. It returns nil when the
// value at ptr is not a mapping.
func (d *Doc) UnknownKeys(ptr, section string, allowed []string, kind string) diag.List {
	m, ok := d.Value(ptr).(map[string]any)
	if !ok {
		return nil
	}
	var errs diag.List
	for k := range m {
		if !slices.Contains(allowed, k) {
			kp := ptr + "/" + EscapePointer(k)
			errs = append(errs, UnknownKey(d.KeyAt(kp), ptr, section, k, allowed, kind))
		}
	}
	return errs.Sorted()
}

// Value returns the value at ptr, nil when there is none.
func (d *Doc) Value(ptr string) any { return ValueAt(d.Root, ptr) }

// ValueAt returns the value at the RFC 6901 pointer ptr in a generic
// value v, nil when there is none.
func ValueAt(v any, ptr string) any {
	if ptr == "" {
		return v
	}
	for _, seg := range strings.Split(ptr[1:], "/") {
		switch c := v.(type) {
		case map[string]any:
			v = c[UnescapePointer(seg)]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

// QuoteList renders keys sorted and quoted, comma-separated.
func QuoteList(keys []string) string {
	q := slices.Clone(keys)
	slices.Sort(q)
	for i, k := range q {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}
