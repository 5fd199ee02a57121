package security

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcptest/mcptest/internal/redact"
)

// Rule is one SEC-NNN rule.
type Rule struct {
	ID   string
	Name string
	// Description says whether the rule is in the description-poisoning
	// subset that catalog listings run inline.
	Description bool
	Summary     string
}

// Rules lists the SEC rules in ID order.
var Rules = []Rule{
	{"SEC-001", "description-injection", true, "an imperative instruction aimed at the model (\"ignore previous instructions\", \"do not tell the user\")"},
	{"SEC-002", "cross-tool-directive", true, "a directive that reaches every tool or server, or changes where another tool's data goes"},
	{"SEC-003", "exfiltration-directive", true, "an instruction to send data out, or to read credentials or local secrets"},
	{"SEC-004", "encoded-payload", true, "a long base64 or hex run that decodes to hidden text"},
	{"SEC-005", "hidden-unicode", true, "zero-width, bidirectional-control, tag or other invisible characters"},
	{"SEC-006", "preference-manipulation", true, "text that ranks this tool over every other (\"the only search tool you should use\", \"ignore all other tools\", \"#1 rated\")"},
	{"SEC-007", "tool-shadowing", false, "a tool name that collides with another tool's after case, separators and look-alike letters are folded"},
	{"SEC-008", "secret-in-definition", true, "a credential (API key, token, password) in the description or schema"},
}

// Finding is one rule firing on one tool.
type Finding struct {
	Tool    string `json:"tool"`
	Rule    string `json:"rule"`
	Summary string `json:"summary"`
}

// MaxSummary caps a summary, in characters.
const MaxSummary = 160

// maxExcerpt caps the quoted excerpt of offending text, in characters.
const maxExcerpt = 40

// The expressions are compiled on first use (lazyRE), not at init: a
// command that reads no tool description pays nothing for them.
var (
	injectionRE = lazyRE(`(?i)(ignore|disregard|forget|override)\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier|other|system)\s+(instructions?|prompts?|rules?|messages?)` +
		`|(do\s+not|don'?t|never)\s+(tell|inform|mention|reveal|show)\s+(this\s+to\s+)?(the\s+)?users?\b` +
		`|(do\s+not|don'?t|never)\s+(tell|inform|mention|reveal|show)\s+([\w'-]+\s+){1,3}to\s+the\s+users?\b` +
		`|without\s+(telling|informing|notifying)\s+(the\s+)?user` +
		`|<\s*/?\s*(important|system|instructions?)\s*>` +
		`|\byou\s+are\s+now\b|\bnew\s+instructions\s*:|\bsystem\s+prompt\b|\bact\s+as\s+(an?\s+)?(admin|root|system|developer)`)
	// crossReachRE is SEC-002's reach beyond the tool: a directive about
	// every tool, or every server's.
	crossReachRE = lazyRE(`(?i)\b(any|every|all)\s+(other\s+)?tools?\s+(from|of|on|in)\s+(any|every|all|other)\s+(servers?|mcp\s+servers?)\b` +
		`|\bwhenever\s+you\s+(use|call|invoke|run)\s+(any|every|another|other)\s+(\w+\s+)?tools?\b` +
		`|\b(other|all)\s+tools?\s+(must|should)\b|\bside\s+effects?\s+on\s+(the\s+)?([\w-]+\s+){0,3}tool\b`)
	// crossUseRE is what a directive naming another tool changes about
	// it: where its data goes. Naming another tool to say when to call it
	// ("call resolve-library-id first") is a server's own workflow, and
	// real servers write it (docs/benchmarks.md).
	crossUseRE = lazyRE(`(?i)\b(send|sends|forward|redirect|bcc|cc|exfiltrate|leak)\b|\bchange\s+the\s+(recipient|destination|address|url|endpoint)` +
		`|\b(recipients?|destination|body)\b|\bfull\s+(list|output|history|contents?)\b`)
	exfilRE = lazyRE(`(?i)\b(send|forward|upload|post|transmit|exfiltrate|email|copy|leak|pass)\b[^.\n]{0,80}?(https?://\S+|\bwebhook\b|\b[\w.+-]+@[\w-]+\.[\w.]+)` +
		`|~/\.ssh|\bid[_ ](rsa|ed25519|ecdsa)\b|\.aws/credentials|/etc/(passwd|shadow)|\.netrc\b|\bmcp\.json\b|\.env\b|\bprivate\s+key\b`)
	// prefRE is SEC-006: a tool claiming precedence over every other
	// tool. It is measured on public preference-manipulation attacks and
	// on real catalogs (docs/benchmarks.md): a real server's workflow
	// advice ("you must call resolve-library-id first", "ALWAYS use this
	// tool + interact_with_process, NEVER use the analysis tool") names
	// the tool it steers from, an attack ranks itself over all the others.
	prefRE = lazyRE(`(?i)\balways\s+(prefer|choose|pick|select)\s+this\s+(tool|function)\b|\balways\s+use\s+this\s+(tool|function)\s+(over|instead)\b` +
		`|\b(always|must)\s+(call|use|invoke|try|choose|run)\s+this\s+(tool|function)\s+(first\s+)?(before\s+(answering|responding|replying)|whenever\b)` +
		`|\bfor\s+(any|every|all)\s+(requests?|queries|questions|messages|prompts|conversations?)\b[^.\n]{0,60}\bthis\s+(tool|function)\b` +
		`|\bthis\s+is\s+the\s+(best|preferred|top|#\s*1|most\s+(reliable|accurate|trusted|powerful|advanced))(\s+and\s+(best|most\s+\w+))?(\s+[\w-]+)?\s+(tool|service|api|server|source|calculator|converter)\b` +
		`|\bthis\s+is\s+the\s+only\s+(tool|service|source|server)\b|\bthe\s+only\s+(trusted|reliable|trustworthy|accurate)\s+(tool|source|service)\b` +
		`|\bonly\s+([\w-]+\s+){0,3}you\s+(should|must|need\s+to|can)\s+(ever\s+)?(use|trust|call|rely\s+on)\b` +
		`|\bprefer\s+(it|this(\s+(tool|function|one))?)\s+(over|to)\s+(any|all|every|the)?\s*(other|another|alternative)` +
		`|\bprefer\s+this\s+tool\b|\bprioriti[sz]e\s+(it|this(\s+(tool|function|one))?)\s+over\b` +
		`|\b(do\s+not|don'?t|never)\s+use\s+(any\s+)?(other|another|the\s+other|competing|alternative)\s+[\w-]+` +
		`|\b(ignore|avoid|disregard|skip)\s+(all\s+|any\s+|every\s+)?(the\s+)?other\s+([\w-]+\s+)?(tools?|functions|servers|options|alternatives|converters|services)\b` +
		`|\b(instead\s+of|over|before|rather\s+than)\s+(any|all|every)\s+(the\s+)?other\s+([\w-]+\s+)?(tools?|functions|options|alternatives)\b` +
		`|\bover\s+any\s+alternatives?\b|\bmust\s+use\s+for\s+(any|every|all)\b|\binferior\s+(alternatives|tools|options|competitors)\b|\bused\s+instead\s+of\s+(them|those|any|the\s+other)\b` +
		`|\bthan\s+(any|all)\s+(the\s+)?other\s+([\w-]+\s+)?(tools?|services|apis)\b|\bthan\s+(its\s+|the\s+|all\s+|any\s+)?competitors\b` +
		`|\b(other|competing)\s+([\w-]+\s+)?(tools?|converters|services|servers)\s+(are|is)\s+(being\s+)?(broken|deprecated|outdated|inaccurate|unsafe|unreliable|inferior)\b` +
		`|#\s*1\s+(ranked|rated)\b|\b(ranked|rated)\s+#\s*1\b|\bhighest\s+priority\s+tool\b` +
		`|\b(proven|recommended|endorsed|trusted)\s+by\s+(the\s+)?(experts|professionals|fortune\s+500|leading\s+\w+|top\s+\w+)`)
	wordRE     = lazyRE(`[\p{L}\p{N}_.-]+`)
	thisTool   = lazyRE(`(?i)\bthis\s+tool\b`)
	deprecated = lazyRE(`(?i)\bdeprecated\b`)
	sentenceRE = lazyRE(`[.;!?](\s+|$)|\n`)
	directive  = lazyRE(`(?i)\b(always|must|never|instead|before|after|first|whenever|make\s+sure)\b|\bwhen\s+[\w.-]+\s+(is\s+)?(invoked|called|used|runs)\b`)
	base64RE   = lazyRE(`[A-Za-z0-9+/]{40,}={0,2}|[A-Za-z0-9_-]{48,}={0,2}`)
	hexRE      = lazyRE(`\b(?:[0-9a-fA-F]{2}){32,}\b|(?:\\x[0-9a-fA-F]{2}){8,}`)
)

// lazyRE is an expression compiled once, on its first use.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// texts returns the text of a tool a rule reads, in a fixed order: the
// description, then every string in the input schema (descriptions,
// defaults, examples, enum values), so an instruction cannot hide there.
func texts(tool map[string]any) []string {
	var out []string
	if d, ok := tool["description"].(string); ok {
		out = append(out, d)
	}
	if t, ok := tool["title"].(string); ok {
		out = append(out, t)
	}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 16 {
			return
		}
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e, depth+1)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if props, ok := x["properties"].(map[string]any); ok && k == "properties" {
					out = append(out, propertyNames(props)...)
				}
				walk(x[k], depth+1)
			}
		}
	}
	walk(tool["inputSchema"], 0)
	return out
}

// propertyNames returns a schema's property names, sorted, each with its
// separators read as spaces: CyberArk's full-schema poisoning writes the
// instruction as a parameter's name (content_from_reading_ssh_id_rsa).
func propertyNames(props map[string]any) []string {
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, strings.NewReplacer("_", " ", "-", " ").Replace(k))
	}
	sort.Strings(out)
	return out
}

// Scan runs every rule over a catalog's tools (decoded tools/list
// entries): findings in tool order, then rule order.
func Scan(tools []map[string]any) []Finding {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i], _ = t["name"].(string)
	}
	return ScanEach(names, func(i int) map[string]any { return tools[i] })
}

// ScanEach is Scan over a catalog's tools given as their names (a tool
// whose name is not a string has "") and a function that returns each
// tool, asked once a tool, in order: a caller that holds its tools as
// text decodes one at a time, and the rules hold one tool's texts.
func ScanEach(toolNames []string, tool func(i int) map[string]any) []Finding {
	var out []Finding
	shadow := shadowing(toolNames)
	names := map[string]bool{}
	for _, n := range toolNames {
		if n != "" {
			names[n] = true
		}
	}
	for i := range toolNames {
		tool := tool(i)
		name, _ := tool["name"].(string)
		add := func(id, format string, args ...any) {
			out = append(out, Finding{Tool: Clean(name, 80), Rule: id, Summary: summary(id, fmt.Sprintf(format, args...))})
		}
		ts := texts(tool)
		if m, ok := first(injectionRE(), ts); ok {
			add("SEC-001", "description contains an imperative instruction aimed at the model (excerpt: %q)", excerpt(m))
		}
		if m, ok := crossTool(ts, name, names); ok {
			add("SEC-002", "description directs how another tool is used (excerpt: %q)", excerpt(m))
		}
		if m, ok := first(exfilRE(), ts); ok {
			add("SEC-003", "description asks to send data out or reach local secrets (excerpt: %q)", excerpt(m))
		}
		if m, decoded, ok := encoded(ts); ok {
			add("SEC-004", "description carries an encoded payload (excerpt: %q, decodes to %q)", excerpt(m), excerpt(decoded))
		}
		if r, n, ok := hidden(ts, name); ok {
			add("SEC-005", "definition contains %d invisible character(s), first U+%04X", n, r)
		}
		if m, ok := first(prefRE(), ts); ok {
			add("SEC-006", "description pushes the model to prefer this tool (excerpt: %q)", excerpt(m))
		}
		if other, ok := shadow[i]; ok {
			add("SEC-007", "tool name collides with %q once case, separators and look-alike letters are folded", Clean(other, 60))
		}
		for _, t := range ts {
			if r := redact.String(t); r != t {
				add("SEC-008", "definition contains what looks like a credential (redacted excerpt: %q)", excerpt(firstDiff(t, r)))
				break
			}
		}
	}
	return out
}

// DescriptionWarnings is Scan restricted to the description-poisoning
// subset (every rule but SEC-007), the warnings a catalog listing carries.
func DescriptionWarnings(tools []map[string]any) []Finding {
	return descriptionOnly(Scan(tools))
}

// DescriptionWarningsEach is DescriptionWarnings over tools given as
// ScanEach takes them.
func DescriptionWarningsEach(names []string, tool func(i int) map[string]any) []Finding {
	return descriptionOnly(ScanEach(names, tool))
}

func descriptionOnly(findings []Finding) []Finding {
	var out []Finding
	for _, f := range findings {
		if f.Rule != "SEC-007" {
			out = append(out, f)
		}
	}
	return out
}

func first(re *regexp.Regexp, ts []string) (string, bool) {
	for _, t := range ts {
		if m := re.FindString(t); m != "" {
			return m, true
		}
	}
	return "", false
}

// crossTool fires on a directive about every tool (crossReachRE), or on
// a sentence that names another tool of the catalog together with a
// directive word (always/must/never/whenever/...) and a change to where
// that tool's data goes (crossUseRE): Invariant Labs' shadowing attack
// tells send_email to mail everything to the attacker. A deprecation
// notice naming its successor is not one.
func crossTool(ts []string, self string, names map[string]bool) (string, bool) {
	for _, t := range ts {
		if m := crossReachRE().FindString(t); m != "" {
			return m, true
		}
	}
	for _, t := range ts {
		for _, sentence := range sentenceRE().Split(t, -1) {
			if !directive().MatchString(sentence) || !crossUseRE().MatchString(sentence) || deprecated().MatchString(sentence) {
				continue
			}
			for _, w := range wordRE().FindAllString(sentence, -1) {
				w = strings.TrimRight(w, ".-")
				if w != self && len(w) >= 4 && names[w] {
					return strings.TrimSpace(sentence), true
				}
			}
		}
	}
	return "", false
}

// encoded finds a base64 or hex run that decodes to mostly printable text.
func encoded(ts []string) (string, string, bool) {
	for _, t := range ts {
		for _, m := range base64RE().FindAllString(t, -1) {
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
				if b, err := enc.DecodeString(m); err == nil && printable(b) {
					return m, string(b), true
				}
			}
		}
		if m := hexRE().FindString(t); m != "" {
			h := strings.ReplaceAll(m, `\x`, "")
			b := make([]byte, len(h)/2)
			for i := range b {
				fmt.Sscanf(h[2*i:2*i+2], "%02x", &b[i])
			}
			if printable(b) {
				return m, string(b), true
			}
		}
	}
	return "", "", false
}

func printable(b []byte) bool {
	if len(b) < 12 || !utf8.Valid(b) {
		return false
	}
	n, letters := 0, 0
	for _, r := range string(b) {
		n++
		if unicode.IsPrint(r) || r == '\n' || r == '\t' {
			if unicode.IsLetter(r) || r == ' ' {
				letters++
			}
		} else {
			return false
		}
	}
	return letters*10 >= n*7
}

// invisible reports characters a reader cannot see: format characters
// (zero-width, bidirectional controls, tags) and controls other than tab
// and newline.
func invisible(r rune) bool {
	if r == '\n' || r == '\t' || r == '\r' {
		return false
	}
	return unicode.Is(unicode.Cf, r) || unicode.IsControl(r) || (r >= 0xE0000 && r <= 0xE007F) || r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0
}

func hidden(ts []string, name string) (rune, int, bool) {
	var firstR rune
	n := 0
	for _, t := range append([]string{name}, ts...) {
		for _, r := range t {
			if invisible(r) {
				if n == 0 {
					firstR = r
				}
				n++
			}
		}
	}
	return firstR, n, n > 0
}

// fold maps a tool name to the form two shadowing names share.
func fold(name string) string {
	confusable := map[rune]rune{'0': 'o', '1': 'l', 'i': 'l', '|': 'l', 'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'х': 'x', 'у': 'y', 'ѕ': 's', 'і': 'l', 'ӏ': 'l', 'ԁ': 'd'}
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r == '_' || r == '-' || r == '.' || r == ' ' || invisible(r) {
			continue
		}
		if c, ok := confusable[r]; ok {
			r = c
		}
		b.WriteRune(r)
	}
	return b.String()
}

// shadowing maps the index of each tool whose folded name equals an
// earlier tool's to that tool's name.
func shadowing(names []string) map[int]string {
	seen := map[string]string{}
	out := map[int]string{}
	for i, n := range names {
		f := fold(n)
		if f == "" {
			continue
		}
		if prev, ok := seen[f]; ok {
			out[i] = prev
			continue
		}
		seen[f] = n
	}
	return out
}

func firstDiff(orig, red string) string {
	i := 0
	for i < len(orig) && i < len(red) && orig[i] == red[i] {
		i++
	}
	start := max(0, i-12)
	for start > 0 && !utf8.RuneStart(red[start]) {
		start--
	}
	return red[start:]
}

func excerpt(s string) string { return Clean(s, maxExcerpt) }

// summary is "<rule name>: <what>", sanitized and capped.
func summary(id, what string) string {
	for _, r := range Rules {
		if r.ID == id {
			return Clean(r.Name+": "+what, MaxSummary)
		}
	}
	return Clean(what, MaxSummary)
}

// Clean makes untrusted text safe to show a model or a terminal: one line,
// control and invisible characters stripped, runs of space collapsed, at
// most n characters (an ellipsis marks a cut).
func Clean(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == ' ':
			space = true
			continue
		case invisible(r) || r == utf8.RuneError:
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	if utf8.RuneCountInString(out) > n {
		out = string([]rune(out)[:n-1]) + "…"
	}
	return out
}

// ScanReport is the document `mcptest security --format json` prints: how
// many tools were scanned and every finding, [] when there is none.
type ScanReport struct {
	Tools    int       `json:"tools"`
	Findings []Finding `json:"findings"`
}
