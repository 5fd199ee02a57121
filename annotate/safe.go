package annotate

import (
	"strings"
	"unicode"
)

// MaxField is the longest run of recorded text (a case name, a message)
// shown in a summary, comment or issue; longer text is clipped with "…".
const MaxField = 300

// Text makes untrusted text safe for GitHub markdown inline or in a table
// cell, as action.md asks: invisible characters (zero-width, bidi, BOM) are
// dropped, control characters shown as escapes, the length capped at max
// runes (0 means MaxField), then Markdown escapes it, and @mentions and
// #refs are neutralised with a zero-width space entity so that recorded
// text never pings a person or links an issue.
func Text(s string, max int) string {
	if max <= 0 {
		max = MaxField
	}
	s = strings.Map(func(r rune) rune {
		if isInvisible(r) {
			return -1
		}
		return r
	}, s)
	s = Markdown(clip(s, max))
	return strings.NewReplacer(`\@`, `@&#8203;`, `\#`, `#&#8203;`).Replace(s)
}

// isInvisible reports the format characters that render as nothing
// (zero-width spaces and joiners, bidi marks, the BOM, tag characters).
// Bidi overrides and other controls are left to Clean, which shows them.
func isInvisible(r rune) bool {
	if r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
		return false
	}
	return unicode.Is(unicode.Cf, r) || r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0
}

// Fence wraps untrusted text in a fenced code block whose fence is longer
// than any backtick run inside, so the text cannot close it. Control
// characters other than newline and tab are shown as escapes, and an HTML
// comment opener gets a zero-width space after its "<", so the text shows
// as written but holds no `<!--` a marker search could take for a marker.
func Fence(s string) string {
	s = strings.NewReplacer("\r\n", "\n", "\r", "\n", "<!--", "<\u200b!--").Replace(s)
	var b strings.Builder
	for _, r := range s {
		if r != '\n' && r != '\t' && isControl(r) {
			b.WriteString(Clean(string(r)))
			continue
		}
		b.WriteRune(r)
	}
	s = b.String()
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "text\n" + s + "\n" + fence + "\n"
}

// MarkerKey reduces a suite path to the characters a hidden HTML comment
// marker may hold (letters, digits, . _ / -), so a path cannot end the
// comment or forge another marker.
func MarkerKey(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '/':
			return r
		}
		return '-'
	}, s)
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	return clip(s, 200)
}
