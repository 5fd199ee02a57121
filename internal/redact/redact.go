package redact

import (
	"regexp"
	"strings"
	"sync"
)

// Mask is what a secret is shown as.
const Mask = "[REDACTED]"

// secretNames are the normalised key names whose values are secrets.
var secretNames = map[string]bool{
	"api_key": true, "apikey": true, "x_api_key": true,
	"token": true, "access_token": true, "refresh_token": true, "id_token": true,
	"auth_token": true, "session_token": true,
	"password": true, "passwd": true,
	"secret": true, "client_secret": true,
	"auth": true, "authorization": true, "cookie": true, "set_cookie": true,
	"private_key": true,
}

// secretSuffixes make any key ending in them a secret name.
var secretSuffixes = []string{"_token", "_secret", "_password", "_api_key"}

// SecretKey reports whether an object key or a key=value name holds a
// secret. The name is normalised, lowercase with '-' read as '_', and
// matched exactly against api_key, apikey, x_api_key, token, access_token,
// refresh_token, id_token, auth_token, session_token, password, passwd,
// secret, client_secret, auth, authorization, cookie, set_cookie and private_key,
// or by its suffix: _token, _secret, _password, _api_key. A camelCase name
// is also read with its words split (accessToken as access_token), so
// tokenCount and maxTokens stay ordinary names.
func SecretKey(name string) bool {
	var arr [128]byte
	buf := arr[:0]
	if 2*len(name) > len(arr) {
		buf = make([]byte, 0, 2*len(name))
	}
	return isSecretName(normalize(buf, name, false)) || isSecretName(normalize(buf, name, true))
}

func isSecretName(n []byte) bool {
	if secretNames[string(n)] { // no allocation: the compiler reads the map with the bytes
		return true
	}
	for _, s := range secretSuffixes {
		if len(n) > len(s) && string(n[len(n)-len(s):]) == s {
			return true
		}
	}
	return false
}

// normalize appends name lowercased, with '-' as '_', to buf; with camel, a
// '_' is put between the words of a camelCase name (accessToken,
// APIKey).
func normalize(buf []byte, name string, camel bool) []byte {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			if camel && i > 0 {
				p := name[i-1]
				lowerBefore := p >= 'a' && p <= 'z' || p >= '0' && p <= '9'
				lowerAfter := i+1 < len(name) && name[i+1] >= 'a' && name[i+1] <= 'z'
				upperBefore := p >= 'A' && p <= 'Z'
				if lowerBefore || upperBefore && lowerAfter {
					buf = append(buf, '_')
				}
			}
			c += 'a' - 'A'
		} else if c == '-' {
			c = '_'
		}
		buf = append(buf, c)
	}
	return buf
}

// Value returns a deep copy of a decoded JSON value (map[string]any, []any,
// string, float64, bool, nil) with its secrets replaced by Mask: the value
// of every member whose key is a SecretKey, whatever its type, and the
// secrets String finds in every string. map[string]string and []string are
// redacted the same way; values of other types are returned as they are.
func Value(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if SecretKey(k) {
				out[k] = Mask
			} else {
				out[k] = Value(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = Value(x)
		}
		return out
	case string:
		return String(v)
	case map[string]string:
		out := make(map[string]string, len(v))
		for k, x := range v {
			if SecretKey(k) {
				out[k] = Mask
			} else {
				out[k] = String(x)
			}
		}
		return out
	case []string:
		out := make([]string, len(v))
		for i, x := range v {
			out[i] = String(x)
		}
		return out
	}
	return v
}

// The expressions String applies are compiled on first use, not in every
// process's init (678 allocations, 99 KB before main): a command that
// masks no text that could hold a secret never builds them.
var (
	// shapes are the well-known forms of API keys and tokens.
	shapes = lazyRegexp(`\b(?:` +
		`sk-[A-Za-z0-9_-]{20,}` + // OpenAI sk-…, sk-proj-…; Anthropic sk-ant-…
		`|gh[posur]_[A-Za-z0-9]{20,}` + // GitHub ghp_ gho_ ghs_ ghu_ ghr_
		`|github_pat_[A-Za-z0-9_]{20,}` +
		`|xox[abpr]-[A-Za-z0-9-]{10,}` + // Slack
		`|AKIA[0-9A-Z]{16}\b` + // AWS access key id
		`|AIza[0-9A-Za-z_-]{30,}` + // Google API key
		`|glpat-[A-Za-z0-9_-]{20,}` + // GitLab
		`|npm_[A-Za-z0-9]{30,}` +
		`|eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*` + // JWT
		`)`)
	// bearer is an HTTP bearer credential; the callback keeps ordinary
	// words ("the bearer of").
	bearer = lazyRegexp(`(?i)\b(bearer\s+)([A-Za-z0-9._~+/-]+=*)`)
	// urlPassword is the password of scheme://user:password@host, read
	// from the "://" on: what comes before it (a scheme, or a mask that
	// replaced the text before it) does not decide.
	urlPassword = lazyRegexp(`(://[^/\s:@]*:)([^/\s@]+)@`)
	// urlParam is one key=value of a URL's query or fragment (after ?, &,
	// ; or #, or & as JSON escapes it, \u0026); String applies it only to
	// text that holds a URL.
	urlParam = lazyRegexp(`([?&;#]|\\u0026)([^=&#?;\s"'<>\\]+)=([^&#;\s"'<>\\]+)`)
	// nestedParam is urlParam whose value ends at a "?": a value that is
	// itself a URL (?redirect=https://h/cb?token=…) holds parameters of
	// its own, which urlParam's match of the whole value hides.
	nestedParam = lazyRegexp(`([?&;#]|\\u0026)([^=&#?;\s"'<>\\]+)=([^&#;?\s"'<>\\]+)`)
	// quotedPair is "key": value or 'key': value (JSON, Python reprs).
	quotedPair = lazyRegexp(`(?:"([A-Za-z0-9_.-]+)"|'([A-Za-z0-9_.-]+)')(\s*:\s*)` +
		`("(?:[^"\\]|\\.)*(?:"|$)|'(?:[^'\\]|\\.)*(?:'|$)|-?[0-9][0-9.eE+-]*)`)
	// assignment is key=value (query strings, env files, command lines).
	assignment = lazyRegexp(`([A-Za-z0-9_-]+)([ \t]*=[ \t]*)` +
		`("(?:[^"\\]|\\.)*(?:"|$)|'(?:[^'\\]|\\.)*(?:'|$)|[^\s&;,'"]+)`)
	// headerLine is key: value at the start of a line (HTTP headers, YAML,
	// .env); the value is the rest of the line.
	headerLine = lazyRegexp(`(?m)^([ \t]*([A-Za-z0-9_-]+)[ \t]*:[ \t]*)(\S[^\r\n]*)`)
)

// lazyRegexp returns expr compiled on the first call, once.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// String returns s with the secrets it shows replaced by Mask: bearer
// credentials, well-known key shapes, passwords in URLs, and the values of
// secret names (see SecretKey) written as "key": "value", key=value, or
// key: value at the start of a line.
func String(s string) string {
	if len(s) < 7 { // the shortest secret is "token=x"
		return s
	}
	return redactString(s, true)
}

// URLs returns s with the credentials of the URLs it shows replaced by
// Mask: the password of scheme://user:password@host, and the value of
// every query or fragment parameter QueryKey names (?api_key=, &sig=,
// #access_token=), unless the value is only a ${VAR} reference, which
// names where the secret is. It is the part of String's rules that never touches
// anything but a URL, so it applies to whatever mcptest writes: reports,
// scaffolds and messages whose keys (auth: bearer) are not secrets.
func URLs(s string) string {
	if indexSep(s) < 0 {
		return s
	}
	return urls(s)
}

// urlBreaks are the bytes that end a URL's run of text (urls).
const urlBreaks = " \t\r\n\"'<>`"

// urls applies the URL rules to each run of text around a "://" that no
// space, quote or angle bracket breaks (a URL has none), so the regular
// expressions read the URLs of a report, never the whole of it.
func urls(s string) string {
	const breaks = urlBreaks
	var b strings.Builder
	last := 0
	for from := 0; ; {
		i := indexSep(s[from:])
		if i < 0 {
			break
		}
		i += from
		start := max(strings.LastIndexAny(s[last:i], breaks)+1+last, last)
		end := len(s)
		if j := strings.IndexAny(s[i:], breaks); j >= 0 {
			end = i + j
		}
		if b.Cap() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:start])
		b.WriteString(urlToken(s[start:end]))
		last, from = end, end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// urlToken masks the credentials of one run of text that holds a URL.
func urlToken(s string) string {
	if strings.IndexByte(s, '@') >= 0 {
		s = replaceSubmatch(urlPassword(), s, func(m []string) string { return m[1] + Mask + "@" })
	}
	if strings.IndexByte(s, '=') < 0 {
		return s
	}
	s = replaceSubmatch(urlParam(), s, maskParam)
	if strings.IndexByte(s, '?') < 0 {
		return s
	}
	// a "?" inside a value: the parameters of the URL it begins, read
	// again with values cut at "?" (a secret's whole value was masked
	// above, so a match starting with Mask is left as it is)
	return replaceSubmatch(nestedParam(), s, maskParam)
}

// maskParam masks the value of one key=value match of urlParam or
// nestedParam when QueryKey names its key.
func maskParam(m []string) string {
	v := strings.TrimRight(m[3], ":.,)]")
	if v == "" || strings.HasPrefix(m[3], Mask) || isReference(v) || !QueryKey(m[2]) {
		return m[0]
	}
	return m[1] + m[2] + "=" + Mask + m[3][len(v):]
}

// redactString applies the rules of String. With filter, each rule runs
// only when a literal that all its matches contain is there: most text has
// none, and a scan for a few bytes is much cheaper than a regular
// expression. Without, every rule runs (the tests' reference).
func redactString(s string, filter bool) string {
	if !filter || hasAny(s, shapePrefixes) {
		s = shapes().ReplaceAllLiteralString(s, Mask)
	}
	if !filter || containsFold(s, "bearer") {
		s = replaceSubmatch(bearer(), s, func(m []string) string {
			if !credential(m[2]) {
				return m[0]
			}
			return m[1] + Mask
		})
	}
	if !filter || strings.Contains(s, "://") {
		s = urls(s)
	}
	if filter && !mayNameSecret(s) {
		return s
	}
	colon := !filter || strings.IndexByte(s, ':') >= 0
	equals := !filter || strings.IndexByte(s, '=') >= 0
	if colon {
		s = replaceSubmatch(quotedPair(), s, func(m []string) string {
			key := m[1] + m[2]
			if !SecretKey(key) {
				return m[0]
			}
			return m[0][:len(m[0])-len(m[4])] + maskValue(m[4], true)
		})
	}
	if equals {
		s = replaceSubmatch(assignment(), s, func(m []string) string {
			if !SecretKey(m[1]) {
				return m[0]
			}
			return m[1] + m[2] + maskValue(m[3], false)
		})
	}
	if colon {
		s = replaceSubmatch(headerLine(), s, func(m []string) string {
			if !SecretKey(m[2]) {
				return m[0]
			}
			return m[1] + Mask
		})
	}
	return s
}

// shapePrefixes are the literals the shapes start with.
var shapePrefixes = []string{"sk-", "ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "xox", "AKIA", "AIza", "glpat-", "npm_", "eyJ"}

func hasAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// mayNameSecret reports whether s holds a word that every secret name
// contains, ignoring case: key, token, pass, secret, auth or cookie.
func mayNameSecret(s string) bool {
	for _, w := range [...]string{"key", "token", "pass", "secret", "auth", "cookie"} {
		if containsFold(s, w) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains lower, a lowercase ASCII word,
// ignoring ASCII case.
func containsFold(s, lower string) bool {
	first, firstUpper := lower[0], lower[0]-('a'-'A')
	for i := 0; i+len(lower) <= len(s); i++ {
		if c := s[i]; c != first && c != firstUpper {
			continue
		}
		j := 1
		for j < len(lower) && s[i+j]|0x20 == lower[j] {
			j++
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// maskValue masks a matched value, keeping its quotes: "x" → "[REDACTED]",
// 'x → '[REDACTED], x → [REDACTED]. In JSON (inJSON) a bare value, a
// number, becomes the string "[REDACTED]", so that JSON stays JSON.
func maskValue(v string, inJSON bool) string {
	if v != "" {
		switch q := v[0]; q {
		case '"', '\'':
			if len(v) > 1 && v[len(v)-1] == q && !escaped(v[:len(v)-1]) {
				return string(q) + Mask + string(q)
			}
			return string(q) + Mask
		}
	}
	if inJSON {
		return `"` + Mask + `"`
	}
	return Mask
}

// escaped reports whether s ends in an odd number of backslashes, so that
// the character after it is escaped.
func escaped(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// credential tells a bearer credential from an ordinary word: at least 8
// characters, with a digit or a symbol, or at least 24 characters.
func credential(tok string) bool {
	if len(tok) < 8 {
		return false
	}
	if len(tok) >= 24 {
		return true
	}
	return strings.ContainsAny(tok, "0123456789._~+/-=")
}

// replaceSubmatch is ReplaceAllStringFunc with the submatches at hand.
func replaceSubmatch(re *regexp.Regexp, s string, f func(m []string) string) string {
	idx := re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	m := make([]string, re.NumSubexp()+1)
	for _, loc := range idx {
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = s[loc[2*i]:loc[2*i+1]]
			} else {
				m[i] = ""
			}
		}
		b.WriteString(s[last:loc[0]])
		b.WriteString(f(m))
		last = loc[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
