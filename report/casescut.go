package report

import "bytes"

// JSONIndent indents the members of a run envelope's JSON and of a
// comparison's, but for their cases: each element of the top-level
// "cases" array is one line of compact JSON, after a line break and
// CaseIndent.
const (
	JSONIndent = "  "
	CaseIndent = "    "
)

// casesKey is the line of the top-level "cases" key with an empty array,
// as an encoder indenting by JSONIndent writes it: top-level keys, and
// only they, are indented by exactly JSONIndent, and no string of the
// encoding holds a raw line break, so it occurs once.
var casesKey = []byte("\n" + JSONIndent + `"cases": [`)

// CutAtCases cuts data, a document encoded with JSONIndent whose "cases"
// array is empty, where its cases go: head ends with the array's opening
// bracket, tail begins with its closing one. ok is false when data has no
// such array.
func CutAtCases(data []byte) (head, tail []byte, ok bool) {
	at := bytes.Index(data, casesKey)
	if at < 0 || !bytes.HasPrefix(data[at+len(casesKey):], []byte("]")) {
		return nil, nil, false
	}
	at += len(casesKey)
	return data[:at:at], data[at:], true
}
