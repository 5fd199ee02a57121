package envstream

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/mcptest/mcptest/report"
	segjson "github.com/segmentio/encoding/json"
)

// decodeCase decodes one case of an envelope from its JSON into c, as
// encoding/json's Unmarshal decodes it (report.CaseReader.Unmarshal).
// A case whose objects name each member once, in ASCII with no escapes
// (what an encoder writes), is decoded by segmentio/encoding/json's
// decoder, about twice as fast, which decodes such a text as
// encoding/json does (FuzzDecodeCase and TestDecodeCaseIsUnmarshal hold
// the two to the same value and the same refusals over drawn cases); any
// other text, and a case that decoder refuses, is decoded by
// encoding/json, whose value or error is the one given. (A member given
// twice is where the two differ: encoding/json decodes the second into a
// zeroed element, segmentio's into the first one's.)
func decodeCase(raw []byte, c *report.CaseResult) error {
	if plainMembers(raw) && segjson.Unmarshal(raw, c) == nil {
		return nil
	}
	*c = report.CaseResult{}
	return json.Unmarshal(raw, c)
}

// maxPlainMembers is the most members an object may have for
// plainMembers to compare its names; an object of more is decoded by
// encoding/json.
const maxPlainMembers = 64

// plainMembers reports whether every object in the JSON text raw names
// its members in ASCII with no escapes, each once (no two alike without
// regard to case). It reads a text of any shape without failing: a text
// that is not JSON is refused by the decoder. It holds the names of the
// objects open at once on a stack of at most 256 names.
func plainMembers(raw []byte) bool {
	var names [256][]byte
	var opens [64]int // where each open object's names start on names
	var isObj [64]bool
	depth, top := 0, 0
	expectKey := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			j := i + 1
			for {
				k := quoteOrBackslash(raw[j:])
				if k < 0 {
					return false
				}
				j += k
				if raw[j] == '"' {
					break
				}
				if expectKey {
					return false
				}
				j += 2 // the backslash and the character it escapes
				if j >= len(raw) {
					return false
				}
			}
			if expectKey {
				for _, c := range raw[i+1 : j] {
					if c >= 0x80 {
						return false
					}
				}
			}
			if expectKey {
				key := raw[i+1 : j]
				for _, prev := range names[opens[depth-1]:top] {
					if bytes.EqualFold(prev, key) {
						return false
					}
				}
				if top == len(names) || top-opens[depth-1] == maxPlainMembers {
					return false
				}
				names[top] = key
				top++
				expectKey = false
			}
			i = j
		case '{', '[':
			if depth == len(opens) {
				return false
			}
			opens[depth], isObj[depth] = top, c == '{'
			depth++
			expectKey = c == '{'
		case '}', ']':
			if depth == 0 {
				return false
			}
			depth--
			top = opens[depth]
			expectKey = false
		case ',':
			expectKey = depth > 0 && isObj[depth-1]
		}
	}
	return true
}

// quoteOrBackslash is the index of the first '"' or '\\' of b, -1 for
// none.
func quoteOrBackslash(b []byte) int {
	q := bytes.IndexByte(b, '"')
	if q < 0 {
		q = len(b)
	}
	if e := bytes.IndexByte(b[:q], '\\'); e >= 0 {
		return e
	}
	if q == len(b) {
		return -1
	}
	return q
}

// newCaseReader is report.NewCaseReader with this package's decoder.
func newCaseReader(r io.Reader, name string) (*report.CaseReader, error) {
	cr, err := report.NewCaseReader(r, name)
	if err != nil {
		return nil, err
	}
	cr.Unmarshal = decodeCase
	return cr, nil
}
