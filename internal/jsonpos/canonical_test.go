package jsonpos

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// encoded is what encoding/json writes for the value data decodes to,
// without HTML escapes; false when it does not decode.
func encoded(data []byte) ([]byte, bool) {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil, false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil, false
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), true
}

// checkCanonical fails unless AppendCanonical writes data as encoding/json
// writes its decoded value, wherever it says ok; it reports ok.
func checkCanonical(t *testing.T, data []byte) bool {
	t.Helper()
	got, end, ok := AppendCanonical([]byte("prefix"), data, 0, nil)
	if !ok {
		return false
	}
	want, decodes := encoded(data)
	if !decodes {
		t.Fatalf("AppendCanonical wrote %s of a value encoding/json does not decode:\n%s", got, data)
	}
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[6:], want) {
		t.Fatalf("AppendCanonical wrote\n%s\nencoding/json\n%s\nof\n%s", got[6:], want, data)
	}
	if Space(data, end) != len(data) {
		t.Fatalf("end %d of %d", end, len(data))
	}
	return true
}

// TestCanonicalGenerated: drawn values (keys and strings with escapes,
// surrogate pairs and non-ASCII, numbers in every form) are written as
// encoding/json writes them, and most are written at all.
func TestCanonicalGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 7))
	ok := 0
	const draws = 600
	for range draws {
		if checkCanonical(t, []byte(drawValue(r, 0))) {
			ok++
		}
	}
	t.Logf("%d of %d drawn values written", ok, draws)
	if ok < draws/3 {
		t.Errorf("only %d of %d drawn values written", ok, draws)
	}
}

// TestCanonicalEdges: the values at the edges of what is copied as
// written and what is rewritten, and what is left to the caller.
func TestCanonicalEdges(t *testing.T) {
	for _, s := range []string{
		`0`, `-0`, `123456789012345`, `1234567890123456`, `12345678901234567890`, `1.0`, `-2.50`, `1e3`, `1E+21`,
		`1e21`, `1e20`, `0.000001`, `0.0000001`, `1e-7`, `5e-324`, `1.7976931348623157e308`, `0e10`, `-0.0`,
		`"plain"`, `"é"`, `"\u00e9"`, `"\ud83d\ude80"`, `"\ud83d"`, `"a\/b"`, `"<&>"`, "\"\u2028\"", `"\u2029"`,
		`"\u0000\u001f\u007f"`, `"\b\f\n\r\t"`, "\"\x7f\"", `{"b": 1, "a": {"d": [], "c": {}}, "é": null, "Z": true}`,
		`[ 1 , [ ] , { } , "x" ]`, `{"\u0061": 1, "b": 2}`,
	} {
		if !checkCanonical(t, []byte(s)) {
			t.Errorf("%s: not written", s)
		}
	}
	for _, s := range []string{`{"a": 1, "a": 2}`, `{"a": 1, "\u0061": 2}`, `1e400`, `-1e400`, `[{"x": {"y": 1, "y": 1}}]`,
		strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)} {
		if _, _, ok := AppendCanonical(nil, []byte(s), 0, nil); ok {
			t.Errorf("%.60s: written, want it left to the caller", s)
		}
	}
	got, _, ok := AppendCanonical(nil, []byte(`{"n": null, "k": null, "x": {"n": null}}`), 0, func(k string) bool { return k == "n" })
	if want := `{"k":null,"x":{"n":null}}`; !ok || string(got) != want {
		t.Errorf("drop: %s %v, want %s", got, ok, want)
	}
}

func FuzzCanonical(f *testing.F) {
	f.Add([]byte(`{"b": [1, 2.5e-9, "\u2028"], "a": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		checkCanonical(t, data)
	})
}
