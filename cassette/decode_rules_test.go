package cassette

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// decodeDoc decodes doc, valid JSON, with a fresh decoder and returns the
// decoder, for its state, with the value.
func decodeDoc(t *testing.T, doc []byte) (*decoder, any) {
	t.Helper()
	if !json.Valid(doc) {
		t.Fatalf("not valid JSON: %.80q", doc)
	}
	d := newDecoder(doc, &walker{})
	v, _ := d.value(d.space(0))
	return d, v
}

// TestDecodeStrings: a string decodes as encoding/json decodes it,
// whether it is copied as it is (no escape, valid UTF-8) or unquoted: a
// string of one escaped backslash is one backslash, the byte 0x80 alone
// (invalid UTF-8) is U+FFFD as any other invalid byte, 0x7f is ASCII.
func TestDecodeStrings(t *testing.T) {
	for _, tc := range []struct {
		name, raw, want string
	}{
		{"an escaped backslash alone", `"\\"`, `\`},
		{"two escaped backslashes", `"\\\\"`, `\\`},
		{"a backslash escape after text", `"a\\b"`, `a\b`},
		{"plain ASCII", `"abc"`, "abc"},
		{"0x7f, the last ASCII byte", "\"a\x7f\"", "a\x7f"},
		{"0x80 alone, invalid UTF-8", "\"a\x80\"", "a\ufffd"},
		{"0xff alone, invalid UTF-8", "\"\xff\"", "\ufffd"},
		{"valid UTF-8", `"café"`, "café"},
		{"an escaped non-ASCII letter", `"caf\u00e9"`, "café"},
	} {
		for _, doc := range []string{tc.raw, `{"k": ` + tc.raw + `}`} {
			_, v := decodeDoc(t, []byte(doc))
			if m, ok := v.(map[string]any); ok {
				v = m["k"]
			}
			var std any
			if err := json.Unmarshal([]byte(tc.raw), &std); err != nil || std != tc.want {
				t.Fatalf("%s: encoding/json reads %q (%v), the table says %q", tc.name, std, err, tc.want)
			}
			if v != tc.want {
				t.Errorf("%s: %s decodes to %q, want %q", tc.name, doc, v, tc.want)
			}
		}
		// A key decodes as a value does.
		if _, v := decodeDoc(t, []byte(`{`+tc.raw+`: 1}`)); v.(map[string]any)[tc.want] != 1.0 {
			t.Errorf("%s: key %s decodes to %q, want %q", tc.name, tc.raw, v, tc.want)
		}
	}
}

// bigDoc is a document of exactly size bytes (size >= 64): an object
// holding members, padded by a string member "pad".
func bigDoc(t *testing.T, size int, members ...string) []byte {
	t.Helper()
	head := `{` + strings.Join(members, ",")
	if len(members) > 0 {
		head += ","
	}
	head += `"pad": "`
	n := size - len(head) - len(`"}`)
	if n < 0 {
		t.Fatalf("members of %d bytes do not fit %d", len(head), size)
	}
	return []byte(head + strings.Repeat("x", n) + `"}`)
}

// TestDecodeInterning: a document of internFrom bytes (16 KiB) or more
// interns its keys, one byte less does not; a key of up to maxInternLen
// bytes (64, not 65), ASCII or not, is kept once however often it is
// repeated; at most maxInterned (4096) keys are interned per document.
func TestDecodeInterning(t *testing.T) {
	for _, tc := range []struct {
		size   int
		intern bool
	}{
		{internFrom - 1, false},
		{internFrom, true},
		{internFrom + 1, true},
	} {
		d, _ := decodeDoc(t, bigDoc(t, tc.size))
		if (d.strs != nil) != tc.intern {
			t.Errorf("a document of %d bytes: interning %v, want %v", tc.size, d.strs != nil, tc.intern)
		}
	}

	for _, tc := range []struct {
		name, key string
		intern    bool
	}{
		{"a short key", "tool", true},
		{"a non-ASCII key", "café", true},
		{"a key of 64 bytes", strings.Repeat("k", maxInternLen), true},
		{"a key of 65 bytes", strings.Repeat("k", maxInternLen+1), false},
		{"a key of 64 bytes, not ASCII", strings.Repeat("é", maxInternLen/2), true},
		{"an escaped key", `a\nb`, false},
	} {
		member := fmt.Sprintf(`{"%s": 1}`, tc.key)
		d, v := decodeDoc(t, bigDoc(t, internFrom, `"a": `+member, `"b": `+member))
		m := v.(map[string]any)
		var keys []string
		for _, k := range []string{"a", "b"} {
			for k := range m[k].(map[string]any) {
				keys = append(keys, k)
			}
		}
		shared := unsafe.StringData(keys[0]) == unsafe.StringData(keys[1])
		if _, in := d.strs[keys[0]]; in != tc.intern || shared != tc.intern {
			t.Errorf("%s: interned %v, one copy %v, want %v", tc.name, in, shared, tc.intern)
		}
	}

	for _, n := range []int{maxInterned - 1, maxInterned, maxInterned + 1} {
		// n keys, "pad" among them.
		members := make([]string, n-1)
		for i := range members {
			members[i] = fmt.Sprintf(`"%d": 0`, i)
		}
		d, _ := decodeDoc(t, bigDoc(t, n*12, members...))
		if want := min(n, maxInterned); len(d.strs) != want {
			t.Errorf("%d keys: %d interned, want %d", n, len(d.strs), want)
		}
	}
}

// TestDecodeKeySets: repeated keys are found in an object of 16 keys,
// kept in a list, and of 17, kept in a map from the 17th; an object's key
// set is reused by the next object at its depth, so a document of many
// objects needs one set per level of nesting, not one per object.
func TestDecodeKeySets(t *testing.T) {
	for _, n := range []int{1, 15, 16, 17, 40} {
		var s keySet
		for i := range n {
			if first := s.add(fmt.Sprint(i), 10+i); first != -1 {
				t.Fatalf("%d keys: key %d new, add says first at %d", n, i, first)
			}
		}
		if (s.big != nil) != (n > 16) {
			t.Errorf("%d keys: kept in a map %v, want %v", n, s.big != nil, n > 16)
		}
		for i := range n {
			if first := s.add(fmt.Sprint(i), 100+i); first != 10+i {
				t.Errorf("%d keys: key %d repeated, add says first at %d, want %d", n, i, first, 10+i)
			}
		}
		if first := s.add("new", 1); first != -1 {
			t.Errorf("%d keys: a new key found at %d", n, first)
		}
	}

	siblings := `{"a": {"x": {"y": 1}}, "b": {"x": 1, "x": 2}, "c": {"x": {}}` + strings.Repeat(`, "d": {"z": 1}`, 2) + `}`
	for _, tc := range []struct {
		doc        string
		sets, dups int
	}{
		{`{}`, 1, 0},
		{`[{}, {}, {}]`, 1, 0},
		{`{"a": {}}`, 2, 0},
		{siblings, 3, 2},
		{`[` + strings.TrimSuffix(strings.Repeat(`{"k": {"k": 1}}, `, 100), ", ") + `]`, 2, 0},
	} {
		d, _ := decodeDoc(t, []byte(tc.doc))
		if d.depth != 0 || len(d.sets) != tc.sets || len(d.w.dups) != tc.dups {
			t.Errorf("%.40s: depth %d after, %d key sets, %d repeated keys; want 0, %d, %d",
				tc.doc, d.depth, len(d.sets), len(d.w.dups), tc.sets, tc.dups)
		}
	}
}

// TestDecodeFirstOutOfRange: of several numbers beyond the float64
// range, the document's error is the first one's, as encoding/json
// reports it.
func TestDecodeFirstOutOfRange(t *testing.T) {
	for _, doc := range []string{
		`{"a": 1e999, "b": -2e999}`,
		`[1e999, 2e999, 3e999]`,
		`{"a": {"b": 1e999}, "a": 2e999, "c": 3e999}`,
	} {
		d, _ := decodeDoc(t, []byte(doc))
		if want := strings.Index(doc, "1e999"); d.rangeOff != want || d.rangeLit != "1e999" {
			t.Errorf("%s: first out of range %q at %d, want 1e999 at %d", doc, d.rangeLit, d.rangeOff, want)
		}
		_, err := Read("f.json", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), "number 1e999 is out of range") {
			t.Errorf("%s: %v, want number 1e999 out of range", doc, err)
		}
	}
}
