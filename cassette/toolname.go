package cassette

import (
	"slices"
	"strings"
	"unicode"
)

// ResolveTool finds the catalog tool a recorded tool name stands for.
// Frameworks name a server's tools their own way in their logs: Mastra
// prefixes the server (everything_get-sum), the Agents SDK sanitizes the
// name to fit a function name (get_sum). The rule, in this order:
//
//  1. the catalog name equal to recorded;
//  2. else the catalog names equal to recorded once both are folded
//     (case, and '-', '_', '.' and ' ' read the same);
//  3. else, dropping the shortest prefix of recorded that ends in a
//     separator ('_', '.', ':' or '/', runs of them as one: server_,
//     server__, server., server:) and then the next shortest, the
//     catalog names equal to what is left, folded; the first cut that
//     matches any decides.
//
// A step that matches one distinct name resolves to it; one that matches
// two or more resolves to none, and ambiguous lists them (sorted): a
// recorded name two catalog tools could be is not guessed. names may
// repeat a name (the same tool on two servers): it counts once. "" and
// nil are returned when nothing matches.
func ResolveTool(names []string, recorded string) (name string, ambiguous []string) {
	if recorded == "" {
		return "", nil
	}
	if slices.Contains(names, recorded) {
		return recorded, nil
	}
	if name, amb, ok := foldMatch(names, recorded); ok {
		return name, amb
	}
	for i := 0; i < len(recorded); i++ {
		if !prefixSep(recorded[i]) {
			continue
		}
		j := i
		for j < len(recorded) && prefixSep(recorded[j]) {
			j++
		}
		if i > 0 && j < len(recorded) {
			if name, amb, ok := foldMatch(names, recorded[j:]); ok {
				return name, amb
			}
		}
		i = j - 1
	}
	return "", nil
}

// foldMatch is the catalog names equal to s folded: ok when there is at
// least one; the name when there is one distinct name, else the names.
func foldMatch(names []string, s string) (name string, ambiguous []string, ok bool) {
	want := FoldToolName(s)
	var got []string
	for _, n := range names {
		if n != "" && FoldToolName(n) == want && !slices.Contains(got, n) {
			got = append(got, n)
		}
	}
	switch len(got) {
	case 0:
		return "", nil, false
	case 1:
		return got[0], nil, true
	}
	slices.Sort(got)
	return "", got, true
}

// prefixSep says whether b ends a prefix ResolveTool may drop.
func prefixSep(b byte) bool {
	return b == '_' || b == '.' || b == ':' || b == '/'
}

// FoldToolName is a tool name as ResolveTool compares it: lower case, and
// '-', '.' and ' ' read as '_'.
func FoldToolName(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '.', ' ':
			return '_'
		}
		return unicode.ToLower(r)
	}, name)
}
