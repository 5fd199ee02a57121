package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/engine/diag"
	"github.com/mcptest/mcptest/engine/safefile"
)

// MaxSuiteBytes bounds the size of a suite file.
const MaxSuiteBytes = 8 << 20

// maxNodes bounds how many values a suite may expand to, aliases included,
// so an alias bomb is an error rather than an out-of-memory.
const maxNodes = 100_000

// document is a suite decoded from YAML into generic values (map[string]any,
// []any, string, float64, bool, nil) with the position of every value and
// every mapping key, by RFC 6901 pointer. It is the only place mcptest reads
// YAML.
type document struct {
	file   string
	root   any
	values map[string]diag.Pos
	keys   map[string]diag.Pos
	// quoted marks the quoted scalars by pointer; a quoted key is marked
	// under "key:" + pointer.
	quoted map[string]bool
	// numbers holds each number as written, by pointer; ints the exact
	// value of each integer that fits an int64 (the tree holds float64).
	numbers map[string]string
	ints    map[string]int64
	nodes   int
	errs    diag.List
}

// parseYAML decodes data into a document. Syntax errors, duplicate keys,
// non-string keys and oversized input are positioned errors.
func parseYAML(file string, data []byte) *document {
	d := &document{file: file, values: map[string]diag.Pos{}, keys: map[string]diag.Pos{}, quoted: map[string]bool{},
		numbers: map[string]string{}, ints: map[string]int64{}}
	if len(data) > MaxSuiteBytes {
		d.errs = append(d.errs, tooLargeSuite(file, int64(len(data))))
		return d
	}
	if e := textError(file, data); e != nil {
		d.errs = append(d.errs, e)
		return d
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		if errors.Is(err, io.EOF) {
			d.errs = append(d.errs, &diag.Error{Pos: diag.Pos{File: file, Line: 1, Col: 1}, Kind: "syntax",
				Message: "the suite is empty: expected a mapping with servers:, agents: or tests:"})
			return d
		}
		d.errs = append(d.errs, yamlError(file, data, err))
		return d
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.errs = append(d.errs, &diag.Error{Pos: d.pos(&extra), Kind: "syntax",
			Message: "a second YAML document: a suite is one document, remove the `---` separator"})
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		d.root = d.convert(n.Content[0], "", 0)
	}
	return d
}

func (d *document) pos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: d.file, Line: n.Line, Col: n.Column}
}

// convert turns a node into a generic value, recording positions.
func (d *document) convert(n *yaml.Node, ptr string, depth int) any {
	d.nodes++
	if d.nodes > maxNodes || depth > 200 {
		if d.nodes == maxNodes+1 || depth == 201 {
			d.errs = append(d.errs, &diag.Error{Pos: d.pos(n), Pointer: ptr, Kind: "syntax",
				Message: "the suite expands to too many values (a recursive or exploding alias?)"})
		}
		return nil
	}
	d.values[ptr] = d.pos(n)
	switch n.Kind {
	case yaml.AliasNode:
		return d.convert(n.Alias, ptr, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				d.errs = append(d.errs, &diag.Error{Pos: d.pos(k), Pointer: ptr, Kind: "syntax",
					Message: "merge keys (<<) are not supported: write the keys out"})
				continue
			}
			if k.Kind != yaml.ScalarNode {
				d.errs = append(d.errs, &diag.Error{Pos: d.pos(k), Pointer: ptr, Kind: "syntax",
					Message: "a mapping key must be a plain string"})
				continue
			}
			child := ptr + "/" + escapePointer(k.Value)
			if _, dup := m[k.Value]; dup {
				d.errs = append(d.errs, &diag.Error{Pos: d.pos(k), Pointer: child, Kind: "syntax",
					Message: fmt.Sprintf("key %q is repeated: it was already set at line %d", k.Value, d.keys[child].Line)})
				continue
			}
			d.keys[child] = d.pos(k)
			if k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
				d.quoted["key:"+child] = true
			}
			m[k.Value] = d.convert(v, child, depth+1)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			s[i] = d.convert(c, ptr+"/"+strconv.Itoa(i), depth+1)
		}
		return s
	case yaml.ScalarNode:
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			d.quoted[ptr] = true
		}
		return d.scalar(n, ptr)
	}
	return nil
}

func (d *document) scalar(n *yaml.Node, ptr string) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b
		}
	case "!!int", "!!float":
		d.numbers[ptr] = n.Value
		var i int64
		if n.ShortTag() == "!!int" && n.Decode(&i) == nil {
			d.ints[ptr] = i
		}
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
		d.errs = append(d.errs, &diag.Error{Pos: d.pos(n), Pointer: ptr, Kind: "syntax",
			Message: fmt.Sprintf("%q is not a finite number", n.Value)})
		return nil
	}
	return n.Value
}

// at returns the position of the value at ptr, falling back to the nearest
// enclosing value.
func (d *document) at(ptr string) diag.Pos {
	for {
		if p, ok := d.values[ptr]; ok {
			return p
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return diag.Pos{File: d.file, Line: 1, Col: 1}
		}
		ptr = ptr[:i]
	}
}

// keyAt returns the position of the key that names the value at ptr, or the
// value's own position for array items and the root.
func (d *document) keyAt(ptr string) diag.Pos {
	if p, ok := d.keys[ptr]; ok {
		return p
	}
	return d.at(ptr)
}

var yamlLineRE = []string{"yaml: line ", "yaml: unmarshal errors:\n  line "}

// yamlError positions a yaml.v3 error, whose text carries at most the line
// (none for a problem on the first line): the line, column 1, and for a
// nesting over yaml.v3's depth limit the exact place where it was crossed.
func yamlError(file string, data []byte, err error) *diag.Error {
	line, msg := yamlLine(err)
	if strings.HasPrefix(msg, "did not find expected") {
		// The parser names the line where the enclosing block starts; the
		// problem is below it, most often an indentation slip.
		msg += " (in the block that starts on this line: check the indentation of the lines below it)"
	}
	e := &diag.Error{Pos: diag.Pos{File: file, Line: line, Col: 1}, Kind: "syntax", Message: "invalid YAML: " + msg}
	switch {
	case strings.HasPrefix(msg, "exceeded max depth"):
		e.Pos.Line, e.Pos.Col = diag.LineCol(data, int64(depthOffset(data)))
		e.Message += ": the suite nests its values deeper than YAML allows"
	case line == 0:
		e.Pos.Line = firstLine(data)
	}
	if long := lineText(data, e.Pos.Line); utf8.RuneCount(long) > 1024 &&
		(msg == "could not find expected ':'" || msg == "mapping values are not allowed in this context") {
		// YAML looks no further than 1024 characters for the `:` of a key.
		e.Pos.Col = keyColumn(long)
		e.Message += " (a mapping key may be at most 1024 characters long)"
	}
	return e
}

// yamlLine splits a yaml.v3 error into the line it names (0 for none) and
// the message.
func yamlLine(err error) (int, string) {
	msg := err.Error()
	line := 0
	for _, p := range yamlLineRE {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			num, tail, _ := strings.Cut(rest, ":")
			line, _ = strconv.Atoi(num)
			msg = strings.TrimSpace(tail)
		}
	}
	return line, strings.TrimPrefix(msg, "yaml: ")
}

// firstLine is the line of a yaml.v3 error that names none. yaml.v3 leaves
// out the line of a problem on the first line only (it tests the 0-based
// line for zero); parsed again below a blank line, the same problem names
// its line, one more than the line in data. A file in UTF-16 is not
// re-parsed: its problem is placed on line 1.
func firstLine(data []byte) int {
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return 1
	}
	body := bytes.TrimPrefix(data, []byte(utf8BOM))
	shifted := make([]byte, 0, len(data)+1)
	shifted = append(append(append(shifted, data[:len(data)-len(body)]...), '\n'), body...)
	var n yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(shifted)).Decode(&n); err != nil {
		if line, _ := yamlLine(err); line > 1 {
			return line - 1
		}
	}
	return 1
}

const utf8BOM = "\xef\xbb\xbf"

// depthOffset returns the offset of the byte where the nesting of data
// crosses yaml.v3's depth limit: the end of the shortest prefix that
// yaml.v3 refuses for its depth, found by bisection (a prefix refuses for
// its depth exactly when it holds that byte).
func depthOffset(data []byte) int {
	tooDeep := func(n int) bool {
		var node yaml.Node
		err := yaml.NewDecoder(bytes.NewReader(data[:n])).Decode(&node)
		return err != nil && strings.Contains(err.Error(), "exceeded max depth")
	}
	lo, hi := 0, len(data) // tooDeep(hi), !tooDeep(lo)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if tooDeep(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi - 1
}

// lineText returns line n (1-based) of data, without its end of line.
func lineText(data []byte, n int) []byte {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return nil
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return bytes.TrimSuffix(data, []byte("\r"))
}

// keyColumn is the column (1-based, in characters) where the key of a
// mapping line starts: after the indentation and any `- ` or `? `
// indicators.
func keyColumn(line []byte) int {
	i := 0
	for i < len(line) {
		switch {
		case line[i] == ' ':
			i++
		case (line[i] == '-' || line[i] == '?') && (i+1 == len(line) || line[i+1] == ' '):
			i++
		default:
			return utf8.RuneCount(line[:i]) + 1
		}
	}
	return 1
}

// textError finds the first byte of data that is not UTF-8 or a character
// YAML refuses (the control characters but tab, line feed and carriage
// return; DEL; U+FFFE and U+FFFF), and places it: yaml.v3 refuses them
// without saying where. A file in UTF-16, with its byte order mark, is
// left to yaml.v3.
func textError(file string, data []byte) *diag.Error {
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return nil
	}
	body := bytes.TrimPrefix(data, []byte(utf8BOM))
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		var msg string
		switch {
		case r == utf8.RuneError && size == 1:
			msg = fmt.Sprintf("invalid UTF-8: the byte 0x%02x does not start a UTF-8 character; save the suite as UTF-8", body[i])
		case !yamlPrintable(r):
			msg = fmt.Sprintf("the control character %U is not allowed in YAML: remove it, or write it as an escape such as \"\\x%02X\" in a double-quoted string", r, r)
		default:
			i += size
			continue
		}
		line, col := diag.LineCol(body, int64(i))
		return &diag.Error{Pos: diag.Pos{File: file, Line: line, Col: col}, Kind: "syntax", Message: "invalid YAML: " + msg}
	}
	return nil
}

// yamlPrintable reports whether YAML (and yaml.v3) allows r in a document.
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r >= 0x20 && r <= 0x7e, r == 0x85:
		return true
	case r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd, r >= 0x10000 && r <= 0x10ffff:
		return true
	}
	return false
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// LoadSuite reads, validates and loads the suite at path. Every problem of
// the file, and every missing cassette, is returned at once as a diag.List;
// an I/O failure is a plain error. A path that is not a regular file, or a
// file over MaxSuiteBytes, is refused before it is read.
func LoadSuite(path string) (*Suite, error) {
	return readSuite(path, false)
}

// readSuite is LoadSuite; unrecorded lets a cassette: that does not exist
// yet pass (see LoadSuiteUnrecorded).
func readSuite(path string, unrecorded bool) (*Suite, error) {
	data, err := ReadSuiteFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, diag.List{{Pos: diag.Pos{File: path}, Kind: "suite",
			Message: "no such file: expected a suite.yml (pass it with --config)"}}
	case err != nil:
		return nil, err
	}
	return parseSuite(path, data, unrecorded)
}

// ReadSuiteFile reads the bytes of the suite file at path, for ParseSuite.
// A path that is not a regular file and a file over MaxSuiteBytes are
// positioned errors (a diag.List), found from the stat, before a byte is
// read; a failure to open or read the file is the os error.
func ReadSuiteFile(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, MaxSuiteBytes)
	if err != nil {
		return nil, suiteReadError(path, err)
	}
	return data, nil
}

// suiteReadError turns a refusal of the suite file into the positioned
// error the user can act on; a missing file stays the os error, any other
// failure is wrapped.
func suiteReadError(path string, err error) error {
	var nr *safefile.NotRegularError
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &nr) && nr.Mode.IsDir():
		return diag.List{{Pos: diag.Pos{File: path}, Kind: "suite",
			Message: "is a directory: expected a suite file such as " + filepath.ToSlash(filepath.Join(path, "suite.yml"))}}
	case errors.As(err, &nr):
		return diag.List{{Pos: diag.Pos{File: path}, Kind: "suite", Message: nr.Reason()}}
	case errors.As(err, &tl):
		return diag.List{tooLargeSuite(path, tl.Size)}
	case errors.Is(err, os.ErrNotExist):
		return err
	}
	return fmt.Errorf("read suite: %w", err)
}

// tooLargeSuite is the error for a suite of size bytes, over MaxSuiteBytes.
func tooLargeSuite(file string, size int64) *diag.Error {
	return &diag.Error{Pos: diag.Pos{File: file}, Kind: "suite",
		Message: fmt.Sprintf("the file is %s, over the %s limit for a suite", safefile.Size(size), safefile.Size(MaxSuiteBytes))}
}

// ParseSuite validates data against the suite schema and the rules the
// schema cannot state, and builds the Suite. Relative paths resolve against
// the directory of path, except in an inline suite (see suiteDir).
func ParseSuite(path string, data []byte) (*Suite, error) {
	return parseSuite(path, data, false)
}

// LoadSuiteUnrecorded reads, validates and loads the suite at path as
// LoadSuite does, except that a cassette: that does not exist yet is no
// error: for the commands used before recording (mcptest distractors
// prints the tools/list to present to the agent while it is recorded).
func LoadSuiteUnrecorded(path string) (*Suite, error) {
	return readSuite(path, true)
}

// parseSuite is ParseSuite; unrecorded leaves cassette: values unresolved.
func parseSuite(path string, data []byte, unrecorded bool) (*Suite, error) {
	d := parseYAML(filepath.ToSlash(path), data)
	if len(d.errs) > 0 {
		return nil, d.errs.Sorted()
	}
	sum := sha256.Sum256(data)
	s := &Suite{Path: d.file, Dir: suiteDir(path), SHA256: hex.EncodeToString(sum[:])}
	errs := validateSchema(d)
	b := &builder{doc: d, suite: s, schemaErrs: errs, unrecorded: unrecorded}
	b.build()
	errs = append(errs, b.errs...)
	if len(errs) > 0 && d.notASuite() {
		return nil, diag.List{notASuiteError(d.file)}
	}
	if len(errs) > 0 {
		return nil, errs.Sorted()
	}
	return s, nil
}

// notASuite reports whether the document is something other than a suite:
// its root is not a mapping, or none of its keys is a top-level key of a
// suite or a near miss of one.
func (d *document) notASuite() bool {
	m, ok := d.root.(map[string]any)
	if !ok {
		return true
	}
	top := sortedKeys(rawSuiteSchema["properties"].(map[string]any))
	for k := range m {
		if contains(top, k) || diag.Suggest(k, top) != "" {
			return false
		}
	}
	return true
}

// notASuiteError is the one error of a file that is not a suite. Such a
// file may be anything named with --config (a key file, /etc/shadow), so
// the error quotes nothing of it and asks the printer not to echo its
// lines.
func notASuiteError(file string) *diag.Error {
	return &diag.Error{Pos: diag.Pos{File: file, Line: 1, Col: 1}, Kind: "suite", HideSource: true,
		Message: "not a suite: expected a YAML mapping with servers:, agents: or tests: (or scenarios:, tool_quality:, tools:, compliance:, redteam:, evals:), and this file has none of them"}
}

// canonicalSHA256 digests a generic value by its canonical JSON encoding
// (encoding/json sorts map keys).
func canonicalSHA256(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// suiteDir is the directory a suite's relative paths resolve against: the
// suite's own, except for an inline suite the front door persisted to
// WORKSPACE/.mcptest/inline/<run_id>.yml, whose paths were written against
// the workspace root (as validate_suite and the introspection verbs read
// them), so they resolve there.
func suiteDir(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "inline" && filepath.Base(filepath.Dir(dir)) == ".mcptest" {
		return filepath.Dir(filepath.Dir(dir))
	}
	return dir
}
