package redact

import "strings"

// Argv returns a command line with its secrets masked, the one rule for
// every place mcptest prints a server's command: the value of a flag whose
// name is a SecretKey, given as --name=value, -name=value or as the next
// argument (--password X, -client-secret X), and whatever String finds in
// each argument (a password in a URL, a token in a URL's query or
// fragment, a secret member of a JSON argument, a key of a known shape).
// Arguments are masked before they are joined or quoted, so an escaped
// quote cannot hide a secret from the rules.
func Argv(argv []string) []string {
	out := make([]string, len(argv))
	maskNext := false
	for i, a := range argv {
		if maskNext {
			out[i], maskNext = Mask, false
			if isReference(a) {
				out[i] = a // a ${VAR} names where the secret is, not the secret
			}
			continue
		}
		name, value, hasValue := flagParts(a)
		switch {
		case name == "" || !SecretKey(name):
			out[i] = String(a)
		case hasValue && isReference(value):
			out[i] = a
		case hasValue:
			out[i] = a[:len(a)-len(value)] + Mask
		default:
			out[i], maskNext = a, true
		}
	}
	return out
}

// Join is Argv's result joined by spaces, as a command line is shown.
func Join(argv []string) string { return strings.Join(Argv(argv), " ") }

// isReference reports whether a value is only a reference to a variable,
// ${VAR} or $VAR, as a config writes where a secret comes from.
func isReference(v string) bool {
	name, ok := strings.CutPrefix(v, "$")
	if !ok || name == "" {
		return false
	}
	if braced, ok := strings.CutPrefix(name, "{"); ok {
		name, ok = strings.CutSuffix(braced, "}")
		if !ok || name == "" {
			return false
		}
	}
	for _, c := range name {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// flagParts splits a flag argument (-name, --name, either with =value) into
// its name and value; name is empty for an argument that is no flag.
func flagParts(a string) (name, value string, hasValue bool) {
	if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
		return "", "", false
	}
	name = strings.TrimLeft(a, "-")
	name, value, hasValue = strings.Cut(name, "=")
	if name == "" || strings.ContainsAny(name, " \t/:") {
		return "", "", false
	}
	return name, value, hasValue
}
