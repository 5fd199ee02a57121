package jsonpos

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzString: String decodes a JSON string as encoding/json does.
func FuzzString(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"\u00e9\ud83d\ude80"`, `"\ud800"`, "\"\xff\"", `"\"\\\/\b\f\n\r\t"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		if json.Unmarshal(raw, &want) != nil || !bytes.HasPrefix(raw, []byte(`"`)) || StringEnd(raw, 0) != len(raw) {
			return // not one string token alone
		}
		if got := String(raw); got != want {
			t.Fatalf("String(%q) = %q, want %q", raw, got, want)
		}
		// StringIs answers as String does, for the string itself and for
		// strings one byte off it.
		for _, s := range []string{want, want + "x", strings.TrimSuffix(want, want[max(0, len(want)-1):]), "inputSchema"} {
			if StringIs(raw, s) != (want == s) {
				t.Fatalf("StringIs(%q, %q) = %v, String gives %q", raw, s, !(want == s), want)
			}
		}
	})
}
