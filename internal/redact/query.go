package redact

import (
	"net/url"
	"strings"
)

// queryWords are the words whose presence in a URL query or fragment key
// makes its value a secret (QueryKey).
var queryWords = []string{"key", "token", "secret", "pass", "pwd", "auth", "sig", "session", "cred", "jwt", "bearer", "cookie", "code", "otp", "nonce"}

// QueryKey reports whether the value of a URL's query or fragment
// parameter is a secret. It is broader than SecretKey, since a URL's
// parameters are how services hand out credentials in every spelling
// (api_key, apiKey, api-key, X-Api-Key, key, sig, signature, code,
// sessionid, private_token, pwd, ...): a SecretKey, or a name, its
// percent-encoding decoded and case ignored, that contains key, token,
// secret, pass, pwd, auth, sig, session, cred, jwt, bearer, cookie, code,
// otp or nonce.
func QueryKey(name string) bool {
	if d, err := url.QueryUnescape(name); err == nil {
		name = d
	}
	if SecretKey(name) {
		return true
	}
	for _, w := range queryWords {
		if containsFold(name, w) {
			return true
		}
	}
	return false
}

// URLSecrets returns the secrets a URL carries: the password of its
// user-info (or the user alone, as https://TOKEN@host gives a token), and
// the value of every query or fragment parameter named by QueryKey, each
// as written and decoded. Nil for text that is no URL.
func URLSecrets(raw string) []string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" {
		return nil
	}
	var out []string
	if u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		} else {
			out = append(out, u.User.Username())
		}
	}
	params := func(r rune) bool { return r == '&' || r == ';' }
	// a value that is itself a URL (?redirect=https://h/cb?token=…) holds
	// parameters of its own: read again with values cut at "?" and "#" too
	nested := func(r rune) bool { return r == '&' || r == ';' || r == '?' || r == '#' }
	var kvs []string
	for _, part := range []string{u.RawQuery, u.EscapedFragment()} {
		kvs = append(kvs, strings.FieldsFunc(part, params)...)
		// (a fragment's own "#" comes escaped, %23)
		if inner := strings.ReplaceAll(part, "%23", "#"); strings.ContainsAny(inner, "?#") {
			kvs = append(kvs, strings.FieldsFunc(inner, nested)...)
		}
	}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" || !QueryKey(k) {
			continue
		}
		out = append(out, v)
		if d, err := url.QueryUnescape(v); err == nil && d != v {
			out = append(out, d)
		}
	}
	return out
}
