package jsonpos

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// checkValues holds Values.Decode to json.Unmarshal into an interface: the
// same value, or both an error.
func checkValues(t *testing.T, data []byte) {
	t.Helper()
	if !json.Valid(data) {
		return
	}
	var want any
	wantErr := json.Unmarshal(data, &want)
	var d Values
	got, end, err := d.Decode(data, 0)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%.200q: Decode error %v, json.Unmarshal %v", data, err, wantErr)
	}
	if err != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q: Decode gives %#v, json.Unmarshal %#v", data, got, want)
	}
	if rest := strings.TrimSpace(string(data[end:])); rest != "" {
		t.Fatalf("%.200q: Decode stopped before %q", data, rest)
	}
	// A second document through the same Values, whose shared strings and
	// numbers are now filled, decodes the same.
	again, _, _ := d.Decode(data, 0)
	if !reflect.DeepEqual(again, want) {
		t.Fatalf("%.200q: decoded again %#v", data, again)
	}
}

func FuzzValues(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[1e400]`, `{"k\u00e9":"\ud83d\ude80","x":[true,false,null,-0,1.5e-7]}`,
		`"lone \ud83d"`, "\"bad \xff byte\"", `{"":{"":[]}}`, strings.Repeat("[", 10002) + strings.Repeat("]", 10002),
		` { "tools" : [ { "name" : "a" } ] } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkValues(t, data) })
}

// TestValuesGenerated: drawn documents of every kind of value, keys and
// strings repeated (shared) and unique, decode as json.Unmarshal decodes
// them.
func TestValuesGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 5))
	for range 300 {
		checkValues(t, []byte(drawValue(r, 0)))
	}
}

func drawValue(r *rand.Rand, depth int) string {
	words := []string{"type", "string", "description", "é", `q\"uote`, `\u00e9`, `\ud83d\ude80`, "object", strings.Repeat("long", 12)}
	switch k := r.IntN(8); {
	case depth > 4 || k == 0:
		return []string{"true", "false", "null", "0", "1", "-2.5", "1e3", "12345678901234567890", "1E-400"}[r.IntN(9)]
	case k < 3:
		return `"` + words[r.IntN(len(words))] + fmt.Sprint(r.IntN(3)) + `"`
	case k < 5:
		items := make([]string, r.IntN(12))
		for i := range items {
			items[i] = drawValue(r, depth+1)
		}
		return "[" + strings.Join(items, ", ") + "]"
	}
	members := make([]string, r.IntN(12))
	for i := range members {
		members[i] = `"` + words[r.IntN(len(words))] + fmt.Sprint(r.IntN(4)) + `": ` + drawValue(r, depth+1)
	}
	return "{" + strings.Join(members, ",\n ") + "}"
}
