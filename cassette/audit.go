package cassette

import (
	"fmt"
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
// unread, and the audit does not walk them.

// Key spellings, as the known formats write them.
var (
	// nameKeys name a tool: name, toolName, tool_name, and the nested
	// function.name and tool.name (see callName).
	nameKeys = [...]string{"name", "toolName", "tool_name", "tool"}
	// idKeys hold a call's id; refKeys are the ids a result points at its
	// call with (not "id", which every object may have).
	idKeys  = [...]string{"id", "toolCallId", "tool_call_id", "call_id", "callId", "tool_use_id", "toolUseId"}
	argKeys = [...]string{"arguments", "args", "input", "parameters", "tool_input", "toolInput"}
	resKeys = [...]string{"result", "output", "content", "toolResult", "tool_result"}
)

// isRefKey reports whether k is an id key a result refers to its call by.
func isRefKey(k string) bool { return k != "id" && isIDKey(k) }

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

// shape is what the audit found of one tool name or one result id: the
// first object (in path order) with it, and how many.
type shape struct {
	path []seg
	// obj is the first object, for its description.
	obj  map[string]any
	line int // the line of a JSON Lines file, 0 in a document
	keys []string
	n    int
	// ids are the call ids of the objects naming the tool, one per object
	// that has one (the id its results refer to it by, else its "id"); all
	// are every id they carry.
	ids, all []string
}

// audit collects the call-shaped content of a recording's documents and
// the calls read from them, and tells which content no call was made
// from.
type audit struct {
	// named is the call-shaped objects by the tool they name, attrs the
	// span attributes naming a tool (a flattened call, found once per
	// span that mentions it).
	named, attrs map[string]*shape
	// refs is the results by the call id they refer to.
	refs map[string]*shape
	// calls counts the calls read by every name a call answers to.
	calls map[string]int
	// spent are the names the readers read as something other than a
	// call (an Agents SDK handoff).
	spent map[string]bool
	line  int
}

// walk collects the call-shaped content of v, a decoded document (or one
// line of a file, line > 0).
func (a *audit) walk(v any, line int) {
	a.line = line
	var path []seg
	a.value(v, &path, 0)
}

func (a *audit) value(v any, path *[]seg, depth int) {
	if depth > maxShapeDepth {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		skip := a.object(v, *path)
		for k, e := range v {
			switch e.(type) {
			case map[string]any, []any:
			default:
				continue
			}
			if skip != nil && skip(k) || isCatalogKey(k) {
				continue
			}
			*path = append(*path, seg{key: k, idx: -1})
			a.value(e, path, depth+1)
			*path = (*path)[:len(*path)-1]
		}
	case []any:
		for i, e := range v {
			switch e.(type) {
			case map[string]any, []any:
			default:
				continue
			}
			*path = append(*path, seg{idx: i})
			a.value(e, path, depth+1)
			*path = (*path)[:len(*path)-1]
		}
	}
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

// object records m when it is call-shaped, a result, or a span attribute
// naming a tool, and returns which of its members are the call's payload
// (arguments, result), not to be searched.
func (a *audit) object(m map[string]any, path []seg) func(string) bool {
	if k, ok := m["key"].(string); ok && len(m) <= 2 {
		if isToolAttr(k) {
			if name := otlpString(m["value"]); name != "" {
				a.attrs = note(a.attrs, name, path, a.line, []string{k}, m)
			}
		}
		return nil
	}
	if role, ok := m["role"].(string); ok && role != "tool" && role != "function" {
		return nil // a message: it may name its author, not a tool
	}
	if _, ok := m["tool_calls"]; ok {
		return nil // a message carrying calls, searched for them
	}
	name, nameKey := callName(m)
	var ids, keys []string
	args, res, content, kind := false, false, false, false
	ref, id := "", ""
	for k, e := range m {
		switch {
		case isIDKey(k):
			if s, _ := e.(string); s != "" {
				ids = append(ids, s)
				keys = append(keys, k)
				if k == "id" {
					id = s
				} else if ref == "" || k < ref {
					ref = s
				}
			}
		case isArgKey(k):
			if e != nil && !isSchema(e) {
				args = true
				keys = append(keys, k)
			}
		case k == "content":
			content = e != nil
		case isResKey(k):
			if e != nil {
				res = true
				keys = append(keys, k)
			}
		case k == "type":
			kind = isCallType(e)
		}
	}
	// A message's content is a result only where the message is a tool's
	// (it refers to its call, or says it is a tool's).
	if content && (ref != "" || m["role"] != nil) {
		res = true
		keys = append(keys, "content")
	}
	if kind {
		keys = append(keys, "type")
	}
	canon := ref
	if canon == "" {
		canon = id
	}
	switch {
	case name != "" && (canon != "" || args || res || kind):
		sort.Strings(keys)
		s := a.named[name]
		if s == nil {
			a.named = note(a.named, name, path, a.line, append([]string{nameKey}, keys...), m)
			s = a.named[name]
		} else {
			s.take(path, a.line, nameKey, keys, m)
		}
		if canon != "" {
			s.ids = append(s.ids, canon)
		}
		s.all = append(s.all, ids...)
	case ref != "" && res:
		sort.Strings(keys)
		a.refs = note(a.refs, ref, path, a.line, keys, m)
	default:
		return nil
	}
	return func(k string) bool {
		return isArgKey(k) || isResKey(k) || k == nameKey[:max(0, len(nameKey)-len(".name"))]
	}
}

// note records one more object of the name at path in shapes.
func note(shapes map[string]*shape, name string, path []seg, line int, keys []string, m map[string]any) map[string]*shape {
	if shapes == nil {
		shapes = map[string]*shape{}
	}
	if s := shapes[name]; s != nil {
		s.take(path, line, "", keys, m)
		return shapes
	}
	shapes[name] = &shape{path: append([]seg(nil), path...), line: line, keys: keys, n: 1, obj: m}
	return shapes
}

// take counts one more object of the shape, keeping the first by line and
// path so the error names the same one on every read (map order aside).
func (s *shape) take(path []seg, line int, nameKey string, keys []string, m map[string]any) {
	s.n++
	if line < s.line || line == s.line && pathLess(path, s.path) {
		s.path = append(s.path[:0:0], path...)
		s.line, s.obj = line, m
		if nameKey != "" {
			keys = append([]string{nameKey}, keys...)
		}
		s.keys = keys
	}
}

// pathLess orders paths: array indices by number, keys by text, a path
// before the paths it leads to.
func pathLess(a, b []seg) bool {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		if x.idx != y.idx {
			return x.idx < y.idx
		}
		if x.key != y.key {
			return x.key < y.key
		}
	}
	return len(a) < len(b)
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
	if typ, _ := m["type"].(string); strings.HasPrefix(typ, "tool-") {
		switch name := typ[len("tool-"):]; name {
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
func isCallType(v any) bool {
	t, _ := v.(string)
	if len(t) > 48 {
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
	a.calls[fold(c.Tool)]++
	if c.Server != "" {
		a.calls[fold(c.Server+"."+c.Tool)]++
	}
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

// lost is one piece of call-shaped content no call was made from.
type lost struct {
	path []seg
	line int
	msg  string
}

// lost returns what the audit found that no call was read from, one per
// tool name and per result id, ordered by line and path.
func (a *audit) lost(c *Cassette, runs int) []lost {
	var out []lost
	known := map[string]bool{}
	names := sortedKeys(a.named)
	for _, name := range names {
		s := a.named[name]
		made := a.made(name)
		if a.spent[name] {
			continue
		}
		if made > 0 {
			for _, id := range s.all {
				known[id] = true
			}
			// Objects without an id are taken for the calls the others
			// name (a result found by its tool): ids count the calls.
			if s.n <= made || distinct(s.ids) <= made {
				continue
			}
		}
		out = append(out, lost{s.path, s.line, a.namedMsg(c, runs, name, s, made)})
	}
	for _, name := range sortedKeys(a.attrs) {
		s := a.attrs[name]
		if a.spent[name] || a.made(name) > 0 {
			continue
		}
		out = append(out, lost{s.path, s.line, a.namedMsg(c, runs, name, s, 0)})
	}
	for _, id := range sortedKeys(a.refs) {
		s := a.refs[id]
		if known[id] || a.spentID(id) {
			continue
		}
		out = append(out, lost{s.path, s.line, fmt.Sprintf(
			"a result (keys %s) refers to the call id %q, but no call read from the file has that id: "+
				"the %s reader did not read the call it answers, and without it the recording would pass every tool gate",
			quoteList(s.keys), id, c.Format)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].line != out[j].line {
			return out[i].line < out[j].line
		}
		return pathLess(out[i].path, out[j].path)
	})
	return out
}

// spentID reports whether id is the call id of a name the reader spent
// (a handoff's result).
func (a *audit) spentID(id string) bool {
	for name := range a.spent {
		if s := a.named[name]; s != nil {
			for _, x := range s.all {
				if x == id {
					return true
				}
			}
		}
	}
	return false
}

func (a *audit) namedMsg(c *Cassette, runs int, name string, s *shape, made int) string {
	if made == 0 {
		return fmt.Sprintf("%s, but holds %s; read without its calls, the recording would pass every tool gate",
			a.readAs(c, runs, name), a.describe(c, s, name))
	}
	return fmt.Sprintf("the file reads as %s with %s of the tool %q, but holds %s with %d call ids; "+
		"the calls the reader did not read would be missing from every gate",
		c.Format, plural(made, "call"), name, a.describe(c, s, name), distinct(s.ids))
}

// describe names what was found: a known shape with the reader that
// takes it, else the keys that make it call-shaped.
func (a *audit) describe(c *Cassette, s *shape, name string) string {
	if what, tool, source, reader, ok := shapeOf(s.obj); ok && tool == name {
		cs := callShape{what: what, tool: tool, source: source, reader: reader, count: s.n}
		return cs.found(c.Format)
	}
	if k, ok := s.obj["key"].(string); ok {
		return fmt.Sprintf("a span attribute %q naming the tool %q%s, a call the spans hold that no reader of mcptest "+
			"takes where it sits (docs/traces.md)", k, name, times(s.n))
	}
	return fmt.Sprintf("an object naming the tool %q with the keys %s%s, call-shaped content no reader of mcptest "+
		"takes where it sits (docs/traces.md)", name, quoteList(s.keys), times(s.n))
}

// readAs says what the file was read as, for content of a tool no call
// was read of.
func (a *audit) readAs(c *Cassette, runs int, name string) string {
	total := 0
	for _, n := range a.calls {
		total += n
	}
	if total == 0 {
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// check audits the document v read as c (its runs not yet handed out)
// and records a problem at each piece of call-shaped content no call was
// made from.
func check(w *walker, c *Cassette, v any) {
	a := &audit{spent: w.spent}
	a.read(c.Runs)
	a.walk(v, 0)
	for _, l := range a.lost(c, len(c.Runs)) {
		w.path = append(w.path[:0], l.path...)
		w.errorf("%s", l.msg)
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
