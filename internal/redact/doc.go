// Package redact hides secrets in recorded tool arguments and results before
// they reach a report.
//
// What flows through: the generic decoded JSON of a cassette's arguments and
// results (Value), and any text a reporter is about to print (String). Every
// report, comment and annotation of mcptest shows a secret as Mask,
// "[REDACTED]". The rules are deliberately narrow, so ordinary words are
// left alone:
//
//   - an object member whose key is a secret name (SecretKey: api_key,
//     token, password, authorization, ... and any key ending in _token,
//     _secret, _password or _api_key) has its value replaced, whatever it is;
//   - in text, bearer credentials, the well-known key shapes of OpenAI and
//     Anthropic (sk-...), GitHub (ghp_..., github_pat_...), Slack (xox?-...),
//     AWS (AKIA...), Google (AIza...), GitLab (glpat-...), npm (npm_...),
//     JSON Web Tokens, passwords in URLs (scheme://user:secret@host), and
//     the values of secret names written as "key": "value", key=value, or
//     key: value at the start of a line.
//
// Both functions are pure, safe for concurrent use and idempotent: a
// redacted value is redacted again to itself.
package redact
