package engine

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcptest/mcptest/gate"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/internal/yamlpos"
	"github.com/mcptest/mcptest/report"
)

// builder walks a schema-checked document into a Suite and checks what the
// schema cannot: unique names, declared servers, the target and matcher
// grammar, and that every cassette exists.
type builder struct {
	doc        *document
	suite      *Suite
	schemaErrs diag.List
	// brokenAt is the pointers of schemaErrs, sorted, for broken.
	brokenAt []string
	// schemaStop is the item the schema's check stopped at (validateSchema),
	// where the build stops too; "" for none.
	schemaStop string
	errs       diag.List
	names      map[string]string // case name -> pointer of its first use
	// unrecorded builds a suite whose cassettes may not exist yet: a
	// cassette: value is kept but not resolved.
	unrecorded bool
	// held is the section whose items the reader holds and hands over one
	// at a time (streamSuite), "" for none; stopped says the builder
	// stopped there at a problem, leaving the suite incomplete.
	held    string
	stopped bool
	// onHeld, when set, is given each case built from the held section
	// with the item's index, as soon as it is built; it may take the case
	// out of the suite (Suite.dropHeld, Suite.rebuild). false stops the
	// builder as a problem does.
	onHeld func(i int, c *Case) bool
	// again says the document was checked and built before (Suite.rebuild):
	// names are not tracked for duplicates a second time.
	again bool
	// from is the first item of the held list built again (Suite.rebuild):
	// the items before it are handed over and passed by unbuilt.
	from int
	// paths and comparisons hold the targets and the comparison matchers
	// parsed so far, so the tests of a long suite that check the same
	// target, or compare with the same bound, share one parsed value
	// (both are immutable); up to maxShared of each.
	paths       map[string]expr.Path
	comparisons map[comparisonKey]*expr.Matcher
	// digest computes the cases' definition digests on every core while
	// build runs (nil: each in place, as a test built again is);
	// noDigest leaves them out, for validate, which reports none.
	digest   *digests
	noDigest bool
	// ahead, when set, computes each test of the held section once built
	// (loadAhead.take); the test and the value it was built from wait in
	// fresh until the item is built (handOver).
	ahead *loadAhead
	fresh []digestJob
	// handing is set while an item of the held section is built.
	handing bool
}

// maxShared bounds how many targets and matchers a builder shares.
const maxShared = 4096

// comparisonKey is a comparison matcher, {op: bound}, bound to the bit.
type comparisonKey struct {
	op    string
	bound uint64
}

// parsePath parses a target, sharing the value parsed for the same text.
func (b *builder) parsePath(text string) (expr.Path, error) {
	if p, ok := b.paths[text]; ok {
		return p, nil
	}
	p, err := expr.ParsePath(text)
	if err == nil && len(b.paths) < maxShared {
		if b.paths == nil {
			b.paths = map[string]expr.Path{}
		}
		b.paths[text] = p
	}
	return p, err
}

// parseMatcher parses the matcher v with parse (expr.ParseMatcher or
// expr.ParseShorthand, which read a comparison alike), sharing the
// matcher parsed for the same comparison: {op: n}, n a float64.
func (b *builder) parseMatcher(parse func(any) (*expr.Matcher, error), v any) (*expr.Matcher, error) {
	key, ok := comparisonOf(v)
	if !ok {
		return parse(v)
	}
	if m, ok := b.comparisons[key]; ok {
		return m, nil
	}
	m, err := parse(v)
	if err == nil && len(b.comparisons) < maxShared {
		if b.comparisons == nil {
			b.comparisons = map[comparisonKey]*expr.Matcher{}
		}
		b.comparisons[key] = m
	}
	return m, err
}

// comparisonOf returns the key of v when it is a mapping of one of the
// comparison operators to a float64.
func comparisonOf(v any) (comparisonKey, bool) {
	m, _ := v.(map[string]any)
	if len(m) != 1 {
		return comparisonKey{}, false
	}
	for op, x := range m {
		f, isNum := x.(float64)
		switch op {
		case ">=", ">", "<=", "<":
			return comparisonKey{op, math.Float64bits(f)}, isNum
		}
	}
	return comparisonKey{}, false
}

func (b *builder) errorf(ptr string, pos diag.Pos, format string, args ...any) {
	b.errs = append(b.errs, &diag.Error{Pos: pos, Pointer: ptr, Kind: "suite", Message: fmt.Sprintf(format, args...)})
}

// broken reports whether the schema already reported a problem at or under
// ptr, so the builder does not report it a second time in other words. It
// searches the errors' pointers sorted: a suite generated with the same
// mistake in each of 40,000 tests has as many errors, and a scan of them
// for each field the builder read took 48 s.
func (b *builder) broken(ptr string) bool {
	if len(b.schemaErrs) == 0 {
		return false
	}
	if len(b.brokenAt) != len(b.schemaErrs) {
		b.brokenAt = b.brokenAt[:0]
		for _, e := range b.schemaErrs {
			b.brokenAt = append(b.brokenAt, e.Pointer)
		}
		slices.Sort(b.brokenAt)
	}
	// What ptr prefixes sorts after ptr itself and from ptr+"/" on.
	i, found := slices.BinarySearch(b.brokenAt, ptr)
	if found {
		return true
	}
	j, _ := slices.BinarySearch(b.brokenAt[i:], ptr+"/")
	return i+j < len(b.brokenAt) && strings.HasPrefix(b.brokenAt[i+j], ptr+"/")
}

// The ranges of the integer fields of a suite, beyond their schema minimum.
const (
	// maxRuns bounds runs:.
	maxRuns = 1_000_000
	// maxDistractors bounds a distractors block's count:.
	maxDistractors = 10_000
	// maxExactInteger bounds token budgets and durations: 2^53, the
	// largest integer a JSON or YAML number carries exactly.
	maxExactInteger = 1 << 53
)

// integer reads the value v at ptr as an integer between lo and hi: the one
// reader of every integer field of a suite. A number that is not a whole
// number in that range as written (1e300, 2^63-1, 99999999999999999999,
// 2.5) is an error at the value, never a conversion that wraps or
// truncates. ok is false then, and when v is not a number or the schema
// already refused it (the schema says so in its words).
func (b *builder) integer(ptr string, v any, lo, hi int64) (n int64, ok bool) {
	f, isNum := v.(float64)
	if !isNum || b.broken(ptr) {
		return 0, false
	}
	if i, exact := b.doc.Int(ptr); exact && i >= lo && i <= hi {
		return i, true
	}
	if _, exact := b.doc.Int(ptr); !exact && f == math.Trunc(f) && f >= float64(lo) && f <= float64(hi) && math.Abs(f) <= maxExactInteger {
		return int64(f), true
	}
	text, written := b.doc.Number(ptr)
	if !written {
		text = strconv.FormatFloat(f, 'g', -1, 64)
	}
	key := yamlpos.UnescapePointer(ptr[strings.LastIndexByte(ptr, '/')+1:])
	b.errorf(ptr, b.doc.At(ptr), "%s: %s is not an integer between %d and %s", key, text, lo, rangeEnd(hi))
	return 0, false
}

// rangeEnd renders the upper end of an integer range: 2^53 by name.
func rangeEnd(hi int64) string {
	if hi == maxExactInteger {
		return "2^53"
	}
	return strconv.FormatInt(hi, 10)
}

func (b *builder) build() {
	root, _ := b.doc.Root.(map[string]any)
	if root == nil {
		if len(b.schemaErrs) == 0 {
			b.errorf("", b.doc.At(""), "expected a mapping with servers:, agents: or tests:")
		}
		return
	}
	if !b.again {
		b.names = map[string]string{}
		if !b.noDigest {
			b.digest = newDigests()
			defer func() { b.digest.wait(); b.digest = nil }()
		}
	}
	servers, _ := root["servers"].(map[string]any)
	for _, name := range sortedKeys(servers) {
		b.server(name, servers[name])
	}
	b.suiteReliability(root)
	b.suiteAliases(root)
	// Sections are read in the order they appear in the file, so cases
	// keep suite order.
	type section struct {
		key  string
		line int
	}
	var sections []section
	for _, key := range itemSections {
		if _, ok := root[key]; ok {
			sections = append(sections, section{key, b.doc.KeyAt("/" + key).Line})
		}
	}
	for i := 1; i < len(sections); i++ {
		for j := i; j > 0 && sections[j].line < sections[j-1].line; j-- {
			sections[j], sections[j-1] = sections[j-1], sections[j]
		}
	}
	for _, sec := range sections {
		if sec.key == b.held {
			b.heldItems(sec.key)
			continue
		}
		items, _ := root[sec.key].([]any)
		for i, item := range items {
			if b.stopBefore("/" + sec.key + "/" + strconv.Itoa(i)) {
				return
			}
			b.item(sec.key, i, item)
		}
	}
	b.suiteFloors(root)
}

// stopBefore reports whether the build stops before the item at ptr: the
// item the schema's check stopped at, or the next once the builder has
// found maxLoadErrors errors of its own, which an error then says.
func (b *builder) stopBefore(ptr string) bool {
	switch {
	case ptr == b.schemaStop:
		return true
	case len(b.errs) >= maxLoadErrors:
		b.errs = append(b.errs, tooManyErrors(b.doc, ptr))
		return true
	}
	return false
}

// item builds item i of the section key.
func (b *builder) item(key string, i int, v any) {
	ptr := "/" + key + "/" + strconv.Itoa(i)
	m, _ := v.(map[string]any)
	if m == nil {
		return
	}
	switch key {
	case "agents", "tests":
		b.agentTest(ptr, m)
	case "scenarios":
		b.scenario(ptr, m)
	case "tool_quality":
		b.toolQuality(ptr, m)
	case "tools":
		b.toolTest(ptr, m)
	case "compliance":
		b.compliance(ptr, m)
	case "redteam":
		b.modelCase(ptr, m, report.KindRedteam)
	case "evals":
		b.modelCase(ptr, m, report.KindEval)
	}
}

// heldItems builds the items of the section key as the reader hands them
// over, one at a time (see streamSuite): each is checked against the
// schema, then built. It stops at the first item the schema refuses or
// that has a problem, and says so in b.stopped.
func (b *builder) heldItems(key string) {
	b.stopped = !b.doc.Items(func(i int, v any) bool {
		if i < b.from {
			return true
		}
		if !validItem(key, v) {
			return false
		}
		n := len(b.suite.Cases)
		b.handing, b.fresh = b.ahead != nil, b.fresh[:0]
		b.item(key, i, v)
		b.handing = false
		if len(b.errs) > 0 || len(b.doc.Errs) > 0 {
			return false
		}
		b.handOver()
		return b.onHeld == nil || len(b.suite.Cases) == n || b.onHeld(i, b.suite.Cases[len(b.suite.Cases)-1])
	})
}

func (b *builder) server(name string, v any) {
	ptr := "/servers/" + yamlpos.EscapePointer(name)
	m, _ := v.(map[string]any)
	if m == nil {
		return
	}
	s := Server{Name: name, Pos: b.doc.KeyAt(ptr)}
	s.Command = strings_(m["command"])
	s.URL, _ = m["url"].(string)
	s.BearerTokenEnv, _ = m["bearer_token_env"].(string)
	if env, ok := m["env"].(map[string]any); ok {
		s.Env = map[string]string{}
		for k, v := range env {
			s.Env[k], _ = v.(string)
		}
	}
	switch {
	case s.Command == nil && s.URL == "" && !b.broken(ptr):
		b.errorf(ptr, s.Pos, "server %q needs a `command:` (stdio) or a `url:` (streamable HTTP)", name)
	case s.Command != nil && s.URL != "":
		b.errorf(ptr, b.doc.KeyAt(ptr+"/url"), "server %q has both `command:` and `url:`: a server is one or the other", name)
	case s.BearerTokenEnv != "" && s.URL == "":
		b.errorf(ptr, b.doc.KeyAt(ptr+"/bearer_token_env"), "server %q: `bearer_token_env:` goes with a `url:` server", name)
	}
	if v, ok := m["timeout"]; ok {
		s.Timeout = b.serverTimeout(ptr+"/timeout", name, v)
	}
	b.suite.Servers = append(b.suite.Servers, s)
}

// serverTimeout reads a server's timeout:, a positive Go duration (90s,
// 2m, 1m30s); a bare number is refused with the unit it lacks.
func (b *builder) serverTimeout(ptr, name string, v any) time.Duration {
	var d time.Duration
	var err error
	switch v := v.(type) {
	case string:
		d, err = time.ParseDuration(v)
	case float64:
		b.errorf(ptr, b.doc.At(ptr), "server %q: `timeout: %v` has no unit: write a duration such as %vs (seconds) or 2m", name, v, v)
		return 0
	default:
		return 0 // the schema reports the type
	}
	if err != nil || d <= 0 {
		b.errorf(ptr, b.doc.At(ptr), "server %q: `timeout: %v` is not a positive duration: expected one such as 30s, 2m or 1m30s", name, v)
		return 0
	}
	return d
}

// newCase starts a case, checking its name is unique.
func (b *builder) newCase(ptr string, m map[string]any, kind report.Kind) *Case {
	name, _ := m["name"].(string)
	c := &Case{Name: name, Kind: kind, Pos: b.doc.At(ptr), Pointer: ptr}
	switch {
	case b.noDigest:
	case b.handing:
		b.fresh = append(b.fresh, digestJob{c, m}) // see handOver
	default:
		b.digestOf(c, m)
	}
	if name != "" && b.names != nil {
		if first, dup := b.names[name]; dup {
			b.errorf(ptr+"/name", b.doc.At(ptr+"/name"), "test name %q is used twice (first at line %d): names identify cases in reports and baselines, so each must be unique",
				name, b.doc.At(first).Line)
		} else {
			b.names[name] = ptr
		}
	}
	b.suite.Cases = append(b.suite.Cases, c)
	return c
}

// digestOf sets c's definition digest from m, its definition: on the
// digest workers when they run, else in place.
func (b *builder) digestOf(c *Case, m map[string]any) {
	if b.digest != nil {
		b.digest.add(c, m)
		return
	}
	c.DefinitionSHA256 = canonicalSHA256(m)
}

// handOver hands each case of the item just built to be computed ahead
// of the run (loadAhead.take, which digests what it takes) and digests
// the others.
func (b *builder) handOver() {
	for _, j := range b.fresh {
		if !b.ahead.take(j.c, j.m) {
			b.digestOf(j.c, j.m)
		}
	}
	b.fresh = b.fresh[:0]
}

// agentFields reads what every case played by an agent declares: the
// agent, the model or model matrix, the prompt and the servers it is given,
// each of which servers: must declare. noun names the case in a message.
func (b *builder) agentFields(ptr string, c *Case, m map[string]any, noun string) {
	c.Agent, _ = m["agent"].(string)
	c.Prompt, _ = m["prompt"].(string)
	switch v := m["model"].(type) {
	case string:
		c.Models = []string{v}
	case []any:
		c.Models = strings_(v)
	}
	c.Servers = strings_(m["servers"])
	if len(b.suite.Servers) == 0 && m["servers"] == nil {
		return
	}
	for i, s := range c.Servers {
		if !b.hasServer(s) {
			p := ptr + "/servers/" + strconv.Itoa(i)
			e := &diag.Error{Pos: b.doc.At(p), Pointer: p, Kind: "suite",
				Message: fmt.Sprintf("%s %q names server %q, which `servers:` does not declare", noun, c.Name, s)}
			if sug := diag.Suggest(s, b.serverNames()); sug != "" {
				e.Hint = "did you mean `" + sug + "`?"
			}
			b.errs = append(b.errs, e)
		}
	}
}

// liveExpect reads the expect: list of a case that calls a live server:
// the short form (a list of assertions) or the long form {assertions:
// [...]}. Its targets are checked for their grammar only: they read the
// call's document, whose fields depend on what the server answers.
func (b *builder) liveExpect(ptr string, c *Case, m map[string]any) {
	items, lptr := list(m["expect"]), ptr+"/expect"
	if long, ok := m["expect"].(map[string]any); ok {
		items, lptr = list(long["assertions"]), lptr+"/assertions"
	}
	b.expect(c, expectList{ptr: lptr, items: items, grammarOnly: true})
}

func (b *builder) agentTest(ptr string, m map[string]any) {
	c := b.newCase(ptr, m, report.KindAgent)
	b.agentFields(ptr, c, m, "test")
	if v, ok := m["runs"]; ok {
		if n, ok := b.integer(ptr+"/runs", v, 0, maxRuns); ok {
			c.Runs = max(int(n), 1)
		}
	}
	c.NoCalls, _ = m["no_calls"].(bool)
	if cas, ok := m["cassette"].(string); ok {
		c.Cassette, c.CassettePos = cas, b.doc.At(ptr+"/cassette")
		files, err := resolveCassettes(b.suite.Dir, cas)
		if err != nil && !b.unrecorded {
			b.errorf(ptr+"/cassette", c.CassettePos, "%v", err)
		}
		c.cassetteFiles = files
	}
	b.sources(ptr, c, m)
	b.caseAliases(ptr, c, m)

	b.caseReliability(ptr, c, m)

	var lists []expectList
	for _, row := range gateRows {
		v, ok := m[row.key]
		if !ok {
			continue
		}
		bptr := ptr + "/" + row.key
		block, _ := v.(map[string]any)
		pos := b.doc.KeyAt(bptr)
		blk := row.read(b, rawBlock{ptr: bptr, pos: pos, m: block})
		c.Blocks = append(c.Blocks, blk)
		if f, ok := blk.(interface{ floorAssertions() []*Assertion }); ok {
			c.Expect = append(c.Expect, f.floorAssertions()...)
		}
		lists = append(lists, expectList{block: row.key, ptr: bptr + "/expect", items: list(block["expect"]), pos: pos})
	}
	b.restrictedAliases(ptr, c)
	lists = append(lists, expectList{ptr: ptr + "/expect", items: list(m["expect"])})
	for _, l := range lists {
		b.expect(c, l)
	}
}

// defaultAssertion is a block's default gate: `target op value`.
func defaultAssertion(block, target, op string, value float64, pos diag.Pos) *Assertion {
	m, err := expr.ParseShorthand(map[string]any{op: value})
	if err != nil {
		panic("default gate: " + err.Error())
	}
	p, _ := expr.ParsePath(target)
	return &Assertion{Block: block, Target: p, Matcher: m, Pos: pos, Default: true}
}

type expectList struct {
	// grammarOnly checks the targets' grammar but not their names, for
	// sections whose targets this version does not know yet.
	grammarOnly bool
	block       string
	ptr         string
	items       []any
	pos         diag.Pos
}

// expect reads one expect: list into c.Expect, or the block's default gate
// when the list is empty.
func (b *builder) expect(c *Case, l expectList) {
	if len(l.items) == 0 {
		if row, ok := rowOf(l.block); ok && row.def != nil {
			c.Expect = append(c.Expect, defaultAssertion(l.block, row.def.target, row.def.op, row.def.value, l.pos))
		}
		return
	}
	for i, item := range l.items {
		ptr := l.ptr + "/" + strconv.Itoa(i)
		m, _ := item.(map[string]any)
		a := &Assertion{Index: i, Block: l.block, Pos: b.doc.At(ptr)}
		var target, tptr, mptr string
		var mval any
		parse := expr.ParseMatcher
		if t, ok := m["target"].(string); ok {
			target, tptr, mptr, mval = t, ptr+"/target", ptr+"/matcher", m["matcher"]
			a.Message, _ = m["message"].(string)
		} else if len(m) == 1 {
			for k, v := range m {
				target, tptr, mptr, mval = k, ptr+"/"+yamlpos.EscapePointer(k), ptr+"/"+yamlpos.EscapePointer(k), v
			}
			parse = expr.ParseShorthand
		} else {
			continue // the schema has said what is wrong
		}
		targetOK := (tptr == mptr || !b.broken(tptr)) && b.target(c, a, target, tptr, l.grammarOnly)
		if !targetOK || b.broken(mptr) {
			continue
		}
		matcher, err := b.parseMatcher(parse, mval)
		if err != nil {
			b.matcherError(mptr, err)
			continue
		}
		a.Matcher = matcher
		c.Expect = append(c.Expect, a)
	}
}

// target parses and checks an assertion's target. tptr locates it: a
// `target:` value, or the key of a shorthand assertion.
func (b *builder) target(c *Case, a *Assertion, text, tptr string, grammarOnly bool) bool {
	pos := b.doc.At(tptr)
	if !strings.HasSuffix(tptr, "/target") {
		pos = b.doc.KeyAt(tptr)
	}
	p, err := b.parsePath(text)
	if err != nil {
		b.pathError(tptr, pos, err)
		return false
	}
	a.Target = p
	if grammarOnly {
		return true
	}
	return b.knownTarget(c, p, tptr, pos)
}

// pathError reports a target that does not parse, at the column of the
// problem: tptr locates a `target:` value or a key written as a target.
func (b *builder) pathError(tptr string, pos diag.Pos, err error) {
	var se *expr.SyntaxError
	if !errors.As(err, &se) {
		b.errs = append(b.errs, &diag.Error{Pos: pos, Pointer: tptr, Kind: "expect", Message: err.Error()})
		return
	}
	pos.Col += se.Offset
	quoted := b.doc.Quoted(tptr)
	if !strings.HasSuffix(tptr, "/target") {
		quoted = b.doc.QuotedKey(tptr)
	}
	if quoted {
		pos.Col++
	}
	msg := fmt.Sprintf("%s in target %q", se.Msg, se.Input)
	if se.Expected != "" {
		msg += ": " + se.Expected
	}
	b.errs = append(b.errs, &diag.Error{Pos: pos, Pointer: tptr, Kind: "expect", Message: msg})
}

// knownTarget checks that a parsed target names a gate target of a block
// the case declares, a reliability target or a field of the run.
func (b *builder) knownTarget(c *Case, p expr.Path, tptr string, pos diag.Pos) bool {
	name := p.String()
	if _, ok := reliabilityTarget(name); ok {
		return true
	}
	if gb, ok := targetBlock(name); ok {
		if !c.hasBlock(gb.key) {
			b.errs = append(b.errs, &diag.Error{Pos: pos, Pointer: tptr, Kind: "expect",
				Message: fmt.Sprintf("target `%s` comes from a `%s:` block, and test %q has none", name, gb.key, c.Name)})
			return false
		}
		return true
	}
	root := p.Segments()[0].Name
	if gateNamespace(name) || !contains(runRoots, root) {
		e := &diag.Error{Pos: pos, Pointer: tptr, Kind: "expect",
			Message: fmt.Sprintf("unknown target `%s`: expected a gate target such as `tool_selection.f1` or a field of the run (%s)", name, strings.Join(runRoots, ", "))}
		if s := diag.Suggest(name, knownTargets()); s != "" {
			e.Hint = "did you mean `" + s + "`?"
		}
		b.errs = append(b.errs, e)
		return false
	}
	return true
}

func (b *builder) matcherError(mptr string, err error) {
	var me *expr.MatcherError
	if !errors.As(err, &me) {
		b.errs = append(b.errs, &diag.Error{Pos: b.doc.At(mptr), Pointer: mptr, Kind: "expect", Message: err.Error()})
		return
	}
	ptr := mptr + me.Pointer
	pos := b.doc.At(ptr)
	if b.doc.IsKey(ptr) {
		pos = b.doc.KeyAt(ptr)
	}
	b.errs = append(b.errs, &diag.Error{Pos: pos, Pointer: ptr, Kind: "expect", Message: me.Msg, Hint: me.Hint})
}

// hasBlock reports whether the case declares the gate block key.
func (c *Case) hasBlock(key string) bool {
	return c.Block(key) != nil
}

func (b *builder) classes(ptr string, v any) []gate.Class {
	items := list(v)
	var out []gate.Class
	if len(items) > 0 {
		out = make([]gate.Class, 0, len(items))
	}
	seen := make(map[string]bool, len(items))
	for i, item := range items {
		m, _ := item.(map[string]any)
		name, _ := m["name"].(string)
		if seen[name] && name != "" {
			p := ptr + "/" + strconv.Itoa(i) + "/name"
			b.errorf(p, b.doc.At(p), "class %q is declared twice: merge the members into one class", name)
		}
		seen[name] = true
		out = append(out, gate.Class{Name: name, Members: strings_(m["members"])})
	}
	return out
}

func (b *builder) hasServer(name string) bool {
	for _, s := range b.suite.Servers {
		if s.Name == name {
			return true
		}
	}
	return false
}

func (b *builder) serverNames() []string {
	var out []string
	for _, s := range b.suite.Servers {
		out = append(out, s.Name)
	}
	return out
}

// resolveCassettes expands a cassette: value, relative to dir, into files:
// a file is itself, a directory is its *.json, *.jsonl and *.eval files (sorted),
// anything else is a glob. No match is an error.
// ResolveCassettes lists the files a `cassette:` value names, relative to
// dir: the file itself, the *.json, *.jsonl and *.eval files of a directory, or
// the files a glob matches, sorted.
func ResolveCassettes(dir, pattern string) ([]string, error) {
	return resolveCassettes(dir, pattern)
}

func resolveCassettes(dir, pattern string) ([]string, error) {
	p := pattern
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, filepath.FromSlash(p))
	}
	if st, err := os.Stat(p); err == nil {
		if !st.IsDir() {
			return []string{p}, nil
		}
		files := recordingsIn(p)
		if len(files) == 0 {
			return nil, fmt.Errorf("cassette directory %q holds no *.json, *.jsonl or *.eval files", pattern)
		}
		return files, nil
	}
	files, err := filepath.Glob(p)
	if err != nil {
		return nil, fmt.Errorf("cassette %q is not a valid glob: %v", pattern, err)
	}
	var out []string
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("cassette %q not found: expected a file, a directory or a glob relative to the suite's directory %q", pattern, filepath.ToSlash(dir))
	}
	return out, nil
}

// recordingsIn lists the entries of directory dir whose names end in
// .json, .jsonl or .eval, as paths under dir, sorted: what the globs
// dir/*.json, dir/*.jsonl and dir/*.eval give together, from one read of
// the directory (a directory of 2,000 cassettes was read three times and
// each name matched against three patterns, on the load's one goroutine
// before the first file is read). nil when dir cannot be read.
func recordingsIn(dir string) []string {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var files []string
	for _, n := range names {
		if strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".eval") {
			files = append(files, filepath.Join(dir, n))
		}
	}
	sort.Strings(files)
	return files
}

func globEscape(p string) string {
	return globEscaper.Replace(p)
}

// globEscaper is built once, as building a Replacer is dearer than using it.
var globEscaper = strings.NewReplacer("*", `\*`, "?", `\?`, "[", `\[`)

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// strings_ returns the strings of a generic list, nil when v is not a list.
func strings_(v any) []string {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// restrictedAliases refuses a tool_edges restricted: entry that names
// another name of a tool (aliases:): the calls recorded under that name
// are read as the tool, so the entry would never see one, and an alias
// would move a call out of restricted:, a pass where the suite meant a
// failure. Write the tool's own name.
func (b *builder) restrictedAliases(ptr string, c *Case) {
	for _, blk := range c.Blocks {
		e, ok := blk.(*EdgesBlock)
		if !ok {
			continue
		}
		for i, id := range e.Edges.Restricted {
			to := aliasOf(c, id)
			if to == "" {
				continue
			}
			rptr := ptr + "/tool_edges/restricted/" + strconv.Itoa(i)
			b.errorf(rptr, b.doc.At(rptr), "`%s` is restricted, and aliases: makes it another name of `%s`: calls recorded as `%s` are read as `%s`, so this entry could never see one and an alias would let a restricted call pass; restrict `%s`, or drop the alias", id, to, id, to, to)
		}
	}
}
