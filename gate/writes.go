package gate

import (
	"strings"
	"unicode"
)

// The verbs a tool name is classified by (NameVerb), as words of the name.
var (
	destructiveNameVerbs = verbSet("delete remove drop destroy purge wipe erase truncate reset kill terminate revoke uninstall")
	readNameVerbs        = verbSet("get list read search fetch find query describe show lookup echo count check view inspect ping status")
	writeNameVerbs       = verbSet("create update write set put post send insert edit move rename upload save modify patch append publish deploy toggle " +
		"add replace cancel book transfer submit merge close assign approve")
)

// What a tool's name says it does (NameVerb).
const (
	VerbRead        = "read-only"
	VerbWrite       = "mutating"
	VerbDestructive = "destructive"
)

func verbSet(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}

// MayWrite reports whether calling a tool may change state, the one rule
// `generate suite` (which holds such a tool's tests back) and `generate
// agent-suite` (which restricts it, never proposing a call to it as
// expected behaviour) share. annotations is the tool's annotations object
// as the server wrote it, nil when it sent none. The hints read by the MCP
// defaults: readOnlyHint is false unless the server sent true, and a tool
// that is not read-only may write (destructiveHint, true unless the server
// sent false, says only how); a hint that is not a boolean is no hint. A
// read-only tool also annotated destructiveHint true contradicts itself
// and is taken to write. With no annotations the name decides: a write or
// destructive verb among its words (NameVerb).
func MayWrite(name string, annotations any) bool {
	if ann, ok := annotations.(map[string]any); ok {
		readOnly, _ := ann["readOnlyHint"].(bool)
		destructive, _ := ann["destructiveHint"].(bool)
		return !readOnly || destructive
	}
	v := NameVerb(name)
	return v == VerbDestructive || v == VerbWrite
}

// NameVerb classifies a tool by the words of its name (snake_case,
// kebab-case, dotted or camelCase, so a service prefix such as slack_ or
// the casing of DeleteUser hides nothing): VerbDestructive when any word
// is a destructive verb, else VerbRead or VerbWrite by its first read or
// write verb, else "".
func NameVerb(name string) string {
	words := nameWords(name)
	for _, w := range words {
		if destructiveNameVerbs[w] {
			return VerbDestructive
		}
	}
	for _, w := range words {
		switch {
		case readNameVerbs[w]:
			return VerbRead
		case writeNameVerbs[w]:
			return VerbWrite
		}
	}
	return ""
}

// nameWords splits a name into lower-case words at every character that
// is not a letter or digit and at camelCase boundaries (HTTPSendRequest is
// http, send, request).
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				flush()
			}
		}
		cur = append(cur, unicode.ToLower(r))
	}
	flush()
	return words
}
