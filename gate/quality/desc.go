package quality

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Severity is how much a finding matters.
type Severity string

// The severities of a finding.
const (
	// Critical violates a research-backed rule: the agent will likely
	// struggle to use the tool reliably.
	Critical Severity = "critical"
	// Warning is imperfect but workable.
	Warning Severity = "warning"
	// Pass meets the bar.
	Pass Severity = "pass"
)

// Finding is one rule's verdict on one tool.
type Finding struct {
	Tool       string   `json:"tool"`
	Rule       string   `json:"rule"`
	Severity   Severity `json:"severity"`
	Message    string   `json:"message"`
	Suggestion string   `json:"suggestion,omitempty"`
}

// PassRule is the rule id of the synthetic Pass finding a tool gets when
// no rule fires, so a report represents every checked tool.
const PassRule = "DESC-000"

// Rule is one DESC-NNN description rule.
type Rule struct {
	ID       string
	Severity Severity
	Smell    string
	// Summary says what the rule catches.
	Summary string
	check   func(t Tool) (msg, suggestion string, fired bool)
}

// The description length bounds of DESC-001 and DESC-002.
const (
	MinDescription = 20
	MaxDescription = 500
)

// The rules' expressions and verb list are built on first use, by a
// command that lints descriptions, not in every process's init (369
// allocations, 87 KB before main).
var (
	wordRE        = lazyRegexp(`[A-Za-z]+`)
	positionalRE  = lazyRegexp(`(?i)\b(see (above|below)|(the )?(previous|preceding|next|following|prior|last) (tool|step|call|function)|as (mentioned |described |noted )?(above|below)|mentioned (above|below)|the above)\b`)
	returnRE      = lazyRegexp(`(?i)\b(return|returns|returned|returning|output|outputs|result|results|responds|response|yields|gives back|produces|emits)\b`)
	listValuesRE  = lazyRegexp(`(?i)\b(one of|allowed values|valid values|possible values|accepted values|supported values|options are|must be either|either ['"` + "`" + `]?\w+['"` + "`" + `]? or)\b`)
	commonVerbSet = sync.OnceValue(commonVerbs)
)

// commonVerbs is the set of verbs a tool description commonly opens with.
func commonVerbs() map[string]bool {
	set := map[string]bool{}
	for _, v := range strings.Fields(`get return list create update delete remove search find fetch read write send run execute
		add set compute calculate generate convert check validate query retrieve move copy open close start stop echo show print
		upload download load save edit modify make build parse format lookup look count sum toggle compress decompress trigger
		demonstrate provide append insert replace rename resolve translate summarize summarise extract analyze analyse scan
		list call invoke post publish subscribe schedule cancel approve reject sign verify encode decode encrypt decrypt hash
		sort filter merge split join render resize crop take capture record play pause stream log track monitor watch notify
		open navigate click type fill select press scroll hover wait evaluate describe explain tell compare measure test ping
		store cache index browse explore inspect view display annotate tag label assign register deploy install configure
		enable disable reset clear refresh sync import export transform map reduce aggregate group observe access lock unlock
		grant revoke share invite accept submit complete start finish begin end archive restore backup clone fork pull push
		commit merge diff patch apply`) {
		set[v] = true
	}
	return set
}

// lazyRegexp returns expr compiled on the first call, once.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// hasVerb reports whether text uses a common verb, in any inflection.
func hasVerb(text string) bool {
	verbs := commonVerbSet()
	for _, w := range wordRE().FindAllString(strings.ToLower(text), -1) {
		if verbs[w] {
			return true
		}
		for _, suf := range []string{"s", "es", "ed", "d", "ing"} {
			if stem, ok := strings.CutSuffix(w, suf); ok && len(stem) > 1 && (verbs[stem] || verbs[stem+"e"]) {
				return true
			}
		}
		if stem, ok := strings.CutSuffix(w, "ies"); ok && verbs[stem+"y"] {
			return true
		}
	}
	return false
}

// normalize lowercases and turns separators into spaces, so "read_file"
// equals "Read file".
func normalize(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// trivialSchema: at most one property, and that one optional and a plain
// string.
func (t Tool) trivialSchema() bool {
	ps := t.params()
	if len(ps) > 1 {
		return false
	}
	if len(ps) == 1 {
		p := ps[0]
		ty := p.types()
		if p.required || len(ty) != 1 || ty[0] != "string" || p.schema["enum"] != nil {
			return false
		}
	}
	return true
}

func (t Tool) hasExamples() bool {
	if arr, ok := t.Examples.([]any); ok && len(arr) > 0 {
		return true
	}
	if s, ok := t.InputSchema.(map[string]any); ok {
		if arr, ok := s["examples"].([]any); ok && len(arr) > 0 {
			return true
		}
	}
	for _, p := range t.params() {
		for _, k := range []string{"examples", "example", "default"} {
			if _, ok := p.schema[k]; ok {
				return true
			}
		}
	}
	return false
}

// annotationHints are the four boolean hints of MCP tool annotations.
var annotationHints = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// Rules are the thirteen description rules, in ID order.
var Rules = []Rule{
	{"DESC-001", Critical, "underspecified", "Description is empty or under 20 chars", func(t Tool) (string, string, bool) {
		n := utf8.RuneCountInString(strings.TrimSpace(t.Description))
		if n == 0 {
			return "the description is empty", "say in one sentence what the tool does, to what, and what it returns", true
		}
		if n < MinDescription {
			return fmt.Sprintf("the description is %d characters, under %d", n, MinDescription), "say what the tool does, to what, and what it returns", true
		}
		return "", "", false
	}},
	{"DESC-002", Warning, "verbose", "Description over 500 chars (probably missing inputSchema constraints)", func(t Tool) (string, string, bool) {
		if n := utf8.RuneCountInString(t.Description); n > MaxDescription {
			return fmt.Sprintf("the description is %d characters, over %d", n, MaxDescription), "move argument constraints into inputSchema (enum, minimum, pattern) and keep the description to what the tool does", true
		}
		return "", "", false
	}},
	{"DESC-003", Critical, "uninformative", "Description equals the tool name (no signal)", func(t Tool) (string, string, bool) {
		if t.Description != "" && normalize(t.Description) == normalize(t.Name) {
			return "the description only repeats the tool name", "describe the action, its inputs and its result instead of restating the name", true
		}
		return "", "", false
	}},
	{"DESC-004", Warning, "uninformative", "Description contains no common verb (agent cannot categorize)", func(t Tool) (string, string, bool) {
		if strings.TrimSpace(t.Description) != "" && !hasVerb(t.Description) {
			return "the description uses no common verb, so an agent cannot tell what kind of action the tool takes", "start with a verb: \"Search ...\", \"Create ...\", \"Return ...\"", true
		}
		return "", "", false
	}},
	{"DESC-005", Warning, "brittle", "Description uses positional phrases that mean nothing in a flat catalog", func(t Tool) (string, string, bool) {
		if m := positionalRE().FindString(t.Description); m != "" {
			return fmt.Sprintf("the description says %q, but a catalog has no order an agent can rely on", m), "name the other tool explicitly instead of pointing at its position", true
		}
		return "", "", false
	}},
	{"DESC-006", Warning, "underspecified", "A required argument has no description", func(t Tool) (string, string, bool) {
		var missing []string
		for _, p := range t.params() {
			if p.required && strings.TrimSpace(p.description()) == "" {
				missing = append(missing, p.name)
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("required argument(s) %s have no description", quoteList(missing)), "describe each required argument: its meaning, unit and format", true
		}
		return "", "", false
	}},
	{"DESC-007", Warning, "brittle", "An enum-typed argument's description does not mention the enum values", func(t Tool) (string, string, bool) {
		var bad []string
		for _, p := range t.params() {
			enum, ok := p.schema["enum"].([]any)
			d := strings.ToLower(p.description())
			if !ok || len(enum) == 0 || d == "" {
				continue
			}
			mentioned := false
			for _, v := range enum {
				if s := strings.ToLower(fmt.Sprint(v)); s != "" && strings.Contains(d, s) {
					mentioned = true
					break
				}
			}
			if !mentioned {
				bad = append(bad, p.name)
			}
		}
		if len(bad) > 0 {
			return fmt.Sprintf("enum argument(s) %s are described without naming any of their values", quoteList(bad)), "say what each allowed value means in the argument's description", true
		}
		return "", "", false
	}},
	{"DESC-008", Warning, "verbose", "An argument description is longer than the tool description", func(t Tool) (string, string, bool) {
		n := utf8.RuneCountInString(t.Description)
		var long []string
		for _, p := range t.params() {
			if utf8.RuneCountInString(p.description()) > n {
				long = append(long, p.name)
			}
		}
		if len(long) > 0 && n > 0 {
			return fmt.Sprintf("argument(s) %s are described at more length than the tool itself", quoteList(long)), "move what the tool does into the tool description and keep argument descriptions short", true
		}
		return "", "", false
	}},
	{"DESC-009", Warning, "missing_examples", "A tool with a non-trivial input schema provides no usage examples", func(t Tool) (string, string, bool) {
		if !t.trivialSchema() && !t.hasExamples() {
			return "the input schema is non-trivial and no example shows a valid call", "add an `examples` array, or `examples`/`default` on the arguments", true
		}
		return "", "", false
	}},
	{"DESC-010", Warning, "missing_return_format", "The description never says what the tool returns", func(t Tool) (string, string, bool) {
		if strings.TrimSpace(t.Description) != "" && t.OutputSchema == nil && !returnRE().MatchString(t.Description) {
			return "the description never says what comes back and the tool declares no outputSchema", "say what the tool returns: \"Returns a list of order objects, each with id, total and status.\"", true
		}
		return "", "", false
	}},
	{"DESC-011", Warning, "invalid_annotation", "An annotation hint is present with a non-boolean value", func(t Tool) (string, string, bool) {
		m, _ := t.Annotations.(map[string]any)
		var bad []string
		for _, h := range annotationHints {
			if v, ok := m[h]; ok {
				if _, isBool := v.(bool); !isBool {
					bad = append(bad, h)
				}
			}
		}
		if len(bad) > 0 {
			return fmt.Sprintf("annotation hint(s) %s hold a non-boolean value", quoteList(bad)), "set each hint to true or false", true
		}
		return "", "", false
	}},
	{"DESC-012", Warning, "missing_annotations", "A tool declares no annotations object at all", func(t Tool) (string, string, bool) {
		if !t.HasAnnotations || t.Annotations == nil {
			return "the tool declares no annotations, so a client cannot tell whether a call is read-only, destructive or idempotent", "add annotations with readOnlyHint, destructiveHint, idempotentHint and openWorldHint", true
		}
		return "", "", false
	}},
	{"DESC-013", Warning, "brittle", "A string argument lists its allowed values in the description but declares no enum", func(t Tool) (string, string, bool) {
		var bad []string
		for _, p := range t.params() {
			ty := p.types()
			stringish := len(ty) == 0 || (len(ty) == 1 && ty[0] == "string")
			if stringish && p.schema["enum"] == nil && listValuesRE().MatchString(p.description()) {
				bad = append(bad, p.name)
			}
		}
		if len(bad) > 0 {
			return fmt.Sprintf("argument(s) %s spell out a fixed set of values but declare no enum", quoteList(bad)), "declare the values as an `enum` so they are enforced", true
		}
		return "", "", false
	}},
}

// Lint runs every DESC rule over one tool: its findings in rule order, or
// one synthetic Pass finding when no rule fires.
func Lint(t Tool) []Finding {
	var out []Finding
	for _, r := range Rules {
		if msg, sug, fired := r.check(t); fired {
			out = append(out, Finding{Tool: t.Name, Rule: r.ID, Severity: r.Severity, Message: msg, Suggestion: sug})
		}
	}
	if len(out) == 0 {
		out = append(out, Finding{Tool: t.Name, Rule: PassRule, Severity: Pass, Message: "no description rule fired"})
	}
	return out
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}
