package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
	"github.com/mcptest/mcptest/internal/safefile"
)

// MaxSize is the largest cassette file the reader accepts, in bytes (64 MiB).
const MaxSize = 64 << 20

// ReadFile reads the cassette at path; see Load and Read. A file that
// cannot be read is an operational error wrapping the os error; a file
// that is not regular, over MaxSize or with bad content is a *diag.Error
// or a diag.List.
func ReadFile(path string) (*Cassette, error) {
	data, err := Load(path, path)
	if err != nil {
		var de *diag.Error
		if errors.As(err, &de) {
			return nil, err
		}
		return nil, fmt.Errorf("read cassette %q: %w", path, err)
	}
	return Read(path, data)
}

// Load reads the bytes of the cassette file at path, for Read or Stream. A
// path that is not a regular file (a directory, a FIFO, a device) or a
// file over MaxSize is refused from its stat, before a byte is read, and a
// file that grows past MaxSize while it is read is refused at MaxSize+1
// bytes: both are a *diag.Error placed at name, the file as the user named
// it. A file that cannot be opened or read is the os error.
func Load(path, name string) ([]byte, error) {
	return LoadInto(path, name, nil, nil)
}

// LoadInto is Load calling sized, when not nil, with the file's size
// from its stat once it is open and checked, before a byte is read (for a
// caller that bounds the bytes of the files read at once), and reading
// into buf when it has room (for a caller done with each file before it
// reads the next: safefile.ReadFileInto).
func LoadInto(path, name string, buf []byte, sized func(int64)) ([]byte, error) {
	data, err := safefile.ReadFileInto(path, MaxSize, buf, sized)
	var nr *safefile.NotRegularError
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &nr):
		return nil, &diag.Error{Pos: diag.Pos{File: name}, Kind: kind, Message: nr.Reason()}
	case errors.As(err, &tl):
		return nil, tooLarge(name, tl.Size)
	}
	return data, err
}

func tooLarge(path string, size int64) *diag.Error {
	return &diag.Error{
		Pos:  diag.Pos{File: path},
		Kind: kind,
		Message: fmt.Sprintf("the file is %s, over the %s limit for a cassette: split the runs over several files",
			safefile.Size(size), safefile.Size(MaxSize)),
	}
}

// Read reads a cassette from data, detecting its format from the content:
// an object with "mcptest_cassette" is the mcptest cassette format (only
// version 1 is read, and it is validated), an object with a "messages" array
// (or a top-level array of messages, or an object holding exactly one array
// of objects with a "role") is an OpenAI Chat Completions or an Anthropic
// Messages transcript, told apart by the shape of its messages; a single
// message, its bare tool calls or a Chat Completions response ("choices")
// is a transcript of one message; an object with an "output" array of
// typed items (or a list of them) is OpenAI Responses API output; an object
// with "resourceSpans" is OpenTelemetry spans in OTLP JSON; an event with a
// "type" and a "session_id" is Claude Code stream-json. Data that is not
// one JSON value but one per line is JSON Lines (see streamLines).
//
// path is used only in messages and as Cassette.Path. Every problem of the
// file is reported at once, as a single *diag.Error or as a diag.List sorted
// by position, each at the 1-based line and column (in characters) of the
// offending value and with its JSON Pointer. A key repeated in an object is
// a problem, placed at the repetition and naming the first.
//
// Read keeps every run; Stream reads the same file one run at a time.
func Read(path string, data []byte) (*Cassette, error) {
	runs := []Run{}
	c, err := Stream(path, data, func(_ *Cassette, r *Run) { runs = append(runs, *r) })
	if err != nil {
		return nil, err
	}
	c.Runs = runs
	return c, nil
}

// Stream reads a cassette from data as Read does, but hands each run to
// each as soon as it is decoded, in file order, and keeps none: the
// memory it needs is the file, its provenance and catalog, and one run,
// so a recording of a million calls costs a small multiple of its size.
// The Cassette each receives is the one Stream returns, complete but for
// its Runs, which stay empty; the Run is each's to keep. each may be nil.
//
// each is called only while the file has shown no problem. A problem
// found later still makes Stream return the errors of the whole file, and
// the runs handed out before it belong to a refused file: discard them.
func Stream(path string, data []byte, each func(*Cassette, *Run)) (*Cassette, error) {
	return stream(path, data, each, false)
}

// Tally is Stream for a caller that counts what the runs hold (runs,
// calls, results, tokens, models, agents: mcptest validate's report of a
// recording): the runs it hands over are Stream's but for their calls'
// arguments, which are checked for every problem Stream reports and not
// kept (Call.Arguments is empty), so the errors are Stream's and it reads
// less. A file of JSON Lines or an Inspect AI archive is read as Stream
// reads it.
func Tally(path string, data []byte, each func(*Cassette, *Run)) (*Cassette, error) {
	return stream(path, data, each, true)
}

func stream(path string, data []byte, each func(*Cassette, *Run), counting bool) (*Cassette, error) {
	var spent error
	runs := 0
	if each != nil {
		// Path is known to each run's user, as it is to Read's.
		// Every reader's results leave as their text (keepResults), each
		// text within the file's decode budget (keptWithinBudget); a run
		// with one that is not ends the handing out.
		inner := each
		each = func(c *Cassette, r *Run) {
			if spent != nil {
				return
			}
			c.Path = path
			keepResults(r)
			if spent = keptWithinBudget(c, r, runs, data); spent != nil {
				return
			}
			runs++
			if counting {
				forgetArguments(r)
			}
			inner(c, r)
		}
	}
	c, err := streamFile(path, data, each, counting)
	if err == nil && spent == nil && each != nil && runs == 0 && c != nil {
		spent = catalogWithinBudget(c, data) // no run checked it
	}
	if err == nil && spent != nil {
		return nil, spent
	}
	return c, err
}

// streamFile reads data by its kind: an Inspect archive, one JSON
// document, or JSON Lines.
func streamFile(path string, data []byte, each func(*Cassette, *Run), counting bool) (*Cassette, error) {
	if len(data) > MaxSize {
		return nil, tooLarge(path, int64(len(data)))
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	if isZip(data) {
		return streamInspectArchive(path, data, each)
	}
	if !validJSON(data) {
		if isLines(data) {
			return streamLines(path, data, each)
		}
		return nil, syntaxError(path, data, json.Unmarshal(data, new(struct{})))
	}
	return streamDoc(path, data, each, false, counting)
}

// streamDoc reads one JSON document, data, known to be valid; generic
// reads a transcript from its generic value only (see recording), the
// reference the tests hold readChat to; counting keeps no call's
// arguments (Tally).
func streamDoc(path string, data []byte, each func(*Cassette, *Run), generic, counting bool) (*Cassette, error) {
	w := &walker{}
	d := newDecoder(data, w)
	defer d.done()
	d.generic, d.counting = generic, counting
	root := d.space(0)
	var c *Cassette
	if d.hasKey(root, "mcptest_cassette") {
		var runs int
		c, runs = d.readV1(root)
		if runs >= 0 {
			d.runs(runs, func(r *Run) {
				if each != nil {
					each(c, r)
				}
			})
		}
	} else {
		c = d.recording(root, each)
	}
	if err := d.err(path); err != nil {
		return nil, err
	}
	c.Path = path
	return c, nil
}

// recording reads a document that is not an mcptest cassette: a
// transcript, a response object, a trace or an event stream, whose runs
// are handed to each when the document has no problem. A model's answer
// in the Chat Completions shapes, a transcript, an OTLP export and a
// message or item list of the shapes readPiecewise's readers take are
// read a piece at a time, any other document from its generic value.
func (d *decoder) recording(root int, each func(*Cassette, *Run)) *Cassette {
	var c *Cassette
	if !d.generic {
		c = d.readPiecewise(root)
	}
	if c == nil {
		if c = d.detected(root); c == nil {
			return nil
		}
	}
	runs := c.Runs
	c.Runs = nil
	if d.clean() && each != nil {
		for i := range runs {
			each(c, &runs[i])
		}
	}
	return c
}

// readPiecewise reads the document at root with the first reader that
// takes it without decoding it whole, nil when none does (each leaves
// nothing recorded when it declines).
func (d *decoder) readPiecewise(root int) *Cassette {
	for _, read := range [...]func(*decoder, int) *Cassette{
		(*decoder).readChat, (*decoder).readMessages, (*decoder).readSpans,
		(*decoder).readLangChainMessages, (*decoder).readModelList, (*decoder).readUIList, (*decoder).readItemList,
	} {
		if c := read(d, root); c != nil {
			return c
		}
	}
	return nil
}

// detected reads the document at root from its generic value, by the
// format detect finds; nil when it finds none, the problem recorded.
func (d *decoder) detected(root int) *Cassette {
	v, _ := d.value(root)
	if d.overOff >= 0 {
		return nil // the budget's error alone (err)
	}
	f := detect(v)
	var c *Cassette
	switch f.format {
	case FormatOpenAI, FormatAnthropic:
		if f.choices != nil {
			c = readCompletion(d.w, f)
		} else {
			c = readTranscript(d.w, f)
			if w := lastStepWarning(f, c.Runs); w != "" {
				c.Warnings = append(c.Warnings, w)
			}
		}
	case FormatResponses:
		c = readResponses(d.w, v)
	case FormatLangChain:
		d.w.path = append(d.w.path[:0], f.at...)
		c = readLangChain(d.w, f.msgs, f.obj)
	case FormatAISDKMessages:
		d.w.path = append(d.w.path[:0], f.at...)
		c = readModelMessages(d.w, f.msgs, f.obj)
	case FormatAISDKUIMessages:
		d.w.path = append(d.w.path[:0], f.at...)
		c = readUIMessages(d.w, f.msgs)
	case FormatMastra:
		d.w.path = append(d.w.path[:0], f.at...)
		c = readMastra(d.w, f.msgs)
	case FormatLlamaIndex:
		d.w.path = append(d.w.path[:0], f.at...)
		c = readLlamaMessages(d.w, f.msgs)
	case FormatLlamaIndexEvents:
		c = readLlamaEvents(d.w, f.msgs)
	case FormatInspect:
		c = readInspectLog(d.w, f.obj)
	case FormatClaudeCode, FormatOTel, FormatAgentsTrace:
		r := newLineReader(f.format)
		c = r.cassette()
		c.Runs = append(readDoc(r, d.w, v), r.finish()...)
	}
	if c != nil {
		if d.clean() {
			check(d.w, c, v)
		}
		return c
	}
	if strings.HasPrefix(f.problem, "unrecognized") && unrecognizedCalls(d.w, v) {
		return nil
	}
	// Not a recording: the file may be anything, its lines are not to be
	// shown.
	d.w.path = f.at
	d.w.errorf("%s", f.problem)
	d.w.probs[len(d.w.probs)-1].hide = true
	return nil
}

// hasKey reports whether the value at i is an object with the member key.
func (d *decoder) hasKey(i int, key string) bool {
	if d.data[i] != '{' {
		return false
	}
	found := false
	d.members(i, func(k string, _, _ int) bool {
		found = k == key
		return !found
	})
	return found
}

// err is the error of the document read: the first number out of range
// alone, as encoding/json reports it, else the decode budget spent, alone,
// else every problem and repeated key (the first maxProblems of them), or
// nil.
func (d *decoder) err(file string) error {
	if d.rangeOff >= 0 {
		e := errorAt(file, d.data, d.rangeOff, "",
			fmt.Sprintf("number %s is out of range: a JSON number must fit a 64-bit float", clip(d.rangeLit, 40)))
		e.HideSource = true
		return e
	}
	if d.overOff >= 0 {
		return d.overError(file, "")
	}
	if d.clean() {
		return nil
	}
	return errorsAt(file, d.data, d.w)
}

// overError is the error of a document whose decode budget ran out, alone:
// what the readers made of its values past that point is not its problem.
// prefix starts the message (naming an archive's member).
func (d *decoder) overError(file, prefix string) *diag.Error {
	e := errorAt(file, d.data, d.overOff, "", prefix+jsonpos.BudgetError("decoding stopped here: the values before this point take up", len(d.data)))
	e.HideSource = true
	return e
}

// clip shortens s to n characters, marking the cut with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// syntaxError positions an encoding/json error. The file is not JSON, so
// it may be anything (a key file named as a cassette): the error quotes at
// most the offending character and asks not to echo the source line.
func syntaxError(path string, data []byte, err error) error {
	e := syntaxErrorAt(path, data, err)
	e.HideSource = true
	return e
}

func syntaxErrorAt(path string, data []byte, err error) *diag.Error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errorAt(path, data, 0, "", "the file is empty: expected a cassette, a JSON object")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		// At the end of the input the scanner reports either "unexpected
		// end" or, inside a literal, the space it pretends to read there.
		if off >= len(data) && (strings.HasPrefix(se.Error(), "unexpected end") || strings.HasPrefix(se.Error(), "invalid character ' '")) {
			return errorAt(path, data, len(data), "",
				"invalid JSON: the file ends before the JSON value is complete")
		}
		// Offset counts the bytes read, the offending one included.
		return errorAt(path, data, max(off-1, 0), "", "invalid JSON: "+se.Error())
	}
	return errorAt(path, data, 0, "", "invalid JSON: "+err.Error())
}

// detected is what detect found at the root of a document.
type detected struct {
	format Format
	obj    map[string]any // the root object, when the root is one
	msgs   []any          // the transcript's messages
	at     []seg          // the path of msgs
	// one marks a transcript of a single message, the value at at itself.
	one bool
	// choices are the choices of a Chat Completions response object.
	choices []any
	// bare marks a document that is the tool_calls array of an OpenAI
	// assistant message, or the content blocks of an Anthropic one: msgs
	// holds its elements.
	bare bool
	// problem says why nothing was recognised (format ""), about the
	// value at path at.
	problem string
}

// tried names the formats detect tries, for the error when none fits.
const tried = `tried an mcptest cassette ("mcptest_cassette"), ` +
	`a transcript (a "messages" array, an array of messages with a "role", or an object holding one), ` +
	`one message ("role") or its tool calls, a Chat Completions response ("choices"), ` +
	`OpenAI Responses output ("output") or Agents SDK items ("callId"), OTLP JSON spans ("resourceSpans"), ` +
	`the OpenAI Agents SDK's trace export ("object": "trace.span"), ` +
	`LangChain messages ("lc": 1 constructors, or StoredMessage {"type", "data"}), ` +
	`AI SDK ModelMessage arrays ("tool-call" parts), AI SDK UIMessage arrays ("tool-<name>" parts) ` +
	`and Claude Code stream-json ("type" and "session_id"), as docs/traces.md describes`

func unrecognized(found string) string {
	return "unrecognized recording: " + tried + "; found " + found
}

// detect works out the format of a decoded document from its content.
func detect(root any) detected {
	if msgs, obj, at, ok := langChainRoot(root); ok {
		return detected{format: FormatLangChain, msgs: msgs, obj: obj, at: at}
	}
	if msgs, at, ok := messagesRoot(root, isModelMessages); ok {
		obj, _ := root.(map[string]any)
		return detected{format: FormatAISDKMessages, msgs: msgs, at: at, obj: obj}
	}
	if msgs, at, ok := messagesRoot(root, isUIMessages); ok {
		return detected{format: FormatAISDKUIMessages, msgs: msgs, at: at}
	}
	if f, ok := detectMore(root); ok {
		return f
	}
	switch root := root.(type) {
	case map[string]any:
		return detectObject(root)
	case []any:
		return detectArray(root)
	}
	return detected{problem: unrecognized(describe(root))}
}

// detectObject works out the format of a document that is an object.
func detectObject(root map[string]any) detected {
	if _, ok := root["mcptest_cassette"]; ok {
		return detected{format: FormatV1, obj: root}
	}
	if msgs, ok := root["messages"].([]any); ok {
		return classified(root, msgs, []seg{{key: "messages", idx: -1}})
	}
	switch {
	case isOTLP(root):
		return detected{format: FormatOTel, obj: root}
	case isAgentsTrace(root):
		return detected{format: FormatAgentsTrace, obj: root}
	case isClaudeEvent(root):
		return detected{format: FormatClaudeCode, obj: root}
	case isResponse(root):
		return detected{format: FormatResponses, obj: root}
	}
	if choices, ok := root["choices"].([]any); ok {
		return completion(root, choices)
	}
	if hasRole(root) {
		f := classified(nil, []any{root}, nil)
		f.one = true
		return f
	}
	var found []string
	for k, v := range root {
		if isMessages(v) {
			found = append(found, k)
		}
	}
	sort.Strings(found)
	switch len(found) {
	case 1:
		return classified(root, root[found[0]].([]any), []seg{{key: found[0], idx: -1}})
	case 0:
		return detected{problem: unrecognized(describeObject(root))}
	default:
		return detected{problem: fmt.Sprintf("ambiguous transcript: arrays of messages under %s; "+
			"a transcript holds one conversation, under \"messages\"", quoteList(found))}
	}
}

// detectArray works out the format of a document that is an array.
func detectArray(root []any) detected {
	if len(root) == 0 {
		return detected{problem: unrecognized("an empty array")}
	}
	first, _ := root[0].(map[string]any)
	if first != nil && isClaudeEvent(first) {
		return detected{format: FormatClaudeCode}
	}
	if first != nil && isAgentsTraceItem(first) {
		return detected{format: FormatAgentsTrace}
	}
	for _, v := range root {
		if m, ok := v.(map[string]any); ok && (isResponse(m) || isResponsesItem(m)) {
			return detected{format: FormatResponses}
		}
	}
	if hasRole(root[0]) {
		return classified(nil, root, nil)
	}
	if f, ok := bareAssistant(root); ok {
		return f
	}
	return detected{problem: unrecognized("an array whose first element is " + describe(root[0]) + ", not a message with a \"role\"")}
}

// bareAssistant detects the output of one assistant message without its
// message, as promptfoo stores it: an array of OpenAI tool calls (each
// with a "function"), or of Anthropic content blocks with a tool_use.
func bareAssistant(root []any) (detected, bool) {
	calls, blocks, uses := 0, 0, 0
	for _, v := range root {
		m, _ := v.(map[string]any)
		if _, ok := m["function"].(map[string]any); ok {
			calls++
		}
		switch m["type"] {
		case "tool_use":
			uses++
			blocks++
		case "text", "thinking", "redacted_thinking":
			blocks++
		}
	}
	switch {
	case calls == len(root):
		return detected{format: FormatOpenAI, msgs: root, bare: true}, true
	case blocks == len(root) && uses > 0:
		return detected{format: FormatAnthropic, msgs: root, bare: true}, true
	}
	return detected{}, false
}

// completion is the detection of a Chat Completions response object: its
// format from the shape of the chosen messages.
func completion(root map[string]any, choices []any) detected {
	var msgs []any
	for _, ch := range choices {
		if m, ok := ch.(map[string]any); ok && m["message"] != nil {
			msgs = append(msgs, m["message"])
		}
	}
	f := classified(root, msgs, nil)
	f.choices = choices
	return f
}

// classified is a transcript's detection: its format from the shape of its
// messages, or a problem when they mix both formats.
func classified(obj map[string]any, msgs []any, at []seg) detected {
	f := classify(obj, msgs)
	if f == "" {
		return detected{at: at, problem: "the messages mix OpenAI Chat Completions tool calls (tool_calls, role \"tool\") " +
			"and Anthropic Messages tool blocks (tool_use, tool_result) in equal number: a transcript is in one format"}
	}
	return detected{format: f, obj: obj, msgs: msgs, at: at}
}

// isMessages reports whether v is a non-empty array of objects that all
// carry a string "role".
func isMessages(v any) bool {
	a, ok := v.([]any)
	if !ok || len(a) == 0 {
		return false
	}
	for _, m := range a {
		if !hasRole(m) {
			return false
		}
	}
	return true
}

func hasRole(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m["role"].(string)
	return ok
}

// describeObject names an object by its first keys, sorted.
func describeObject(m map[string]any) string {
	if len(m) == 0 {
		return "an empty object"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	more := ""
	if len(keys) > 6 {
		more = fmt.Sprintf(" and %d more", len(keys)-6)
		keys = keys[:6]
	}
	return "an object with keys " + quoteList(keys) + more
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, k := range s {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}

// OpensAsCassette reports whether data, a recording, opens as an mcptest
// cassette: a JSON object whose first member is "mcptest_cassette". It
// reads no further than that member's key, so a caller can tell at once
// a cassette, whose runs Stream hands out one at a time, from a recording
// whose reader builds its run whole.
func OpensAsCassette(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	i := jsonpos.Space(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = jsonpos.Space(data, i+1)
	return bytes.HasPrefix(data[i:], []byte(`"mcptest_cassette"`))
}
