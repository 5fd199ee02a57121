package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// What a source of a sources: list may give the joined run (use:).
const (
	useCalls  = "calls"  // the calls, delegations and catalog
	useTokens = "tokens" // tokens and cost
	useModel  = "model"  // model and provider
	useAnswer = "answer" // each turn's final response
)

// Source is one entry of a test's sources: list: a recording of the same
// runs as the other entries, and what it gives each joined run.
type Source struct {
	// Cassette is the file, directory or glob as written; Pos its position.
	Cassette string
	Pos      diag.Pos
	// Use lists what the source gives: useCalls, useTokens, useModel,
	// useAnswer.
	Use []string
	// Key is the run target naming a run (key:), "" for a join by order;
	// KeyPos its position.
	Key    string
	KeyPos diag.Pos
	key    expr.Path
	// files are the files Cassette named when the suite was loaded; nil
	// when they were not found (a suite loaded before recording).
	files []string
}

// gives reports whether the source gives what.
func (src *Source) gives(what string) bool {
	return contains(src.Use, what)
}

// sources reads a test's sources: list: each entry's recording and what
// it gives, checking that one source gives the calls, that no two give
// the same thing and that either every source names a key or none does.
func (b *builder) sources(ptr string, c *Case, m map[string]any) {
	items, ok := m["sources"].([]any)
	if !ok {
		return
	}
	sptr := ptr + "/sources"
	c.SourcesPos = b.doc.KeyAt(sptr)
	if _, both := m["cassette"]; both {
		b.errorf(sptr, c.SourcesPos, "test %q names its recordings twice: `cassette:` reads one recording, `sources:` joins several; keep one of them", c.Name)
	}
	if b.broken(sptr) {
		return
	}
	given := map[string]int{} // what -> the 1-based source that gives it
	var keyed, unkeyed []int
	for i, item := range items {
		iptr := sptr + "/" + strconv.Itoa(i)
		im, _ := item.(map[string]any)
		src := &Source{Pos: b.doc.At(iptr + "/cassette"), Use: strings_(im["use"])}
		src.Cassette, _ = im["cassette"].(string)
		for j, u := range src.Use {
			if first, dup := given[u]; dup {
				uptr := iptr + "/use/" + strconv.Itoa(j)
				b.errorf(uptr, b.doc.At(uptr), "`%s` comes from one source, and sources %d and %d both give it: drop it from one `use:`", u, first, i+1)
				continue
			}
			given[u] = i + 1
		}
		if k, ok := im["key"].(string); ok {
			b.sourceKey(iptr+"/key", src, k)
			keyed = append(keyed, i+1)
		} else {
			unkeyed = append(unkeyed, i+1)
		}
		files, err := resolveCassettes(b.suite.Dir, src.Cassette)
		if err != nil && !b.unrecorded {
			b.errorf(iptr+"/cassette", src.Pos, "%v", err)
		}
		src.files = files
		c.Sources = append(c.Sources, src)
	}
	if _, ok := given[useCalls]; !ok {
		b.errorf(sptr, c.SourcesPos, "no source of test %q gives `calls`: exactly one source says `use: [calls]`, the recording whose calls the gates read", c.Name)
	}
	if len(keyed) > 0 && len(unkeyed) > 0 {
		iptr := sptr + "/" + strconv.Itoa(unkeyed[0]-1)
		b.errorf(iptr, b.doc.At(iptr), "source %d has no `key:` and source %d has one: runs are joined by key when every source names one, else by order", unkeyed[0], keyed[0])
	}
}

// sourceKey reads a source's key:, a target on the fields of a run.
func (b *builder) sourceKey(ptr string, src *Source, text string) {
	src.Key, src.KeyPos = text, b.doc.At(ptr)
	p, err := b.parsePath(text)
	if err != nil {
		b.pathError(ptr, src.KeyPos, err)
		return
	}
	if root := p.Segments()[0].Name; !contains(runRoots, root) || gateNamespace(text) {
		b.errorf(ptr, src.KeyPos, "key `%s` is not a field of a run: expected one of %s, such as `calls[0].arguments.request_id`", text, strings.Join(runRoots, ", "))
		return
	}
	src.key = p
}

// aliasTable is an aliases: mapping read: each other name's tool, and
// where the pair is written.
type aliasTable struct {
	to map[string]string
	at map[string]diag.Pos
}

// readAliases reads the aliases: mapping at ptr, {tool: other name or
// names}, into t, over what t holds: a name given to two tools here, a
// name that is its own tool, and an other name that is also a tool are
// errors.
func (b *builder) readAliases(ptr string, v any, t *aliasTable) {
	m, _ := v.(map[string]any)
	if m == nil || b.broken(ptr) {
		return
	}
	here := map[string]string{}
	for _, tool := range sortedKeys(m) {
		tptr := ptr + "/" + yamlpos.EscapePointer(tool)
		names := strings_(m[tool])
		if s, ok := m[tool].(string); ok {
			names = []string{s}
		}
		for i, name := range names {
			nptr := tptr
			if _, list := m[tool].([]any); list {
				nptr += "/" + strconv.Itoa(i)
			}
			pos := b.doc.At(nptr)
			switch first, dup := here[name]; {
			case name == tool:
				b.errorf(nptr, pos, "`%s` is given as another name of itself: an alias names a different spelling of the tool", name)
				continue
			case dup:
				b.errorf(nptr, pos, "`%s` is given as another name of both `%s` and `%s`: a name is one tool", name, first, tool)
				continue
			}
			here[name] = tool
			t.to[name], t.at[name] = tool, pos
		}
	}
	var chained []string
	for _, name := range sortedKeys(t.to) {
		if tool := t.to[name]; t.to[tool] != "" {
			b.errorf(ptr, t.at[tool], "`%s` is given as another name of `%s`, and is itself the tool `%s` is another name of: map every spelling to the one name the suite writes", tool, t.to[tool], name)
			chained = append(chained, name)
		}
	}
	for _, name := range chained {
		delete(t.to, name)
	}
}

// suiteAliases reads the suite's aliases:.
func (b *builder) suiteAliases(root map[string]any) {
	v, ok := root["aliases"]
	if !ok {
		return
	}
	t := &aliasTable{to: map[string]string{}, at: map[string]diag.Pos{}}
	b.readAliases("/aliases", v, t)
	if len(t.to) > 0 {
		b.suite.Aliases, b.suite.aliasAt = t.to, t.at
	}
}

// caseAliases gives a test the suite's aliases with its own aliases: over
// them: a name the test maps is the test's tool.
func (b *builder) caseAliases(ptr string, c *Case, m map[string]any) {
	v, ok := m["aliases"]
	if !ok {
		c.Aliases = b.suite.Aliases
		return
	}
	t := &aliasTable{to: map[string]string{}, at: map[string]diag.Pos{}}
	for name, tool := range b.suite.Aliases {
		t.to[name], t.at[name] = tool, b.suite.aliasAt[name]
	}
	b.readAliases(ptr+"/aliases", v, t)
	if len(t.to) > 0 {
		c.Aliases = t.to
	}
}

// String says which source a join error is about: its number and what it
// gives.
func (src *Source) String() string {
	return fmt.Sprintf("%s (%s)", src.Cassette, strings.Join(src.Use, ", "))
}
