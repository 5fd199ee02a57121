package annotate

import (
	"html"
	"strings"
	"testing"
)

// FuzzTicks: recorded text rendered with its backticked names as code
// holds no markup but the code elements ticks adds, and reads back as
// the text with the paired backticks taken out.
func FuzzTicks(f *testing.F) {
	for _, s := range []string{"", "plain", "`get_weather` was never called", "a `b` c `d", "<img src=x onerror=alert(1)>", "`</code><script>`", "``", "&amp; `&lt;`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := string(ticks(s))
		bare := strings.NewReplacer("<code>", "", "</code>", "").Replace(out)
		if strings.ContainsAny(bare, "<>\"'") {
			t.Fatalf("ticks(%q) = %q: markup beyond its code elements", s, out)
		}
		parts := strings.Split(s, "`")
		want := s
		if len(parts) >= 3 {
			pairs := (len(parts) - 1) / 2 * 2
			want = strings.Replace(s, "`", "", pairs)
		}
		if got := html.UnescapeString(bare); got != strings.ReplaceAll(want, "\x00", "\uFFFD") {
			t.Fatalf("ticks(%q) reads back as %q, want %q", s, got, want)
		}
	})
}
