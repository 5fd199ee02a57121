package cassette

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// The read-or-refused invariant. Whatever reader read a recording, every
// call-shaped object its JSON holds must be one a call of the cassette was
// made from, and every result must answer a call the cassette has: else
// the reader lost calls (a framework one version newer, a shape nobody
// wrote a reader for) and the gates would judge the runs without them. The
// audit is generic: it knows the key spellings the formats use for a
// tool's name, a call's id, its arguments and its result, not the formats,
// so a reader added later is held to it without a line of its own.
//
// Every document read from its generic value passes here (detected, and
// each line of a recording spread over lines), after its reader. The two
// readers that decode straight into the model, the mcptest cassette (v1)
// and readChat, are closed: they refuse (or hand to the generic path) any
// member they do not read, so no call-shaped object can sit in them
// unread, and the audit does not walk them. The readers that read a
// document a piece at a time (readPiecewise) walk each piece at its depth
// in the document as it is read, and hand the file to the generic path
// when the audit of the whole finds something lost (passed).

// Key spellings, as the known formats write them.
var (
	// nameKeys name a tool: name, toolName, tool_name, tool, function
	// (a string, as Inspect writes it), and the nested function.name and
	// tool.name (see callName).
	nameKeys = [...]string{"name", "toolName", "tool_name", "tool", "function"}
	// idKeys hold a call's id; all but "id" (which any object may have)
	// are also the ids a result refers to its call by. isArgKey and
	// isResKey hold the spellings of arguments and results.
	idKeys = [...]string{"id", "toolCallId", "tool_call_id", "call_id", "callId", "tool_use_id", "toolUseId"}
)

func isIDKey(k string) bool {
	switch k {
	case "id", "toolCallId", "tool_call_id", "call_id", "callId", "tool_use_id", "toolUseId":
		return true
	}
	return false
}

func isArgKey(k string) bool {
	switch k {
	case "arguments", "args", "input", "parameters", "tool_input", "toolInput":
		return true
	}
	return false
}

func isResKey(k string) bool {
	switch k {
	case "result", "output", "content", "toolResult", "tool_result":
		return true
	}
	return false
}

// shape is what the first pass of the audit counts of one tool name.
type shape struct {
	n int
	// ids are the call ids of the objects naming the tool, one per object
	// that has one (the id its results refer to it by, else its "id");
	// more are the other ids they carry (a Responses item's "id" beside
	// its "call_id").
	ids, more []string
}

// audit collects the call-shaped content of a recording's documents and
// the calls read from them, and tells which content no call was made
// from. Its first pass keeps counts and ids only, so a good file pays
// for a map lookup per call-shaped object; where something is lost, a
// second pass (locate) finds where, in a fixed order.
type audit struct {
	// named is the call-shaped objects by the tool they name, attrs the
	// span attributes naming a tool (a flattened call, found once per
	// span that mentions it).
	named, attrs map[string]*shape
	// refs are the call ids results refer to.
	refs []string
	// calls counts the calls read by every name a call answers to.
	calls map[string]int
	// spent are the names the readers read as something other than a
	// call (an Agents SDK handoff).
	spent map[string]bool
}

// The kinds of content the audit finds.
const (
	noShape = iota
	namedShape
	attrShape
	refShape
)

// walk collects the call-shaped content of v, a decoded document or one
// line of a file.
func (a *audit) walk(v any) {
	visit(v, 0, nil, a.found, a)
}

// found counts what the first pass finds but a named object, which
// classify counts with its ids.
func (a *audit) found(kind int, key string, _ map[string]any) bool {
	switch kind {
	case attrShape:
		a.attrs = count(a.attrs, key)
	case refShape:
		a.refs = append(a.refs, key)
	}
	return false
}

// count counts one more object of name in shapes.
func count(shapes map[string]*shape, name string) map[string]*shape {
	if shapes == nil {
		shapes = map[string]*shape{}
	}
	s := shapes[name]
	if s == nil {
		s = &shape{}
		shapes[name] = s
	}
	s.n++
	return shapes
}

// visit walks v, calling found with each piece of call-shaped content
// (its kind, the tool name or the call id it refers to, the object)
// until found returns true. a, when not nil, also has each named object
// counted with its ids. path, when not nil, is kept as the path of the
// value visited, and the members of an object are visited in key order
// (the second pass); else in map order (the first).
func visit(v any, depth int, path *[]seg, found func(kind int, key string, m map[string]any) bool, a *audit) bool {
	if depth > maxShapeDepth {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		var f members
		f.scan(v)
		kind, key, skip := shapeKind(v, &f, a)
		if kind != noShape && found(kind, key, v) {
			return true
		}
		if path == nil && !f.more {
			for _, c := range f.kids[:f.nkids] {
				if !skip.skip(c.key) && visit(c.val, depth+1, nil, found, a) {
					return true
				}
			}
			return false
		}
		if path == nil {
			for k, e := range v {
				if container(e) && !skip.skip(k) {
					if visit(e, depth+1, nil, found, a) {
						return true
					}
				}
			}
			return false
		}
		for _, k := range sortedKeys(v) {
			if e := v[k]; container(e) && !skip.skip(k) {
				*path = append(*path, seg{key: k, idx: -1})
				if visit(e, depth+1, path, found, a) {
					return true
				}
				*path = (*path)[:len(*path)-1]
			}
		}
	case []any:
		for i, e := range v {
			if !container(e) {
				continue
			}
			if path != nil {
				*path = append(*path, seg{idx: i})
			}
			if visit(e, depth+1, path, found, a) {
				return true
			}
			if path != nil {
				*path = (*path)[:len(*path)-1]
			}
		}
	}
	return false
}

func container(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// skipper tells which members of an object the audit does not search.
type skipper struct {
	// payload marks a call's object: its arguments and result are the
	// call's data, and nest is the member its name came from
	// (function.name).
	payload bool
	nest    string
}

func (s skipper) skip(k string) bool {
	return isCatalogKey(k) || s.payload && (isArgKey(k) || isResKey(k) || k == s.nest)
}

// isCatalogKey reports whether a member named k holds tool definitions,
// which name tools that need not have been called.
func isCatalogKey(k string) bool {
	switch k {
	case "tools", "functions", "inputSchema", "input_schema", "json_schema", "outputSchema":
		return true
	}
	return false
}

// shapeKind says what m is: call-shaped (naming a tool with an id,
// arguments, a result or a call's type), a result referring to a call id,
// a span attribute naming a tool, or none; with the name or id, and the
// members not to search. a, when not nil, counts a named object with its
// ids.
func shapeKind(m map[string]any, f *members, a *audit) (int, string, skipper) {
	none := skipper{}
	if f.key != "" && len(m) <= 2 {
		if isToolAttr(f.key) {
			if name := otlpString(m["value"]); name != "" {
				return attrShape, name, none
			}
		}
		return noShape, "", none
	}
	if f.role != "" && f.role != "tool" && f.role != "function" || f.toolCalls {
		// A message may name its author, not a tool; one that carries
		// calls is searched for them.
		return noShape, "", none
	}
	name, nameKey := f.callName()
	// A message's content is a result only where the message is a tool's
	// (it refers to its call, or says it is a tool's).
	res := f.res || f.content && (f.ref != "" || f.hasRole)
	canon := f.ref
	if canon == "" {
		canon = f.id
	}
	nest, canon := f.nest(nameKey, canon)
	switch {
	case name != "" && (canon != "" || f.args || res || isCallType(f.typ)):
		if a != nil {
			a.noteNamed(m, f, name, canon)
		}
		return namedShape, name, skipper{payload: true, nest: nest}
	case f.ref != "" && res:
		return refShape, f.ref, skipper{payload: true}
	}
	return noShape, "", none
}

// noteNamed counts an object naming the tool name, of call id canon
// ("" for none), with every id it carries.
func (a *audit) noteNamed(m map[string]any, f *members, name, canon string) {
	a.named = count(a.named, name)
	s := a.named[name]
	if canon != "" {
		s.ids = append(s.ids, canon)
	}
	if f.id != "" && f.id != canon || f.extra > 0 {
		s.more = append(s.more, ids(m)...)
	}
	if f.inner != nil {
		s.more = append(s.more, ids(f.inner)...)
	}
}

// members is what one pass over the members of an object finds: its
// call ids (the one a result refers by, ref, with extra more; its "id"),
// the spellings of a tool's name, whether it carries arguments or a
// result, its type, role and span attribute key, and its members that
// are objects or arrays (kids, the first maxKids; more when it has more).
type members struct {
	ref, refKey, id                 string
	extra                           int
	args, res, content              bool
	hasRole, toolCalls              bool
	typ, role, key                  string
	name, toolName, toolSnake, tool string
	fnName                          string
	fn, toolObj                     map[string]any
	// inner is a call nested whole in a part: toolInvocation (AI SDK 4,
	// Mastra), toolCall.
	inner    map[string]any
	innerKey string
	kids     [maxKids]kid
	nkids    int
	more     bool
}

type kid struct {
	key string
	val any
}

// maxKids is how many container members of an object the first pass
// keeps to descend into without iterating the object again.
const maxKids = 6

func (f *members) scan(m map[string]any) {
	for k, e := range m {
		if container(e) {
			if f.nkids < maxKids {
				f.kids[f.nkids] = kid{k, e}
				f.nkids++
			} else {
				f.more = true
			}
		}
		switch k {
		case "id", "toolCallId", "tool_call_id", "call_id", "callId", "tool_use_id", "toolUseId":
			f.noteID(k, e)
		case "arguments", "args", "input", "parameters", "tool_input", "toolInput":
			f.args = f.args || e != nil && !isSchema(e)
		case "content":
			f.content = e != nil
		case "result", "output", "toolResult", "tool_result":
			f.res = f.res || e != nil
		case "type":
			f.typ, _ = e.(string)
		case "role":
			f.hasRole = true
			f.role, _ = e.(string)
		case "tool_calls":
			f.toolCalls = true
		case "key":
			f.key, _ = e.(string)
		case "name":
			f.name, _ = e.(string)
		case "toolName":
			f.toolName, _ = e.(string)
		case "tool_name":
			f.toolSnake, _ = e.(string)
		case "tool":
			f.tool, _ = e.(string)
			f.toolObj, _ = e.(map[string]any)
		case "toolInvocation", "toolCall", "tool_call":
			if in, ok := e.(map[string]any); ok {
				f.inner, f.innerKey = in, k
			}
		case "function":
			// An Inspect tool call names its tool as a string; the
			// Chat Completions call nests it (function.name).
			f.fn, _ = e.(map[string]any)
			f.fnName, _ = e.(string)
		}
	}
}

// callName is callName of the object scanned.
func (f *members) callName() (string, string) {
	switch {
	case f.name != "":
		return f.name, "name"
	case f.toolName != "":
		return f.toolName, "toolName"
	case f.toolSnake != "":
		return f.toolSnake, "tool_name"
	case f.tool != "":
		return f.tool, "tool"
	case f.fnName != "":
		return f.fnName, "function"
	}
	if s, _ := f.fn["name"].(string); s != "" {
		return s, "function.name"
	}
	if s, _ := f.toolObj["name"].(string); s != "" {
		return s, "tool.name"
	}
	for _, k := range [...]string{"toolName", "name", "tool_name"} {
		if s, _ := f.inner[k].(string); s != "" {
			return s, f.innerKey + "." + k
		}
	}
	return uiPartName(f.typ)
}

// nest is the member a name found in a member (function.name,
// toolInvocation.toolName) came from, which is part of this call and not
// searched again, with the call id: canon, else the nested call's.
func (f *members) nest(nameKey, canon string) (string, string) {
	nest, _, nested := strings.Cut(nameKey, ".")
	if !nested {
		return "", canon
	}
	if nest == f.innerKey && canon == "" {
		if ids := ids(f.inner); len(ids) > 0 {
			canon = ids[len(ids)-1]
		}
	}
	return nest, canon
}

// noteID notes the id e under the id key k.
func (f *members) noteID(k string, e any) {
	s, _ := e.(string)
	switch {
	case s == "":
	case k == "id":
		f.id = s
	case f.ref == "" || k < f.refKey:
		if f.ref != "" {
			f.extra++
		}
		f.ref, f.refKey = s, k
	default:
		f.extra++
	}
}

// ids are every call id m carries.
func ids(m map[string]any) []string {
	var out []string
	for _, k := range idKeys {
		if s, _ := m[k].(string); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// keysOf are the members of m that make it call-shaped, for a message.
func keysOf(m map[string]any) []string {
	var out []string
	if _, k := callName(m); k != "" {
		out = append(out, k)
	}
	for _, k := range sortedKeys(m) {
		if typ, _ := m[k].(string); isIDKey(k) || isArgKey(k) || isResKey(k) || k == "type" && isCallType(typ) {
			out = append(out, k)
		}
	}
	return out
}

// callName is the tool m names, under any of the spellings of nameKeys,
// the nested function.name or tool.name, or the type of an AI SDK
// UIMessage tool part ("tool-<name>"), with the key it was found at.
func callName(m map[string]any) (string, string) {
	for _, k := range nameKeys {
		if s, _ := m[k].(string); s != "" {
			return s, k
		}
	}
	for _, k := range [...]string{"function", "tool"} {
		if in, ok := m[k].(map[string]any); ok {
			if s, _ := in["name"].(string); s != "" {
				return s, k + ".name"
			}
		}
	}
	typ, _ := m["type"].(string)
	return uiPartName(typ)
}

// uiPartName is the tool an AI SDK UIMessage part type "tool-<name>"
// names, with the key "type"; "" for any other type.
func uiPartName(typ string) (string, string) {
	if name, ok := strings.CutPrefix(typ, "tool-"); ok {
		switch name {
		case "", "call", "result", "error", "invocation", "approval-request", "approval-response":
		default:
			return name, "type"
		}
	}
	return "", ""
}

// isCallType reports whether a "type" value says its object is a call or
// its result: tool_use, tool-call, function_call, tool_call, the
// results of those, an invocation.
func isCallType(t string) bool {
	if len(t) > 48 || t == "" {
		return false
	}
	t = strings.ToLower(t)
	return strings.Contains(t, "call") || strings.Contains(t, "tool_use") || strings.Contains(t, "tool-use") ||
		strings.Contains(t, "tool_result") || strings.Contains(t, "tool-result") || strings.Contains(t, "invocation")
}

// isSchema reports whether v, under an arguments key, is a JSON Schema
// (a tool's declared parameters), not arguments: an empty object or one
// with "properties" or "type": "object".
func isSchema(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := m["properties"]; ok || len(m) == 0 {
		return true
	}
	return m["type"] == "object" && len(m) <= 4 && (m["required"] != nil || m["additionalProperties"] != nil || len(m) == 1)
}

// isToolAttr reports whether a span attribute key names the tool of a
// call: tool.name, gen_ai.tool.name, ai.toolCall.name, and the tool calls
// of LLM spans (…tool_call.function.name).
func isToolAttr(k string) bool {
	for _, suffix := range [...]string{"tool.name", "toolCall.name", "tool_call.name", "tool_name", "toolName"} {
		if k == suffix || strings.HasSuffix(k, "."+suffix) {
			return true
		}
	}
	return strings.HasSuffix(k, ".function.name") && (strings.Contains(k, "tool_call") || strings.Contains(k, "toolCall"))
}

// read counts the calls of runs and the names they answer to.
func (a *audit) read(runs []Run) {
	for i := range runs {
		for _, t := range runs[i].Turns {
			for j := range t.Calls {
				a.call(&t.Calls[j])
			}
		}
	}
}

func (a *audit) call(c *Call) {
	if a.calls == nil {
		a.calls = map[string]int{}
	}
	// server.tool and mcp__server__tool are matched by their last part
	// (made).
	a.calls[fold(c.Tool)]++
	if c.RecordedAs != "" && c.RecordedAs != c.Tool {
		a.calls[fold(c.RecordedAs)]++
	}
}

// made counts the calls read that the name answers to: the name itself,
// or, for a name qualified by its server or a prefix (mcp__fs__read,
// functions.read), its last part after a separator.
func (a *audit) made(name string) int {
	name = fold(name)
	if n := a.calls[name]; n > 0 || len(a.calls) == 0 {
		return n
	}
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '.', '_', '-', '/', ':':
			if n := a.calls[name[i+1:]]; n > 0 {
				return n
			}
		}
	}
	return 0
}

// fold is a tool name as the audit compares it: the frameworks rewrite
// names to fit their function-name rules (get-sum becomes get_sum), so
// case and separators do not tell two names apart.
func fold(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r == '-':
			return '_'
		}
		return r
	}, name)
}

// lost is one piece of call-shaped content no call was made from: its
// kind, the tool name or call id, and its message given the first object
// of it.
type lost struct {
	kind int
	key  string
	msg  func(m map[string]any) string
}

// lost returns what the audit found that no call was read from, one per
// tool name and per result id, in a fixed order.
func (a *audit) lost(c *Cassette, runs int) []lost {
	var out []lost
	var known []string
	for _, name := range sortedKeys(a.named) {
		s := a.named[name]
		made := a.made(name)
		if a.spent[name] {
			known = append(append(known, s.ids...), s.more...)
			continue
		}
		if made > 0 {
			known = append(append(known, s.ids...), s.more...)
			// Objects without an id are taken for the calls the others
			// name (a result found by its tool): ids count the calls.
			if s.n <= made || distinct(s.ids) <= made {
				continue
			}
		}
		out = append(out, lost{namedShape, name, func(m map[string]any) string {
			return a.namedMsg(c, runs, name, s, made, m)
		}})
	}
	for _, name := range sortedKeys(a.attrs) {
		s := a.attrs[name]
		if a.spent[name] || a.made(name) > 0 {
			continue
		}
		out = append(out, lost{attrShape, name, func(m map[string]any) string {
			return a.namedMsg(c, runs, name, s, 0, m)
		}})
	}
	if len(a.refs) == 0 {
		return out
	}
	sort.Strings(known)
	refs := append([]string(nil), a.refs...)
	sort.Strings(refs)
	for i, id := range refs {
		if i > 0 && refs[i-1] == id {
			continue
		}
		if _, ok := slices.BinarySearch(known, id); ok {
			continue
		}
		out = append(out, lost{refShape, id, func(m map[string]any) string {
			return fmt.Sprintf("a result (keys %s) refers to the call id %q, but no call read from the file has that id: "+
				"the %s reader did not read the call it answers, and without it the recording would pass every tool gate",
				quoteList(keysOf(m)), id, c.Format)
		}})
	}
	return out
}

// locate finds the first object (members in key order) of l in v, with
// its path; false when v holds none.
func (l lost) locate(v any) ([]seg, map[string]any, bool) {
	var path []seg
	var obj map[string]any
	ok := visit(v, 0, &path, func(kind int, key string, m map[string]any) bool {
		if kind == l.kind && key == l.key {
			obj = m
			return true
		}
		return false
	}, nil)
	return path, obj, ok
}

func (a *audit) namedMsg(c *Cassette, runs int, name string, s *shape, made int, m map[string]any) string {
	if made == 0 {
		return fmt.Sprintf("%s, but holds %s; read without its calls, the recording would pass every tool gate",
			a.readAs(c, runs, name), describeShape(c, m, name, s.n))
	}
	return fmt.Sprintf("the file reads as %s with %s of the tool %q, but holds %s with %d call ids; "+
		"the calls the reader did not read would be missing from every gate",
		c.Format, plural(made, "call"), name, describeShape(c, m, name, s.n), distinct(s.ids))
}

// describeShape names what was found, m the first of n: a known shape
// with the reader that takes it, else the keys that make it call-shaped.
func describeShape(c *Cassette, m map[string]any, name string, n int) string {
	if what, tool, source, reader, ok := shapeOf(m); ok && tool == name {
		cs := callShape{what: what, tool: tool, source: source, reader: reader, count: n}
		return cs.found(c.Format)
	}
	if k, ok := m["key"].(string); ok {
		return fmt.Sprintf("a span attribute %q naming the tool %q%s, a call the spans hold that no reader of mcptest "+
			"takes where it sits (docs/traces.md)", k, name, times(n))
	}
	return fmt.Sprintf("an object naming the tool %q with the keys %s%s, call-shaped content no reader of mcptest "+
		"takes where it sits (docs/traces.md)", name, quoteList(keysOf(m)), times(n))
}

// readAs says what the file was read as, for content of a tool no call
// was read of.
func (a *audit) readAs(c *Cassette, runs int, name string) string {
	if len(a.calls) == 0 {
		return fmt.Sprintf("the file reads as %s with %s and no tool calls", c.Format, plural(runs, "run"))
	}
	return fmt.Sprintf("the file reads as %s with %s, none of the tool %q", c.Format, plural(runs, "run"), name)
}

func times(n int) string {
	if n > 1 {
		return fmt.Sprintf(" (the first of %d)", n)
	}
	return ""
}

func distinct(ids []string) int {
	if len(ids) < 2 {
		return len(ids)
	}
	s := append([]string(nil), ids...)
	sort.Strings(s)
	n := 1
	for i := 1; i < len(s); i++ {
		if s[i] != s[i-1] {
			n++
		}
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// check audits the document v read as c (its runs not yet handed out)
// and records a problem at each piece of call-shaped content no call was
// made from.
func check(w *walker, c *Cassette, v any) {
	a := &audit{spent: w.spent}
	a.read(c.Runs)
	a.walk(v)
	for _, l := range a.lost(c, len(c.Runs)) {
		if path, m, ok := l.locate(v); ok {
			w.path = append(w.path[:0], path...)
			w.errorf("%s", l.msg(m))
		}
	}
}

// spend records that the reader read the call-shaped content naming name
// as something other than a call (an Agents SDK handoff), so the audit
// does not count it lost.
func (w *walker) spend(name string) {
	if w.spent == nil {
		w.spent = map[string]bool{}
	}
	w.spent[name] = true
}

// passed reports whether c, read piece by piece with each piece walked by
// a, keeps every call-shaped object a reader could take as a call: the
// audit check makes of a document read whole, with nothing to place.
func (a *audit) passed(w *walker, c *Cassette) bool {
	a.spent = w.spent
	a.read(c.Runs)
	return len(a.lost(c, len(c.Runs))) == 0
}
