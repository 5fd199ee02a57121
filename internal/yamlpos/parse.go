package yamlpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/diag"
)

// Options says what a file is, for the words of its errors.
type Options struct {
	// Noun names the file in messages: "suite", "catalog", "spec".
	Noun string
	// Kind is the diag.Error Kind of the reader's errors ("syntax" when
	// empty).
	Kind string
	// Syntax starts the message of a syntax error ("invalid YAML" when
	// empty).
	Syntax string
	// Empty is the message for a file that holds no document (nothing,
	// or only comments); when it is "", such a file is no error and its
	// root is nil.
	Empty string
	// Release lets Read drop each node of the tree once it is converted
	// (but those an alias may still name), so the nodes and the values
	// are not all held at once; Doc.Node is then nil. In a text of 64 KiB
	// or more, it also lets Read parse a block list that is the value of
	// a key of the root mapping item by item (see split.go), chunks of
	// items on several cores, so the nodes of a few items are alive at a
	// time; the values, positions and errors are the same.
	Release bool
	// Items names a key of the root mapping whose list Read leaves for
	// Doc.Items to hand over item by item (see items.go): only with
	// Release, and only a block list Read parses item by item; any other
	// value of the key is read as without Items (Doc.Held is false).
	Items string
	// Unpacked keeps the text of a document whose list Read holds as it
	// is (Data) instead of packing it (see pack.go): for a caller that
	// holds the text anyway and reads the items once (mcptest validate),
	// which then spends nothing compressing the text nor inflating each
	// chunk. Doc.Again is then nil and Doc.Packed nil.
	Unpacked bool
	// UnpackedItems and UnpackedBytes keep the text as Unpacked does when
	// the held list has at most UnpackedItems items and the text is under
	// UnpackedBytes bytes: for a caller that reads the items once unless
	// the list is long (a run, which has the tests handed over again,
	// Doc.Again, only past a count of them) and keeps a short text as it
	// is anyway. 0 packs every held list's text, as before they were
	// added. Packing the 744 KB suite of .ci/bench's 2,000 transcripts
	// (and inflating each chunk to read it) was about 5 ms of a run's
	// start at two cores, before the first test could be read, for a
	// text no run of it read again.
	UnpackedItems, UnpackedBytes int
	// SplitMin is the size of text from which Release parses the lists of
	// the root mapping item by item; 0 is 64 KiB (see splitMin). Tests set
	// 1 to cut a text of any size.
	SplitMin int
	// chunk is the number of items a chunk holds when a list is read
	// item by item (chunks.go); 0 is chunkItems. Tests set 1 or 2 so
	// that short lists are parsed in several chunks.
	chunk int
}

// packs reports whether Read packs the text of n bytes of a document
// whose held list has items items (see Unpacked).
func (o Options) packs(items, n int) bool {
	return !o.Unpacked && (items > o.UnpackedItems || n >= o.UnpackedBytes)
}

// chunkSize is the number of items a chunk holds.
func (o Options) chunkSize() int {
	if o.chunk > 0 {
		return o.chunk
	}
	return chunkItems
}

// splitMin is the size from which Read cuts lists into items.
func (o Options) splitMin() int {
	if o.SplitMin > 0 {
		return o.SplitMin
	}
	return splitMin
}

func (o Options) kind() string {
	if o.Kind == "" {
		return "syntax"
	}
	return o.Kind
}

func (o Options) syntax() string {
	if o.Syntax == "" {
		return "invalid YAML"
	}
	return o.Syntax
}

// empty is the error of a file with no document, none when Empty is "".
func (o Options) empty(file string) diag.List {
	if o.Empty == "" {
		return nil
	}
	return diag.List{{Pos: diag.Pos{File: file, Line: 1, Col: 1}, Kind: o.kind(), Message: o.Empty}}
}

func (o Options) noun() string {
	if o.Noun == "" {
		return "file"
	}
	return o.Noun
}

// Parse decodes the first document of data into a node tree and returns
// its root value, nil when data holds none. Text that is not UTF-8 or
// holds a control character, text past its read budget (budget.go), a
// YAML syntax error, a nesting deeper than
// yaml.v3 allows, an empty file (see Options.Empty) and a second document
// are positioned errors; the root is returned with a second-document
// error, nil with any other.
func Parse(file string, data []byte, o Options) (*yaml.Node, diag.List) {
	n, errs, _ := parse(file, data, o)
	return n, errs
}

// parse is Parse; empty reports that data holds no document.
func parse(file string, data []byte, o Options) (root *yaml.Node, errs diag.List, empty bool) {
	if e := textError(file, data, o); e != nil {
		return nil, diag.List{e}, false
	}
	if e := budgetError(file, data, o); e != nil {
		return nil, diag.List{e}, false
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, o.empty(file), true
		}
		return nil, diag.List{yamlError(file, data, err, o)}, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		errs = append(errs, &diag.Error{Pos: diag.Pos{File: file, Line: extra.Line, Col: extra.Column}, Kind: o.kind(),
			Message: fmt.Sprintf("a second YAML document: a %s is one document, remove the `---` separator", o.noun())})
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return nil, append(errs, o.empty(file)...), true
	}
	return n.Content[0], errs, false
}

var yamlLineRE = []string{"yaml: line ", "yaml: unmarshal errors:\n  line "}

// yamlError positions a yaml.v3 error, whose text carries at most the line
// (none for a problem on the first line): the line, column 1, and for a
// nesting over yaml.v3's depth limit the exact place where it was crossed.
func yamlError(file string, data []byte, err error, o Options) *diag.Error {
	line, msg := yamlLine(err)
	if strings.HasPrefix(msg, "did not find expected") {
		// The parser names the line where the enclosing block starts; the
		// problem is below it, most often an indentation slip.
		msg += " (in the block that starts on this line: check the indentation of the lines below it)"
	}
	e := &diag.Error{Pos: diag.Pos{File: file, Line: line, Col: 1}, Kind: o.kind(), Message: o.syntax() + ": " + msg}
	switch {
	case strings.HasPrefix(msg, "exceeded max depth"):
		e.Pos.Line, e.Pos.Col = diag.LineCol(data, int64(depthOffset(data)))
		e.Message += fmt.Sprintf(": the %s nests its values deeper than YAML allows", o.noun())
	case line == 0:
		e.Pos.Line = firstLine(data)
	}
	if msg == "found character that cannot start any token" {
		// Most often a tab where YAML wants spaces: say so, at the tab.
		text := lineText(data, e.Pos.Line)
		indent := text[:len(text)-len(bytes.TrimLeft(text, " \t"))]
		if i := bytes.IndexByte(indent, '\t'); i >= 0 {
			e.Pos.Col = i + 1
			e.Message += ": a tab in the indentation, and YAML indents with spaces only"
		}
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
	if isUTF16(data) {
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

func isUTF16(data []byte) bool {
	return bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff"))
}

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
func textError(file string, data []byte, o Options) *diag.Error {
	if isUTF16(data) {
		return nil
	}
	body := bytes.TrimPrefix(data, []byte(utf8BOM))
	for i := 0; i < len(body); {
		if plainASCII[body[i]] {
			i++
			continue
		}
		r, size := utf8.DecodeRune(body[i:])
		var msg string
		switch {
		case r == utf8.RuneError && size == 1:
			msg = fmt.Sprintf("invalid UTF-8: the byte 0x%02x does not start a UTF-8 character; save the %s as UTF-8", body[i], o.noun())
		case !printable(r):
			msg = fmt.Sprintf("the control character %U is not allowed in YAML: remove it, or write it as an escape such as \"\\x%02X\" in a double-quoted string", r, r)
		default:
			i += size
			continue
		}
		line, col := diag.LineCol(body, int64(i))
		return &diag.Error{Pos: diag.Pos{File: file, Line: line, Col: col}, Kind: o.kind(), Message: o.syntax() + ": " + msg}
	}
	return nil
}

// plainASCII marks the bytes that are a character printable allows on
// their own, so textError passes them without decoding a rune: nearly
// every byte of a suite. Decoding each was 1 to 3 ms over the 744 KB
// suite of .ci/bench's 2,000 transcripts, on the load's one goroutine
// before the first test could be read.
var plainASCII = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = printable(rune(c))
	}
	return t
}()

// printable reports whether YAML (and yaml.v3) allows r in a document.
func printable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r >= 0x20 && r <= 0x7e, r == 0x85:
		return true
	case r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd, r >= 0x10000 && r <= 0x10ffff:
		return true
	}
	return false
}
