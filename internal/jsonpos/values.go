package jsonpos

import (
	"fmt"
	"strconv"
)

// Values decodes JSON values into the Go values encoding/json gives an
// interface (map[string]any, []any, string, float64, bool, nil), equal to
// what json.Unmarshal gives, in less memory when many values repeat: the
// member keys and the short strings and numbers it reads are kept once
// and shared by every value that holds them (a catalog's "type",
// "description", "string", 1). What it shares is bounded (maxShared
// strings of at most maxSharedLen bytes), so unique keys cost no more
// than encoding/json's copies.
//
// The zero Values is ready to use; one Values is used by one goroutine.
type Values struct {
	keys  map[string]string
	boxed map[string]any // a short string's or number's text to its value
}

const (
	maxShared    = 1 << 12
	maxSharedLen = 32
)

// Decode decodes the value starting at i of data, a document json.Valid
// has accepted, and returns it with the offset just after it. A number a
// float64 cannot hold, or a nesting deeper than MaxDepth, is an error.
func (d *Values) Decode(data []byte, i int) (any, int, error) {
	return d.value(data, Space(data, i), 0)
}

func (d *Values) value(data []byte, i, depth int) (any, int, error) {
	if depth > MaxDepth {
		return nil, i, fmt.Errorf("the document nests deeper than %d levels", MaxDepth)
	}
	if i >= len(data) {
		return nil, i, fmt.Errorf("unexpected end of JSON input")
	}
	switch data[i] {
	case '{':
		return d.object(data, i, depth)
	case '[':
		return d.array(data, i, depth)
	case '"':
		end := StringEnd(data, i)
		return d.text(data[i:end]), end, nil
	case 't':
		return true, i + 4, nil
	case 'f':
		return false, i + 5, nil
	case 'n':
		return nil, i + 4, nil
	}
	end := ScalarEnd(data, i)
	lit := data[i:end]
	if v, ok := d.boxed[string(lit)]; ok {
		return v, end, nil
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return nil, end, fmt.Errorf("the number %.40s is out of the range a JSON reader holds (a float64)", lit)
	}
	var v any = f
	d.share(string(lit), v)
	return v, end, nil
}

func (d *Values) object(data []byte, i, depth int) (any, int, error) {
	m := map[string]any{}
	j := Space(data, i+1)
	for j < len(data) && data[j] != '}' {
		kEnd := StringEnd(data, j)
		key := d.key(data[j:kEnd])
		v, end, err := d.value(data, Space(data, Space(data, kEnd)+1), depth+1)
		if err != nil {
			return nil, end, err
		}
		m[key] = v
		j = afterValue(data, end)
	}
	return m, j + 1, nil
}

func (d *Values) array(data []byte, i, depth int) (any, int, error) {
	out := []any{}
	j := Space(data, i+1)
	for j < len(data) && data[j] != ']' {
		v, end, err := d.value(data, j, depth+1)
		if err != nil {
			return nil, end, err
		}
		out = append(out, v)
		j = afterValue(data, end)
	}
	return out, j + 1, nil
}

// afterValue returns the offset of the next member or item after a value
// ending at end, or of the closing bracket.
func afterValue(data []byte, end int) int {
	j := Space(data, end)
	if j < len(data) && data[j] == ',' {
		j = Space(data, j+1)
	}
	return j
}

// key decodes a member key (raw, with its quotes), shared when short.
func (d *Values) key(raw []byte) string {
	if k, ok := d.keys[string(raw)]; ok {
		return k
	}
	k := String(raw)
	if len(raw) <= maxSharedLen && len(d.keys) < maxShared {
		if d.keys == nil {
			d.keys = map[string]string{}
		}
		d.keys[string(raw)] = k
	}
	return k
}

// text decodes a string value (raw, with its quotes), shared when short.
func (d *Values) text(raw []byte) any {
	if v, ok := d.boxed[string(raw)]; ok {
		return v
	}
	var v any = String(raw)
	d.share(string(raw), v)
	return v
}

// share keeps v for its text, when short and while there is room.
func (d *Values) share(text string, v any) {
	if len(text) > maxSharedLen || len(d.boxed) >= maxShared {
		return
	}
	if d.boxed == nil {
		d.boxed = map[string]any{}
	}
	d.boxed[text] = v
}
