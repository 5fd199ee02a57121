package tokens

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// splitPattern is cl100k_base's pre-tokenizer as tiktoken writes it, run
// by the backtracking matcher tiktoken-go uses: nextPiece must cut every
// text as it does.
const splitPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// patternPieces cuts text with splitPattern.
func patternPieces(t testing.TB, re *regexp2.Regexp, text string) []string {
	t.Helper()
	var pieces []string
	m, err := re.FindStringMatch(text)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		pieces = append(pieces, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return pieces
}

// splitPieces cuts text with nextPiece, as count does.
func splitPieces(text string) []string {
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	var pieces []string
	for i := 0; i < len(text); {
		end := nextPiece(text, i)
		pieces = append(pieces, text[i:end])
		i = end
	}
	return pieces
}

// splitAlphabet draws the runes of the texts: each class the expression
// tells apart, with members from several scripts and from both sides of
// the ASCII line, the letters of the contractions in both cases, letters
// whose lower case is not themselves, and bytes that are not UTF-8.
var splitAlphabet = [][]string{
	{"a", "z", "Q", "é", "Ж", "ß", "中", "ﬁ", "ǅ", "ʰ", "ſ", "K", "İ"},                // \p{L}
	{"s", "S", "t", "T", "r", "R", "e", "E", "v", "V", "m", "M", "l", "L", "d", "D"}, // contractions
	{"'", "'", "'", "’"},
	{"0", "7", "9", "²", "½", "Ⅻ", "٣", "৪", "🄀"}, // \p{N}
	{" ", " ", " ", "\t", "\v", "\f", "\u0085", "\u00a0", "\u2028", "\u2029", "\u3000", "\u200b"},
	{"\r", "\n", "\r\n"},
	{".", ",", "!", "-", "_", "(", "$", "€", "😀", "\u0301", "\u200d", "\x00", "\x7f", "<|endoftext|>"},
	{"\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80"}, // not UTF-8
}

// drawText draws a text of up to n alphabet picks, a class at a time, so
// runs of one class (words, digits, spaces) come up as often as mixes.
func drawText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range rng.IntN(n + 1) {
		class := splitAlphabet[rng.IntN(len(splitAlphabet))]
		for range 1 + rng.IntN(3) {
			b.WriteString(class[rng.IntN(len(class))])
		}
	}
	return b.String()
}

// TestSplitAsPattern: 50,000 drawn texts (under -short 5,000) cut into the
// same pieces by nextPiece and by splitPattern.
func TestSplitAsPattern(t *testing.T) {
	re := regexp2.MustCompile(splitPattern, regexp2.None)
	rng := rand.New(rand.NewPCG(40, 17))
	n := 50_000
	if testing.Short() {
		n = 5_000
	}
	for range n {
		text := drawText(rng, 12)
		if got, want := splitPieces(text), patternPieces(t, re, text); !slices.Equal(got, want) {
			t.Fatalf("text %q:\n cut %q\nwant %q", text, got, want)
		}
	}
}

func FuzzSplitAsPattern(f *testing.F) {
	for _, s := range []string{"don't WE'LL", " \t\r\n\u00a0x", "12345 ²½", "(hello) ...world\n\n", "\xff\xfe'S"} {
		f.Add(s)
	}
	re := regexp2.MustCompile(splitPattern, regexp2.None)
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := splitPieces(text), patternPieces(t, re, text); !slices.Equal(got, want) {
			t.Errorf("text %q:\n cut %q\nwant %q", text, got, want)
		}
	})
}

// TestRuneClassesAsPattern: every rune is a letter, a number, whitespace
// and a contraction's letter for nextPiece exactly when it is so for the
// expression (\p{L}, \p{N}, \s, (?i:s) ...): the drawn texts of
// TestSplitAsPattern hold a few runes of each class, this every rune.
func TestRuneClassesAsPattern(t *testing.T) {
	if testing.Short() {
		t.Skip("asks the expression about each of 1,112,064 runes")
	}
	classes := []struct {
		pattern string
		in      func(rune) bool
	}{
		{`^\p{L}$`, isLetter},
		{`^\p{N}$`, isNumber},
		{`^\s$`, isSpace},
		{`^[\r\n]$`, isBreak},
		{`^[^\s\p{L}\p{N}]$`, isOther},
	}
	for _, c := range "stmdrvel" {
		classes = append(classes, struct {
			pattern string
			in      func(rune) bool
		}{`^(?i:` + string(c) + `)$`, func(r rune) bool { return unicode.ToLower(r) == c }})
	}
	for _, c := range classes {
		re := regexp2.MustCompile(c.pattern, regexp2.None)
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if !utf8.ValidRune(r) {
				continue
			}
			want, err := re.MatchRunes([]rune{r})
			if err != nil {
				t.Fatal(err)
			}
			if c.in(r) != want {
				t.Fatalf("%s: rune %U: nextPiece says %v, the expression %v", c.pattern, r, c.in(r), want)
			}
		}
	}
}

// TestCountAllocatesNothing: counting a tool's texts makes no garbage
// (each piece of a match and a string made 300,000 catalog tools' count
// run the collector over a heap past SECURITY.md's bound).
func TestCountAllocatesNothing(t *testing.T) {
	texts := []string{
		"Search the document index for a query and return matching titles.",
		`{"properties":{"q":{"description":"the query, 1 to 200 characters","type":"string"}},"required":["q"],"type":"object"}`,
		"héllo 🌍 世界 don't WE'LL 1234567 \r\n\r\n  \t x",
		// A word of pieceBuf bytes, merged in the arrays at their size.
		strings.Repeat("qz", pieceBuf/2),
	}
	encoder()
	for _, text := range texts {
		if a := testing.AllocsPerRun(20, func() { Count(text) }); a != 0 {
			t.Errorf("Count(%q) allocates %.0f times", text, a)
		}
	}
}

// BenchmarkCount counts the texts of drawn catalog tools: a name, a
// description and a schema.
func BenchmarkCount(b *testing.B) {
	rng := rand.New(rand.NewPCG(40, 19))
	var texts []string
	for range 1000 {
		texts = append(texts, drawText(rng, 40))
	}
	texts = append(texts, `{"properties":{"q":{"description":"the query","type":"string"},"limit":{"minimum":1,"type":"integer"}},"type":"object"}`)
	encoder()
	bytes := 0
	for _, t := range texts {
		bytes += len(t)
	}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range texts {
			Count(t)
		}
	}
}
