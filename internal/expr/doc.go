// Package expr is the assertion grammar of a suite: the targets that name a
// value and the matchers that check it.
//
// Values flowing through are decoded JSON or YAML in the generic form:
// map[string]any, []any, string, float64 (every number), bool and nil.
//
// A target is a string such as result.content[0].text or
// tool["read_file"].score. ParsePath turns it into a Path, whose Lookup
// finds the value in a document; a target that does not parse is a
// *SyntaxError carrying the 0-based rune offset of the problem (its message
// shows the 1-based column).
//
// A matcher is a generic value, such as {">=": 80} or {regex: "^ok"}.
// ParseMatcher (or ParseShorthand, where a bare value means exact) turns it
// into a Matcher; a matcher that does not parse is a *MatcherError carrying
// the RFC 6901 pointer of the offending value inside the matcher and, for a
// mistyped key, a did-you-mean. Matcher.Match checks an actual value and
// says in one line why it failed, for example "50 is less than the minimum
// 80".
//
// Nothing here reads files, the network or the clock: schemas are compiled
// offline, every message is built in a fixed order, and the same inputs
// always give the same results.
package expr
