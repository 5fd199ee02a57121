package tokens

import (
	"unicode"
	"unicode/utf8"
)

// cl100k_base cuts a text into pieces with one regular expression before
// it merges bytes (splitPattern in the tests):
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// A backtracking matcher run over it allocated a match and a string for
// every piece: counting the catalog of 300,000 tools (65 MB) made
// gigabytes of garbage, most of token_efficiency:'s 12.7 s of CPU, and
// a peak 18 % over SECURITY.md's bound. nextPiece cuts the same pieces
// by hand, in one pass and with no allocation: each alternative above
// is tried in its order at the piece's first rune, and what the
// expression's backtracking would settle on is computed directly.
// TestSplitAsPattern holds it to the expression over drawn texts and
// every rune's class.

// isLetter is \p{L}, isNumber \p{N}, isSpace \s (the tab to the carriage
// return, the space, U+0085 and \p{Z}), as the expression reads them.
func isLetter(r rune) bool { return unicode.IsLetter(r) }
func isNumber(r rune) bool { return unicode.IsNumber(r) }
func isSpace(r rune) bool  { return unicode.IsSpace(r) }

// isBreak is [\r\n].
func isBreak(r rune) bool { return r == '\r' || r == '\n' }

// isOther is [^\s\p{L}\p{N}]: punctuation, symbols, marks and the rest.
func isOther(r rune) bool { return !isSpace(r) && !isLetter(r) && !isNumber(r) }

// runeAt is the rune at byte i of s and its width; width 0 past the end.
// s is valid UTF-8 (count makes it so).
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return 0, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// skip is the byte after the run of runes from byte i that in holds.
func skip(s string, i int, in func(rune) bool) int {
	for {
		r, w := runeAt(s, i)
		if w == 0 || !in(r) {
			return i
		}
		i += w
	}
}

// nextPiece returns the end of the piece that begins at byte i < len(s).
func nextPiece(s string, i int) int {
	r, w := runeAt(s, i)
	if r == '\'' {
		if end := contraction(s, i+w); end > 0 {
			return end
		}
	}
	if isLetter(r) {
		return skip(s, i+w, isLetter)
	}
	if !isBreak(r) && !isNumber(r) {
		if r2, w2 := runeAt(s, i+w); w2 > 0 && isLetter(r2) {
			return skip(s, i+w+w2, isLetter)
		}
	}
	if isNumber(r) {
		end := i + w
		for range 2 {
			r2, w2 := runeAt(s, end)
			if w2 == 0 || !isNumber(r2) {
				break
			}
			end += w2
		}
		return end
	}
	if r == ' ' {
		if r2, w2 := runeAt(s, i+w); w2 > 0 && isOther(r2) {
			return skip(s, skip(s, i+w+w2, isOther), isBreak)
		}
	}
	if isOther(r) {
		return skip(s, skip(s, i+w, isOther), isBreak)
	}
	return spaces(s, i)
}

// spaces is the end of the piece that begins with the whitespace at byte
// i: through the last line break of the run of whitespace (\s*[\r\n]+);
// else the whole run when it ends the text, all of it but its last rune
// when that leaves one (\s+(?!\S)), or the one rune (\s+).
func spaces(s string, i int) int {
	end, lastBreak, last := i, -1, i
	for {
		r, w := runeAt(s, end)
		if w == 0 || !isSpace(r) {
			break
		}
		if isBreak(r) {
			lastBreak = end
		}
		last = end
		end += w
	}
	switch {
	case lastBreak >= 0:
		return lastBreak + 1
	case end == len(s) || last == i:
		return end
	default:
		return last
	}
}

// contraction is the end of 's, 't, 're, 've, 'm, 'll or 'd in any case
// when one begins at byte i (after the apostrophe), else 0.
func contraction(s string, i int) int {
	r, w := runeAt(s, i)
	switch unicode.ToLower(r) {
	case 's', 't', 'm', 'd':
		return i + w
	case 'r', 'v':
		if r2, w2 := runeAt(s, i+w); unicode.ToLower(r2) == 'e' {
			return i + w + w2
		}
	case 'l':
		if r2, w2 := runeAt(s, i+w); unicode.ToLower(r2) == 'l' {
			return i + w + w2
		}
	}
	return 0
}
