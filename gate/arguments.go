package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/expr"
	"github.com/mcptest/mcptest/internal/stats"
)

// ArgumentsConfig is an arguments: block: how a call's arguments are held
// against the inputSchema of the tool it called.
type ArgumentsConfig struct {
	// Strict also refuses a parameter the schema's properties do not
	// name where the schema allows any (no additionalProperties: false),
	// as BFCL's AST checker does.
	Strict bool
	// Catalog is the tools of the block's catalog: file, used for a tool
	// the recording's catalog does not list.
	Catalog []cassette.Tool
	// Keep, when over 0, bounds the checks a run keeps in
	// ArgumentsRun.Calls to those of its first Keep calls (in call order,
	// across turns) that found a violation, which is all a run's evidence
	// shows; the counts and findings still see every call. 0 keeps every
	// call's check.
	Keep int
}

// Violation is one way a call's arguments break the tool's schema.
type Violation struct {
	// Pointer is the RFC 6901 pointer of the offending value inside the
	// arguments ("" for the arguments themselves).
	Pointer string
	// Keyword is the JSON Schema keyword that failed: type, required,
	// enum, additionalProperties, minimum, ...
	Keyword string
	// Expected is what the schema asked for: the type, the enum, the
	// missing parameter; Got is what the call sent, as compact JSON.
	Expected, Got string
}

// String words the violation: "/limit: type: expected integer, got
// \"many\" (string)".
func (v Violation) String() string {
	at := v.Pointer
	if at == "" {
		at = "(arguments)"
	}
	s := at + ": " + v.Keyword + ": expected " + v.Expected
	if v.Got != "" {
		s += ", got " + v.Got
	}
	return s
}

// CallCheck is the verdict on one call's arguments.
type CallCheck struct {
	// Turn and Call locate the call in its run, 1-based.
	Turn, Call int
	ID         string
	// Checked is false when no schema was found for the tool or it did
	// not compile.
	Checked bool
	// Reason says why a call with a schema was not checked: a limit on
	// the work a check may take (SECURITY.md).
	Reason     string
	Violations []Violation
}

// ArgumentsRun is what one run's calls gave.
type ArgumentsRun struct {
	// Calls are the checks of the run's calls: every call's, or with
	// ArgumentsConfig.Keep those of the first Keep calls that found a
	// violation.
	Calls []CallCheck
	// Invalid counts the checked calls with a violation.
	Invalid int64
}

// compiled is a tool's schema, compiled once, or why it would not. The
// scores of runs checked ahead of the fold (Score) share it, on several
// goroutines: schema, raw and err never change once it is cached, seen is
// under mu, stop is atomic, and dead and met are the fold's alone.
type compiled struct {
	schema *expr.Schema
	raw    any
	err    string
	// mu guards seen.
	mu sync.Mutex
	// seen holds the verdicts of arguments texts already checked against
	// the schema (at most maxSeen, each at most maxSeenLen bytes): the
	// same text gets the same verdict without being decoded and
	// validated again, so a run that repeats its arguments costs a
	// lookup a call and makes no garbage.
	seen map[cassette.JSON][]Violation
	// dead, once a check of a call spent its steps, says why the
	// schema's later calls (in run order) are not checked; stop tells
	// the scores made ahead of the fold to leave its calls to the fold.
	dead string
	stop atomic.Bool
	// met is whether the fold has met this compilation: its compile
	// warning, if any, is given at the first call the fold resolves to it.
	met bool
}

// lookup is the verdict seen for text, if any.
func (c *compiled) lookup(text cassette.JSON) ([]Violation, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.seen[text]
	return v, ok
}

// remember keeps the verdict of a short text, up to maxSeen of them.
func (c *compiled) remember(text cassette.JSON, v []Violation) {
	if len(text) > maxSeenLen {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) < maxSeen {
		if c.seen == nil {
			c.seen = map[cassette.JSON][]Violation{}
		}
		c.seen[text] = v
	}
}

// The verdicts a compiled schema remembers.
const (
	maxSeen    = 1024
	maxSeenLen = 256
)

// Arguments validates every recorded call's arguments against the
// inputSchema of the tool it called: the recording's catalog first, the
// block's catalog: for tools it lacks. Each distinct schema is compiled
// once (draft from its $schema, 2020-12 without one); a schema that does
// not compile is a warning naming the tool, and its calls are unchecked.
type Arguments struct {
	cfg ArgumentsConfig
	// cache maps a schema's canonical JSON to its compilation, under
	// cacheMu: Score compiles into it from several goroutines.
	cacheMu sync.Mutex
	cache   map[string]*compiled
	// ahead holds, under cacheMu, what Score resolved of each cassette's
	// catalog whose runs are being scored (keyed by the catalog: the runs
	// of one cassette share it), let go when the fold takes the next
	// catalog; last is the fold's current key.
	ahead map[*cassette.ServerCatalog]*aheadCatalog
	last  *cassette.ServerCatalog
	// byTool maps server and tool to the compilation schemaFor and
	// compile gave them for the cassette being read, so that a call costs
	// a lookup, not its schema's encoding.
	byTool map[[2]string]*compiled
	// recorded maps server and tool to the text of the recording's
	// schema, for the cassette being read.
	recorded map[[2]string]cassette.JSON
	warned   []string
	// limitWarned are the tools a limit left a call of unchecked, named
	// in a warning.
	limitWarned []string
	findings    []Finding
	dropped     int
	keywords    tally
	// skipped counts the unchecked calls by tool, for the finding that
	// names them.
	skipped tally

	runs, calls, checked, invalid, unchecked int64
}

// maxArgumentFindings bounds the violations a case names one by one; the
// counts hold every one.
const maxArgumentFindings = 50

// NewArguments returns an empty accumulator.
func NewArguments(cfg ArgumentsConfig) *Arguments {
	return &Arguments{cfg: cfg, cache: map[string]*compiled{}}
}

// AddCatalog takes the catalog of the cassette whose runs come next.
func (a *Arguments) AddCatalog(cat []cassette.ServerCatalog) {
	a.recorded = recordedOf(cat)
	a.byTool = map[[2]string]*compiled{}
	// Every run of the cassettes before this one was scored before it was
	// folded: what Score resolved of their catalog is no longer needed.
	a.cacheMu.Lock()
	delete(a.ahead, a.last)
	a.last = catalogKey(cat)
	a.cacheMu.Unlock()
}

// aheadCatalog is what Score resolved of one cassette's catalog: each
// tool's compilation (nil: no schema), under mu.
type aheadCatalog struct {
	// cat is the catalog, held so that its address, the entry's key, is
	// not reused by a later cassette's while the entry lives.
	cat      []cassette.ServerCatalog
	mu       sync.Mutex
	recorded map[[2]string]cassette.JSON
	tools    map[[2]string]*compiled
}

// catalogKey names a cassette's catalog for Score's resolutions: its
// first server's address, which the runs of one cassette share; nil for
// a cassette with none.
func catalogKey(cat []cassette.ServerCatalog) *cassette.ServerCatalog {
	if len(cat) == 0 {
		return nil
	}
	return &cat[0]
}

// scored is the compilation Score found for tool k of the cassette being
// folded, nil when none scored it.
func (a *Arguments) scored(k [2]string) *compiled {
	a.cacheMu.Lock()
	e := a.ahead[a.last]
	a.cacheMu.Unlock()
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.tools[k]
}

// toolOf is the compilation of a call's tool in catalog cat, resolved
// once per cassette; safe on several goroutines at once.
func (a *Arguments) toolOf(cat []cassette.ServerCatalog, server, tool string) *compiled {
	key := catalogKey(cat)
	a.cacheMu.Lock()
	e, ok := a.ahead[key]
	if !ok {
		if a.ahead == nil {
			a.ahead = map[*cassette.ServerCatalog]*aheadCatalog{}
		}
		e = &aheadCatalog{cat: cat, tools: map[[2]string]*compiled{}}
		a.ahead[key] = e
	}
	a.cacheMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	k := [2]string{server, tool}
	comp, ok := e.tools[k]
	if !ok {
		if e.recorded == nil {
			e.recorded = recordedOf(cat)
		}
		if schema, found, _ := a.resolve(e.recorded, server, tool); found {
			comp = a.compiled(schema)
		}
		e.tools[k] = comp
	}
	return comp
}

// recordedOf maps server and tool to the text of the schema a
// recording's catalog gives it (the first, for a tool listed twice; ""
// for none), a slice of the tool's text: a schema is decoded only for a
// tool a call names.
func recordedOf(cat []cassette.ServerCatalog) map[[2]string]cassette.JSON {
	recorded := make(map[[2]string]cassette.JSON, catalogTools(cat))
	for _, sc := range cat {
		for _, t := range sc.Tools {
			k := [2]string{sc.Server, t.Name}
			if _, dup := recorded[k]; !dup {
				recorded[k] = t.Member("inputSchema")
			}
		}
	}
	return recorded
}

// catalogTools counts the tools of a catalog.
func catalogTools(cat []cassette.ServerCatalog) int {
	n := 0
	for _, sc := range cat {
		n += len(sc.Tools)
	}
	return n
}

// schemaFor finds the schema of a call: that of the tool of its exact
// name (exactSchema); else of the one tool of the recording's or the
// block's catalog its name resolves to (cassette.ResolveTool: a framework
// that prefixes the server, everything_get-sum, or sanitizes the name,
// get_sum). A name two catalog tools could be is not checked, and a
// warning names them.
func (a *Arguments) schemaFor(server, tool string) (any, bool) {
	schema, found, ambiguous := a.resolve(a.recorded, server, tool)
	if ambiguous != nil {
		id := cassette.Call{Server: server, Tool: tool}.ID()
		if !slices.Contains(a.warned, id) {
			a.warned = append(a.warned, id)
			a.findings = append(a.findings, Finding{Level: "warning", Gate: "arguments",
				Message: fmt.Sprintf("the tool `%s` could be any of the catalog's %s, so its calls are not checked: name the tool as the catalog does", id, quoteTools(ambiguous))})
		}
	}
	return schema, found
}

// resolve is schemaFor over the recording's catalog recorded, without its
// warning: the tools an ambiguous name could be are returned.
func (a *Arguments) resolve(recorded map[[2]string]cassette.JSON, server, tool string) (schema any, found bool, ambiguous []string) {
	if s, ok := a.exactSchema(recorded, server, tool); ok {
		return s, true, nil
	}
	var names []string
	for k := range recorded {
		names = append(names, k[1])
	}
	for _, t := range a.cfg.Catalog {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	name, ambiguous := cassette.ResolveTool(names, tool)
	if ambiguous != nil {
		return nil, false, ambiguous
	}
	if name == "" || name == tool {
		// The exact name is another server's tool: not this call's.
		return nil, false, nil
	}
	schema, found = a.exactSchema(recorded, server, name)
	return schema, found, nil
}

// quoteTools words tool names as `a`, `b`.
func quoteTools(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}

// exactSchema finds the schema of the tool of that exact name: the
// recorded tool of that server (any server when the call names none),
// then the block's catalog. A recorded tool without a schema (a trace
// that lists the tools by name) gives way to the block's catalog; with
// none there it is the schema, nil, which is unchecked and said so.
func (a *Arguments) exactSchema(recorded map[[2]string]cassette.JSON, server, tool string) (any, bool) {
	if s, ok := recorded[[2]string{server, tool}]; ok && server != "" && s != "" {
		return s.Value(), true
	}
	var keys [][2]string
	if server == "" {
		for k, s := range recorded {
			if k[1] == tool && s != "" {
				keys = append(keys, k)
			}
		}
		if len(keys) > 0 {
			sort.Slice(keys, func(i, j int) bool { return keys[i][0] < keys[j][0] })
			return recorded[keys[0]].Value(), true
		}
	}
	for _, t := range a.cfg.Catalog {
		if t.Name == tool {
			return t.InputSchema(), true
		}
	}
	if _, ok := recorded[[2]string{server, tool}]; ok && server != "" {
		return nil, true
	}
	if server == "" {
		for k := range recorded {
			if k[1] == tool {
				return nil, true
			}
		}
	}
	return nil, false
}

// compile returns the compilation of a tool's schema, from the cache.
// known, when not nil, is that compilation, as Score found it for the
// cassette's tool: the schema is not encoded again for the cache's key.
func (a *Arguments) compile(id string, schema any, known *compiled) *compiled {
	c := known
	if c == nil {
		c = a.compiled(schema)
	}
	if c.met {
		return c
	}
	c.met = true
	if c.err != "" && !slices.Contains(a.warned, id) {
		a.warned = append(a.warned, id)
		a.findings = append(a.findings, Finding{Level: "warning", Gate: "arguments",
			Message: fmt.Sprintf("the inputSchema of `%s` does not compile, so its calls are not checked: %s", id, c.err)})
	}
	return c
}

// compiled is the compilation of schema, from the cache, compiled and
// cached at its first use; safe on several goroutines at once.
func (a *Arguments) compiled(schema any) *compiled {
	key, err := json.Marshal(schema)
	if err != nil {
		return &compiled{err: err.Error(), met: true}
	}
	a.cacheMu.Lock()
	c, ok := a.cache[string(key)]
	a.cacheMu.Unlock()
	if ok {
		return c
	}
	c = &compiled{raw: schema}
	c.schema, err = CompileToolSchema(schema)
	if err != nil {
		c.err = err.Error()
	}
	a.cacheMu.Lock()
	defer a.cacheMu.Unlock()
	if first, ok := a.cache[string(key)]; ok {
		return first // compiled meanwhile on another goroutine
	}
	a.cache[string(key)] = c
	return c
}

// toolSchemaURL is the name a tool's schema is compiled under; nothing is
// fetched from it.
const toolSchemaURL = "mem://tool/inputSchema.json"

// CompileToolSchema compiles a tool's inputSchema offline: the draft its
// $schema names, 2020-12 without one (as MCP says), and no reference to
// another document, within the limits every schema from outside is held
// to (expr.CompileBounded).
func CompileToolSchema(schema any) (*expr.Schema, error) {
	switch schema.(type) {
	case map[string]any, bool:
	case nil:
		return nil, errors.New("the tool has no inputSchema")
	default:
		return nil, errors.New("the inputSchema is not a JSON Schema object")
	}
	s, err := expr.CompileBounded(schema, toolSchemaURL, nil)
	if err != nil {
		return nil, errors.New(trimSchemaError(err))
	}
	return s, nil
}

// trimSchemaError words a compile error: where the schema breaks its
// meta-schema, or the cause, without the library's URL prefixes.
func trimSchemaError(err error) string {
	var se *jsonschema.SchemaError
	if errors.As(err, &se) && se.Err != nil {
		err = se.Err
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		// The deepest leaf of the meta-schema says most ("value must be
		// one of ..."); ties go to the first by location and message, as
		// the library visits members in map order.
		leaf := slices.MaxFunc(SchemaLeaves(ve), func(x, y *jsonschema.ValidationError) int {
			if c := len(x.KeywordLocation) - len(y.KeywordLocation); c != 0 {
				return c
			}
			return strings.Compare(y.InstanceLocation+"\x00"+y.Message, x.InstanceLocation+"\x00"+x.Message)
		})
		at := leaf.InstanceLocation
		if at == "" {
			at = "(root)"
		}
		return at + ": " + leaf.Message
	}
	s := strings.ReplaceAll(err.Error(), toolSchemaURL+"#", "")
	s = strings.ReplaceAll(s, toolSchemaURL, "the schema")
	return strings.TrimPrefix(s, "jsonschema: ")
}

// Locator gives the position in the recording of the value at pointer
// ptr of the arguments of call (1-based) of turn; nil when unknown.
type Locator func(turn, call int, ptr string) *diag.Pos

// Add checks the calls of one run, numbered run; where, when not nil,
// places each violation in the recording. It is Fold of no score: every
// call checked here.
func (a *Arguments) Add(run int, r *cassette.Run, where Locator) ArgumentsRun {
	return a.Fold(run, r, nil, where)
}

// ArgumentsScore is one run's calls checked ahead of the fold (Score):
// each call's verdict against its schema, in call order, or none (the
// fold checks that call itself).
type ArgumentsScore struct {
	calls []scoredCall
	// limits are the reasons of the calls whose check was over a limit,
	// by call index.
	limits map[int]string
}

// scoredCall is one call's verdict made ahead of the fold.
type scoredCall struct {
	v     []Violation
	state uint8
}

// The states of a scoredCall.
const (
	// scoredNone: no verdict (no schema, or one the fold may not check
	// again); the fold decides.
	scoredNone uint8 = iota
	// scoredDone: checked, with v its violations.
	scoredDone
	// scoredLimit: the check was over a limit, ArgumentsScore.limits says
	// which.
	scoredLimit
)

// Score checks the arguments of run r's calls against their schemas,
// found in the recording's catalog cat (the cassette's) and the block's,
// reading nothing the fold has folded: it is safe for several runs at
// once, and Fold of its score, in run order, is Add. The warnings and the
// findings, the counts, and which calls a schema that spent its steps
// leaves unchecked, are the fold's.
func (a *Arguments) Score(cat []cassette.ServerCatalog, r *cassette.Run) *ArgumentsScore {
	s := &ArgumentsScore{}
	local := map[[2]string]*compiled{}
	i := -1
	for _, t := range r.Turns {
		for ci := range t.Calls {
			c := &t.Calls[ci]
			i++
			s.calls = append(s.calls, scoredCall{})
			k := [2]string{c.Server, c.Tool}
			comp, ok := local[k]
			if !ok {
				comp = a.toolOf(cat, c.Server, c.Tool)
				local[k] = comp
			}
			if comp == nil || comp.schema == nil || comp.stop.Load() {
				continue
			}
			if v, ok := comp.lookup(c.Arguments); ok {
				s.calls[i] = scoredCall{v: v, state: scoredDone}
				continue
			}
			v, err := a.validate(comp, c)
			if err != nil {
				if strings.HasPrefix(err.Error(), stepsSpent) {
					comp.stop.Store(true)
				}
				if s.limits == nil {
					s.limits = map[int]string{}
				}
				s.limits[i] = err.Error()
				s.calls[i].state = scoredLimit
				continue
			}
			s.calls[i] = scoredCall{v: v, state: scoredDone}
		}
	}
	return s
}

// stepsSpent begins the reason of a check that spent its steps, after
// which a schema's calls are not checked again.
const stepsSpent = "checking it took"

// validate checks one call's arguments (absent arguments are {}) against
// comp, decoding them for this call only (the run keeps the text), and
// remembers a verdict made.
func (a *Arguments) validate(comp *compiled, c *cassette.Call) ([]Violation, error) {
	args := c.Arguments.Value()
	if args == nil {
		args = map[string]any{}
	}
	v, err := CheckArguments(comp.schema, comp.raw, args, a.cfg.Strict)
	if err == nil {
		comp.remember(c.Arguments, v)
	}
	return v, err
}

// Fold takes the calls of one run, numbered run, in run order, with their
// verdicts scored ahead (Score; nil checks every call here); where, when
// not nil, places each violation in the recording.
func (a *Arguments) Fold(run int, r *cassette.Run, s *ArgumentsScore, where Locator) ArgumentsRun {
	a.runs++
	var out ArgumentsRun
	n := 0
	for ti, t := range r.Turns {
		for ci := range t.Calls {
			var pre *scoredCall
			var limit string
			if s != nil {
				pre = &s.calls[n]
				limit = s.limits[n]
			}
			cc := a.check(&t.Calls[ci], pre, limit)
			cc.Turn, cc.Call = ti+1, ci+1
			a.calls++
			n++
			switch {
			case !cc.Checked:
				a.unchecked++
				a.skipped.add(cc.ID)
			case len(cc.Violations) > 0:
				a.invalid++
				out.Invalid++
				a.report(run, cc, where)
			}
			if cc.Checked {
				a.checked++
			}
			if a.cfg.Keep <= 0 || (n <= a.cfg.Keep && len(cc.Violations) > 0) {
				out.Calls = append(out.Calls, cc)
			}
		}
	}
	return out
}

// check validates one call's arguments, or takes the verdict pre scored
// ahead (with limit, the reason of one over a limit), when not nil.
func (a *Arguments) check(c *cassette.Call, pre *scoredCall, limit string) CallCheck {
	cc := CallCheck{ID: c.ID()}
	k := [2]string{c.Server, c.Tool}
	comp, ok := a.byTool[k]
	if !ok {
		if schema, found := a.schemaFor(c.Server, c.Tool); found {
			comp = a.compile(cc.ID, schema, a.scored(k))
		}
		if a.byTool == nil {
			a.byTool = map[[2]string]*compiled{}
		}
		a.byTool[k] = comp
	}
	if comp == nil {
		return cc
	}
	if comp.schema == nil {
		cc.Reason = comp.err
		return cc
	}
	if comp.dead != "" {
		cc.Reason = comp.dead
		return cc
	}
	var v []Violation
	var err error
	switch {
	case pre != nil && pre.state == scoredDone:
		v = pre.v
	case pre != nil && pre.state == scoredLimit:
		err = &expr.LimitError{Reason: limit}
	default:
		var ok bool
		if v, ok = comp.lookup(c.Arguments); !ok {
			v, err = a.validate(comp, c)
		}
	}
	if err != nil {
		// A check over mcptest's limits leaves the call unchecked, and a
		// schema that spent its steps is not tried again in this run.
		cc.Reason = err.Error()
		if strings.HasPrefix(cc.Reason, stepsSpent) {
			comp.dead = "its check of a call took too long: " + cc.Reason
			comp.stop.Store(true)
		}
		a.limited(cc.ID, cc.Reason)
		return cc
	}
	cc.Checked = true
	cc.Violations = v
	return cc
}

// maxLimitFindings bounds the warnings that name a call left unchecked by
// a limit; the notice counts every unchecked call.
const maxLimitFindings = 10

// limited warns once per tool that a call of it was left unchecked by a
// limit, up to maxLimitFindings tools.
func (a *Arguments) limited(id, reason string) {
	if slices.Contains(a.limitWarned, id) || len(a.limitWarned) >= maxLimitFindings {
		return
	}
	a.limitWarned = append(a.limitWarned, id)
	a.warned = append(a.warned, "limit:"+id)
	a.findings = append(a.findings, Finding{Level: "warning", Gate: "arguments",
		Message: fmt.Sprintf("a call of `%s` was not checked against its inputSchema: %s (see SECURITY.md, bounded work)", id, reason)})
}

// report keeps a finding per violation, up to maxArgumentFindings.
func (a *Arguments) report(run int, cc CallCheck, where Locator) {
	for _, v := range cc.Violations {
		a.keywords.add(v.Keyword)
		if len(a.findings) >= maxArgumentFindings+len(a.warned) {
			a.dropped++
			continue
		}
		f := Finding{Level: "error", Gate: "arguments", Run: run,
			Message: fmt.Sprintf("run %d: turn %d call %d `%s` arguments %s", run, cc.Turn, cc.Call, cc.ID, v)}
		if where != nil {
			f.Position = where(cc.Turn, cc.Call, v.Pointer)
		}
		a.findings = append(a.findings, f)
	}
}

// Room is how many more violations the case names one by one (a Locator
// is called for each); a warning makes room for one more.
func (a *Arguments) Room() int {
	return maxArgumentFindings + len(a.warned) - len(a.findings)
}

// Violations validates args against a compiled schema and lists every
// leaf failure, ordered by pointer then keyword. raw is the schema as
// written, read for what a failing keyword expected. With strict, a
// parameter that the top-level properties do not name is a violation
// (additionalProperties) even where the schema allows it. A check over
// mcptest's limits is one violation naming the limit; CheckArguments
// tells it apart.
func Violations(s *expr.Schema, raw, args any, strict bool) []Violation {
	out, err := CheckArguments(s, raw, args, strict)
	if err != nil {
		return []Violation{{Keyword: "schema", Expected: "a check within mcptest's limits", Got: err.Error()}}
	}
	return out
}

// CheckArguments is Violations, with an *expr.LimitError when the check
// was over a limit and so not made.
func CheckArguments(s *expr.Schema, raw, args any, strict bool) ([]Violation, error) {
	var out []Violation
	if err := s.Validate(args); err != nil {
		if expr.IsLimit(err) {
			return nil, err
		}
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return []Violation{{Keyword: "schema", Expected: "a schema that applies", Got: err.Error()}}, nil
		}
		for _, leaf := range SchemaLeaves(ve) {
			out = append(out, violationsOf(leaf, raw, args)...)
		}
	}
	if strict {
		out = append(out, unexpected(raw, args, out)...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pointer != out[j].Pointer {
			return out[i].Pointer < out[j].Pointer
		}
		return out[i].Keyword < out[j].Keyword
	})
	return slices.CompactFunc(out, func(x, y Violation) bool { return x == y }), nil
}

// SchemaLeaves returns the failures at the leaves of a JSON Schema
// validation error's tree: for if/then and $ref wrappers the causes carry
// the detail; the wrappers add nothing.
func SchemaLeaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, SchemaLeaves(c)...)
	}
	return out
}

// violationsOf words one leaf failure, reading the failing keyword's value
// in the schema: the type, the enum, the required names, the properties.
func violationsOf(leaf *jsonschema.ValidationError, raw, args any) []Violation {
	kwPath := leaf.AbsoluteKeywordLocation
	base, frag, ok := strings.Cut(kwPath, "#")
	if ok {
		kwPath = frag
	}
	keyword := kwPath[strings.LastIndexByte(kwPath, '/')+1:]
	keyword = unescape(keyword)
	ptr := leaf.InstanceLocation
	got, _ := at(args, ptr)
	if ok && base != toolSchemaURL {
		// The keyword is in another document the schema refers to (a
		// meta-schema the library carries): its value is not in raw, so
		// the library's own words say what it expected.
		return []Violation{{Pointer: ptr, Keyword: keyword, Expected: foreignExpected(leaf.Message, base), Got: valueWords(got)}}
	}
	want, _ := at(raw, kwPath)
	switch keyword {
	case "type":
		return []Violation{{Pointer: ptr, Keyword: keyword, Expected: typeWords(want), Got: valueWords(got)}}
	case "enum":
		return []Violation{{Pointer: ptr, Keyword: keyword, Expected: "one of " + compactJSON(want), Got: valueWords(got)}}
	case "const":
		return []Violation{{Pointer: ptr, Keyword: keyword, Expected: compactJSON(want), Got: valueWords(got)}}
	case "required":
		return missing(ptr, want, got)
	case "additionalProperties":
		parent, _ := at(raw, kwPath[:max(strings.LastIndexByte(kwPath, '/'), 0)])
		return extra(ptr, parent, got)
	}
	return []Violation{{Pointer: ptr, Keyword: keyword, Expected: keyword + " " + compactJSON(want), Got: valueWords(got)}}
}

// foreignExpected words what a keyword of the document base expected,
// from the library's message ("expected object, but got number", "value
// must be one of ..."), naming the document.
func foreignExpected(msg, base string) string {
	msg, _, _ = strings.Cut(msg, ", but got")
	msg = strings.TrimPrefix(msg, "expected ")
	msg = strings.TrimPrefix(msg, "value must be ")
	return clipWords(msg) + " (as " + base + " says)"
}

// maxExpectedWords bounds what a violation says the schema expected (an
// enum of thousands of values is named by its first bytes).
const maxExpectedWords = 200

// clipWords cuts s to maxExpectedWords bytes, marking the cut.
func clipWords(s string) string {
	if len(s) <= maxExpectedWords {
		return s
	}
	return strings.ToValidUTF8(s[:maxExpectedWords-3], "") + "..."
}

// missing lists each required parameter absent from the object at ptr.
func missing(ptr string, required, got any) []Violation {
	obj, _ := got.(map[string]any)
	var out []Violation
	names, _ := required.([]any)
	for _, n := range names {
		name, _ := n.(string)
		if _, ok := obj[name]; !ok {
			out = append(out, Violation{Pointer: ptr + "/" + escape(name), Keyword: "required", Expected: "the required parameter `" + name + "`", Got: "none"})
		}
	}
	return out
}

// extra lists each member of the object at ptr that the schema holding
// additionalProperties does not allow: one its properties do not name and
// no patternProperties key could match (they are not read: a name any
// pattern holds is left to the validator's own verdict).
func extra(ptr string, schema, got any) []Violation {
	obj, _ := got.(map[string]any)
	sm, _ := schema.(map[string]any)
	props, _ := sm["properties"].(map[string]any)
	_, patterns := sm["patternProperties"]
	var out []Violation
	exp := "a parameter the schema's properties or patternProperties allow"
	if !patterns {
		exp = "no parameter but " + namesOf(props)
	}
	for _, k := range sortedKeys(obj) {
		if _, ok := props[k]; ok {
			continue
		}
		out = append(out, Violation{Pointer: ptr + "/" + escape(k), Keyword: "additionalProperties", Expected: exp, Got: "unexpected parameter `" + k + "`"})
	}
	return out
}

// unexpected is BFCL's check of unexpected parameters: a top-level
// argument the schema's properties do not name, not already reported.
func unexpected(raw, args any, seen []Violation) []Violation {
	sm, _ := raw.(map[string]any)
	props, ok := sm["properties"].(map[string]any)
	obj, isObj := args.(map[string]any)
	if !isObj || (!ok && sm["type"] != "object") {
		return nil
	}
	reported := map[[2]string]bool{}
	for _, s := range seen {
		reported[[2]string{s.Pointer, s.Keyword}] = true
	}
	exp := "no parameter but " + namesOf(props) + " (strict)"
	var out []Violation
	for _, v := range extra("", sm, obj) {
		if !reported[[2]string{v.Pointer, v.Keyword}] {
			v.Expected = exp
			out = append(out, v)
		}
	}
	return out
}

// namesOf lists the parameter names of properties: "`a`, `b`", or "none".
func namesOf(props map[string]any) string {
	names := sortedKeys(props)
	if len(names) == 0 {
		return "none"
	}
	if len(names) > 20 {
		return backticked(names[:20]) + fmt.Sprintf(" and %d more", len(names)-20)
	}
	return clipWords(backticked(names))
}

// typeWords renders a type keyword's value: integer, "string or null".
func typeWords(v any) string {
	if list, ok := v.([]any); ok {
		var s []string
		for _, x := range list {
			s = append(s, fmt.Sprint(x))
		}
		return strings.Join(s, " or ")
	}
	return fmt.Sprint(v)
}

// valueWords renders a value the call sent with its JSON type:
// "\"many\" (string)"; values longer than 60 bytes are cut.
func valueWords(v any) string {
	s := compactJSON(v)
	if len(s) > 60 {
		s = strings.ToValidUTF8(s[:57], "") + "..."
	}
	return s + " (" + jsonType(v) + ")"
}

// jsonType is the JSON Schema type name of a decoded JSON value.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// compactJSON is v as compact JSON, at most maxExpectedWords bytes of it
// (a cut ends in "..."), in time bounded by that length whatever v holds:
// a long array is cut after the items that fit, an object of more than 32
// members is named by its count.
func compactJSON(v any) string {
	var b strings.Builder
	writeBounded(&b, v)
	if b.Len() > maxExpectedWords {
		return strings.ToValidUTF8(b.String()[:maxExpectedWords-3], "") + "..."
	}
	return b.String()
}

// writeBounded writes v as compact JSON to b until b holds more than
// maxExpectedWords bytes.
func writeBounded(b *strings.Builder, v any) {
	if b.Len() > maxExpectedWords {
		return
	}
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		for i, c := range x {
			if b.Len() > maxExpectedWords {
				return
			}
			if i > 0 {
				b.WriteByte(',')
			}
			writeBounded(b, c)
		}
		b.WriteByte(']')
	case map[string]any:
		if len(x) > 32 {
			fmt.Fprintf(b, "{...%d members}", len(x))
			return
		}
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeBounded(b, k)
			b.WriteByte(':')
			writeBounded(b, x[k])
		}
		b.WriteByte('}')
	case string:
		if len(x) > maxExpectedWords {
			x = strings.ToValidUTF8(x[:maxExpectedWords], "")
		}
		data, _ := json.Marshal(x)
		b.Write(data)
	default:
		data, err := json.Marshal(x)
		if err != nil {
			fmt.Fprint(b, x)
			return
		}
		b.Write(data)
	}
}

// at returns the value a JSON pointer addresses in a decoded document.
func at(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = unescape(seg)
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func unescape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ArgumentsSummary is the counts over the runs added.
type ArgumentsSummary struct {
	Runs, Calls, Checked, Invalid, Unchecked int64
	// Keywords counts the violations by keyword, in first-seen order.
	Keywords []KeywordCount
}

// KeywordCount is how many violations one keyword gave.
type KeywordCount struct {
	Keyword string
	N       int
}

// Summary returns the counts over every run added.
func (a *Arguments) Summary() ArgumentsSummary {
	s := ArgumentsSummary{Runs: a.runs, Calls: a.calls, Checked: a.checked, Invalid: a.invalid, Unchecked: a.unchecked}
	for _, k := range a.keywords.order {
		s.Keywords = append(s.Keywords, KeywordCount{k, a.keywords.n[k]})
	}
	return s
}

// Result reports arguments.valid_pct (the checked calls whose arguments
// hold, integer percent; absent when no call was checked) and
// arguments.invalid, the counts behind them and a finding per violation.
func (a *Arguments) Result() Result {
	res := Result{
		Targets: map[string]float64{"arguments.invalid": float64(a.invalid), "arguments.unchecked": float64(a.unchecked)},
		Counts: map[string]int64{
			"arguments.calls":     a.calls,
			"arguments.checked":   a.checked,
			"arguments.invalid":   a.invalid,
			"arguments.unchecked": a.unchecked,
		},
		Findings: a.findings,
	}
	if a.checked > 0 {
		res.Targets["arguments.valid_pct"] = float64(stats.Percent(a.checked-a.invalid, a.checked))
	}
	if a.dropped > 0 {
		res.Findings = append(res.Findings, Finding{Level: "error", Gate: "arguments",
			Message: fmt.Sprintf("and %d more argument violations (the first %d are named)", a.dropped, maxArgumentFindings)})
	}
	if a.unchecked > 0 {
		res.Findings = append(res.Findings, Finding{Level: "warning", Gate: "arguments", Message: a.uncheckedMessage()})
	}
	return res
}

// maxUncheckedNames bounds the tools the unchecked finding names.
const maxUncheckedNames = 5

// uncheckedMessage names the tools whose calls were not checked, with
// their counts, and how to make them fail the case.
func (a *Arguments) uncheckedMessage() string {
	var names []string
	for i, id := range a.skipped.order {
		if i == maxUncheckedNames {
			names = append(names, fmt.Sprintf("and %d more tools", len(a.skipped.order)-i))
			break
		}
		names = append(names, fmt.Sprintf("`%s` ×%d", id, a.skipped.n[id]))
	}
	if a.skipped.more > 0 {
		names = append(names, fmt.Sprintf("and %d calls of tools not counted by name", a.skipped.more))
	}
	return fmt.Sprintf("%d of %d calls were not checked (%s): their tool has no inputSchema in the recording or the block's catalog, it does not compile, or checking them was over a limit on the work a schema may take, "+
		"so arguments.invalid cannot see them; the block's `expect: [arguments.invalid: {\"<=\": 0}, arguments.unchecked: {\"<=\": 0}]` fails the case on any", a.unchecked, a.calls, strings.Join(names, ", "))
}
