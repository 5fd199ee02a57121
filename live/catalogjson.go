package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
)

// isJSON reports whether a catalog file is a JSON document, which is read
// from its bytes (checkJSON, decodeJSON): YAML would read a JSON file
// almost the same, but not quite (a surrogate-pair escape such as
// \ud83d\ude80 is refused, and a raw U+2028 inside a string is a line
// break that eats the spaces beside it).
func isJSON(data []byte) bool {
	return json.Valid(data)
}

// A JSON catalog is checked and decoded from its bytes, never from a tree
// of nodes: the check walks the document once for what a node tree gave
// the YAML checks (every mapping's keys, for duplicates; the root, the
// tools and their members, for their shapes), placing an error by its
// byte offset and turning the offsets of every error into lines and
// columns in one pass at the end (jsonpos.LineCols). The decoder reads
// each tool from its slice of the file into one map, types it and keeps
// it as compact text (catalogtext.go). What a catalog costs is then the
// file and the tools' texts (docs/benchmarks.md: "Catalogs read from
// their bytes" and "Catalogs kept as text").

// jsonProblem is an error of a JSON catalog found at a byte offset,
// placed when the walk is over.
type jsonProblem struct {
	off int
	e   *diag.Error
	// first is the offset of the first of a duplicate key, -1 for any
	// other problem; key and path name it in the message.
	first     int
	key, path string
}

// jsonCheck is one walk over a JSON catalog.
type jsonCheck struct {
	data     []byte
	problems []jsonProblem
	// fatal is a problem that ends the walk: the one error of the file,
	// as a reader that stops there reports it.
	fatal *jsonProblem
	// path is the member keys and item indexes from the root to the value
	// being walked, for the message of a duplicate key.
	path []pathStep
	// keys holds the offsets of the keys of the objects being walked,
	// each object's after its parent's.
	keys [][2]int
}

// pathStep is one step of a path: a member key (the offsets of its
// quotes), or an item index.
type pathStep struct {
	key   [2]int
	index int
	item  bool
}

// checkJSON checks a JSON catalog (a document json.Valid accepts) by the
// rules checkDoc applies to a YAML one, with the same errors.
func checkJSON(file string, data []byte) diag.List {
	w := &jsonCheck{data: data}
	root := jsonpos.Space(data, 0)
	w.value(root, 0)
	catalogLike := false
	if w.fatal == nil {
		catalogLike = w.structure(root)
	} else {
		w.problems = []jsonProblem{*w.fatal}
	}
	errs := w.place(file)
	if catalogLike {
		for _, e := range errs {
			e.Source = data
		}
	}
	return errs.Sorted()
}

// value walks the value at i, depth levels deep, for duplicate keys, a
// nesting over jsonpos.MaxDepth and a number a float64 cannot hold, and
// returns the offset just after it.
func (w *jsonCheck) value(i, depth int) int {
	switch {
	case w.fatal != nil:
		return len(w.data)
	case depth > jsonpos.MaxDepth:
		w.fatal = &jsonProblem{off: -1, first: -1, e: &diag.Error{Pos: diag.Pos{Line: 1, Col: 1},
			Message: fmt.Sprintf("invalid JSON: the document nests deeper than %d levels", jsonpos.MaxDepth)}}
		return len(w.data)
	}
	switch w.data[i] {
	case '{':
		return w.object(i, depth)
	case '[':
		return w.array(i, depth)
	case '"':
		return jsonpos.StringEnd(w.data, i)
	case 't', 'f', 'n':
		return jsonpos.ScalarEnd(w.data, i)
	}
	end := jsonpos.ScalarEnd(w.data, i)
	if lit := w.data[i:end]; !jsonpos.FitsFloat64(lit) {
		w.fatal = &jsonProblem{off: i, first: -1, e: &diag.Error{
			Message: fmt.Sprintf("the number %.40s is out of the range a JSON reader holds (a float64)", lit)}}
	}
	return end
}

// object walks the object at i: a key repeated among its members is a
// problem at the repetition, naming the first. Keys are compared as
// encoding/json reads them, without decoding a key of plain ASCII.
func (w *jsonCheck) object(i, depth int) int {
	var seen map[string]int // the keys of a large object: key to its first offset
	// The keys while there are few, their offsets, on the stack of keys
	// of the objects being walked (w.keys), which the next sibling reuses.
	mark := len(w.keys)
	defer func() { w.keys = w.keys[:mark] }()
	j := jsonpos.Space(w.data, i+1)
	for j < len(w.data) && w.data[j] != '}' {
		kEnd := jsonpos.StringEnd(w.data, j)
		first := -1
		if seen == nil {
			for _, k := range w.keys[mark:] {
				if w.sameKey(k[0], k[1], j, kEnd) {
					first = k[0]
					break
				}
			}
			if first < 0 {
				if w.keys = append(w.keys, [2]int{j, kEnd}); len(w.keys)-mark > 16 {
					seen = make(map[string]int, 2*(len(w.keys)-mark))
					for _, k := range w.keys[mark:] {
						seen[jsonpos.String(w.data[k[0]:k[1]])] = k[0]
					}
				}
			}
		} else if at, dup := seen[jsonpos.String(w.data[j:kEnd])]; dup {
			first = at
		} else {
			seen[jsonpos.String(w.data[j:kEnd])] = j
		}
		if first >= 0 {
			w.problems = append(w.problems, jsonProblem{off: j, first: first, key: jsonpos.String(w.data[j:kEnd]), path: w.pathString(), e: &diag.Error{}})
		}
		v := jsonpos.Space(w.data, jsonpos.Space(w.data, kEnd)+1)
		w.path = append(w.path, pathStep{key: [2]int{j, kEnd}})
		end := w.value(v, depth+1)
		w.path = w.path[:len(w.path)-1]
		j = w.next(end)
	}
	return j + 1
}

// sameKey reports whether the keys at [a, aEnd) and [b, bEnd) are one key
// as encoding/json reads them: byte for byte when both are plain ASCII,
// else decoded (an escape, or bytes that are not UTF-8, which decode to
// U+FFFD, can spell one key two ways).
func (w *jsonCheck) sameKey(a, aEnd, b, bEnd int) bool {
	ka, kb := w.data[a:aEnd], w.data[b:bEnd]
	if plainKey(ka) && plainKey(kb) {
		return string(ka) == string(kb)
	}
	return jsonpos.String(ka) == jsonpos.String(kb)
}

// plainKey reports whether a key is ASCII without an escape.
func plainKey(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// array walks the array at i.
func (w *jsonCheck) array(i, depth int) int {
	j := jsonpos.Space(w.data, i+1)
	for n := 0; j < len(w.data) && w.data[j] != ']'; n++ {
		w.path = append(w.path, pathStep{index: n, item: true})
		end := w.value(j, depth+1)
		w.path = w.path[:len(w.path)-1]
		j = w.next(end)
	}
	return j + 1
}

// next returns the offset of the next member or item after a value ending
// at end, or of the closing bracket.
func (w *jsonCheck) next(end int) int {
	j := jsonpos.Space(w.data, end)
	if j < len(w.data) && w.data[j] == ',' {
		j = jsonpos.Space(w.data, j+1)
	}
	return j
}

// pathString names the value being walked as duplicateKeys names it: a
// bare array of tools is tools, as a tools/list result's array is. It
// reads the steps diag.Path shows only, and of each key a bounded prefix
// (diag.KeyPrefix), so a duplicate key deep in the file or under a long
// key costs a bounded message.
func (w *jsonCheck) pathString() string {
	root := ""
	if w.data[jsonpos.Space(w.data, 0)] == '[' {
		root = "tools"
	}
	return diag.Path(root, len(w.path), func(i int) diag.Step {
		s := w.path[i]
		if s.item {
			return diag.Step{Index: s.index, Item: true}
		}
		return diag.Step{Key: diag.KeyPrefix(w.data[s.key[0]:s.key[1]], jsonpos.String)}
	})
}

// structure checks the root, the tools array and each tool as checkDoc
// and checkTool do, and reports whether the document reads as a catalog
// (an array, or a mapping with a key of a catalog or a near miss of one),
// whose errors carry its bytes.
func (w *jsonCheck) structure(root int) (catalogLike bool) {
	tools := root
	switch w.data[root] {
	case '[':
		catalogLike = true
	case '{':
		tools = -1
		w.members(root, func(k, kEnd, v int) {
			key := jsonpos.String(w.data[k:kEnd])
			if slices.Contains(catalogKeys, key) || diag.Suggest(key, catalogKeys) != "" {
				catalogLike = true
			}
			if key == "tools" {
				tools = v
			} else if e := unknownKey("", key, catalogKeys); e != nil {
				w.problems = append(w.problems, jsonProblem{off: k, first: -1, e: e})
			}
		})
		if tools < 0 {
			w.problem(root, msgMissingTools)
			return catalogLike
		}
	}
	if w.data[tools] != '[' {
		w.problem(tools, msgNotAList)
		return catalogLike
	}
	w.items(tools, func(n, t int) {
		w.tool(fmt.Sprintf("tools[%d]", n), t)
	})
	return catalogLike
}

// tool checks one tool as checkTool does, and holds it to the file's
// decode budget (cassette.OverBudget): the decoder reads each tool into a
// map, and a tool planted with JSON made to be expensive took 50 to 80
// times its bytes.
func (w *jsonCheck) tool(where string, t int) {
	if w.data[t] != '{' {
		w.problem(t, where+msgNotATool)
		return
	}
	if msg, over := cassette.OverBudget(w.data, t, where); over {
		w.problem(t, msg)
		return
	}
	hasName := false
	w.members(t, func(k, kEnd, v int) {
		key := jsonpos.String(w.data[k:kEnd])
		hasName = hasName || key == "name"
		msg, known := memberProblem(where, key, w.shape(v))
		switch {
		case msg != "":
			w.problem(v, msg)
		case !known:
			if e := unknownKey(where, key, toolKeys); e != nil {
				w.problems = append(w.problems, jsonProblem{off: k, first: -1, e: e})
			}
		}
	})
	if !hasName {
		w.problem(t, where+msgNoName)
	}
}

// shape is what the value at i is, as memberProblem tells values apart.
func (w *jsonCheck) shape(i int) valueShape {
	switch w.data[i] {
	case '{':
		return valueShape{kind: shapeMapping}
	case '[':
		return valueShape{kind: shapeSequence}
	case 'n':
		return valueShape{kind: shapeNull}
	case '"':
		return valueShape{kind: shapeString, text: jsonpos.String(w.data[i:jsonpos.StringEnd(w.data, i)])}
	}
	return valueShape{kind: shapeScalar}
}

func (w *jsonCheck) problem(off int, msg string) {
	w.problems = append(w.problems, jsonProblem{off: off, first: -1, e: &diag.Error{Message: msg}})
}

// members calls fn with the offsets of each member of the object at i:
// its key's start and end and its value's start.
func (w *jsonCheck) members(i int, fn func(k, kEnd, v int)) {
	j := jsonpos.Space(w.data, i+1)
	for j < len(w.data) && w.data[j] != '}' {
		kEnd := jsonpos.StringEnd(w.data, j)
		v := jsonpos.Space(w.data, jsonpos.Space(w.data, kEnd)+1)
		fn(j, kEnd, v)
		j = w.next(jsonpos.Skip(w.data, v))
	}
}

// items calls fn with the index and offset of each item of the array at i.
func (w *jsonCheck) items(i int, fn func(n, v int)) {
	j := jsonpos.Space(w.data, i+1)
	for n := 0; j < len(w.data) && w.data[j] != ']'; n++ {
		fn(n, j)
		j = w.next(jsonpos.Skip(w.data, j))
	}
}

// place gives each problem its line and column, counted in one pass over
// the bytes.
func (w *jsonCheck) place(file string) diag.List {
	offs := make([]int, 0, 2*len(w.problems))
	for _, p := range w.problems {
		offs = append(offs, p.off, p.first)
	}
	at := jsonpos.LineCols(w.data, offs)
	errs := make(diag.List, 0, len(w.problems))
	for _, p := range w.problems {
		e := p.e
		e.Kind, e.Pos.File = "catalog", file
		if p.off >= 0 {
			lc := at[p.off]
			e.Pos.Line, e.Pos.Col = lc[0], lc[1]
		}
		if p.first >= 0 {
			f := at[p.first]
			e.Message = duplicateMessage(p.path, p.key, f[0], f[1])
		}
		errs = append(errs, e)
	}
	return errs
}

// decodeJSON decodes a JSON catalog document: its lists other than the
// tools with encoding/json, and each tool from its own bytes into one map
// (jsonpos.Values, which keeps the keys and short values every tool
// repeats once), typed and kept as text (toolTexts), the map let go.
func decodeJSON(data []byte) (*Catalog, error) {
	root := jsonpos.Space(data, 0)
	var c Catalog
	tools := root
	switch data[root] {
	case '{':
		var l catalogLists
		if err := json.Unmarshal(data, &l); err != nil {
			return nil, err
		}
		c.ProtocolVersion, c.ServerInfo, c.Instructions = l.ProtocolVersion, l.ServerInfo, l.Instructions
		c.Resources, c.ResourceTemplates, c.Prompts = l.Resources, l.ResourceTemplates, l.Prompts
		tools = -1
		w := &jsonCheck{data: data}
		w.members(root, func(k, kEnd, v int) {
			if jsonpos.String(data[k:kEnd]) == "tools" {
				tools = v
			}
		})
		if tools < 0 || data[tools] != '[' {
			return nil, fmt.Errorf(`expected a "tools" array: the tools/list result lists the server's tools`)
		}
	case '[':
	default:
		return nil, fmt.Errorf(`expected a tools/list result {"tools": [...]} or an array of tools`)
	}
	var err error
	b := toolTexts{c: &c}
	w := &jsonCheck{data: data}
	w.items(tools, func(n, t int) {
		if err != nil {
			return
		}
		// checkJSON placed this error for a file; a document parsed
		// from elsewhere (ParseCatalog) meets it here.
		if msg, over := cassette.OverBudget(data, t, fmt.Sprintf("tools[%d]", n)); over {
			err = errors.New(msg)
			return
		}
		err = b.addAt(n, data, t)
	})
	if err != nil {
		return nil, err
	}
	if c.Tools == nil {
		c.Tools = []*mcp.Tool{}
	}
	return &c, nil
}

// catalogLists is a catalog document's members other than its tools, as
// encoding/json decodes them into a Catalog (a member of the wrong type
// refused, capabilities too, though a catalog file's are set from its
// lists).
type catalogLists struct {
	ProtocolVersion   string                  `json:"protocolVersion"`
	ServerInfo        *mcp.Implementation     `json:"serverInfo"`
	Capabilities      *mcp.ServerCapabilities `json:"capabilities"`
	Instructions      string                  `json:"instructions"`
	Resources         []*mcp.Resource         `json:"resources"`
	ResourceTemplates []*mcp.ResourceTemplate `json:"resourceTemplates"`
	Prompts           []*mcp.Prompt           `json:"prompts"`
}
