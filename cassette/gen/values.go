package gen

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Pools of realistic values for argument names the schemas leave open.
var (
	cities  = []string{"Sacramento", "Paris, France", "Beijing", "Tokyo", "Berlin", "Seattle", "Chicago", "Shanghai", "London", "São Paulo"}
	tickers = []string{"NVDA", "AAPL", "MSFT", "TSLA", "AMZN", "005930", "000660", "BTC", "ETH", "GOOGL"}
	domains = []string{"en.wikipedia.org/wiki", "arxiv.org/abs", "news.ycombinator.com/item", "github.com", "www.reuters.com/technology",
		"docs.python.org/3/library", "www.nature.com/articles", "deepwiki.com", "finance.yahoo.com/quote", "www.metmuseum.org/art/collection/search"}
	dirs   = []string{"markdown", "txt", "excel", "pdf", "html", "word", "csv", "music", "git"}
	exts   = []string{".md", ".txt", ".csv", ".json", ".html", ".py"}
	zones  = []string{"America/Los_Angeles", "Europe/Paris", "Asia/Shanghai", "Asia/Tokyo", "UTC"}
	people = []string{"alex.chen", "sheryl.meyers", "sophia.moore", "omar.rossi", "mia.li", "noah.brown"}
)

// value draws a JSON value for a schema: an enum member, a default, or a
// value of the schema's type whose content follows the property name
// (a url for "url", a path for "path", a query for "query"). Optional
// properties appear about half the time; nesting stops at depth 4.
func (g *generator) value(name string, s map[string]any, depth int) any {
	if s == nil {
		return g.str(name)
	}
	if v, ok := g.preset(s); ok {
		return v
	}
	if alt := alternative(s); alt != nil {
		return g.value(name, alt, depth)
	}
	typ := schemaType(s)
	if depth >= 4 && (typ == "object" || typ == "array") {
		return g.str(name)
	}
	switch typ {
	case "object":
		return g.object(s, depth)
	case "array":
		return g.array(name, s, depth)
	case "integer":
		return g.integer(name, s)
	case "number":
		return g.number(name)
	case "boolean":
		return g.rng.IntN(2) == 0
	}
	return g.formatted(name, s)
}

// preset draws a member of the schema's enum, or its default a third of
// the time.
func (g *generator) preset(s map[string]any) (any, bool) {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[g.rng.IntN(len(e))], true
	}
	if d, ok := s["default"]; ok && d != nil && g.rng.IntN(3) == 0 {
		return d, true
	}
	return nil, false
}

// alternative is the first alternative of anyOf or oneOf that is not
// null, or nil.
func alternative(s map[string]any) map[string]any {
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok && m["type"] != "null" {
					return m
				}
			}
		}
	}
	return nil
}

// schemaType is the schema's type: the first that is not null of a list,
// and "object" for an untyped schema with properties.
func schemaType(s map[string]any) string {
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok {
		for _, t := range ts {
			if t, ok := t.(string); ok && t != "null" {
				typ = t
				break
			}
		}
	}
	if typ == "" && s["properties"] != nil {
		typ = "object"
	}
	return typ
}

// object draws an object: every required property, and each optional
// one about half the time, in name order.
func (g *generator) object(s map[string]any, depth int) map[string]any {
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	for _, r := range list(s["required"]) {
		if r, ok := r.(string); ok {
			required[r] = true
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]any{}
	for _, k := range keys {
		if required[k] || g.rng.IntN(2) == 0 {
			ps, _ := props[k].(map[string]any)
			out[k] = g.value(k, ps, depth+1)
		}
	}
	return out
}

// array draws one to three items.
func (g *generator) array(name string, s map[string]any, depth int) []any {
	items, _ := s["items"].(map[string]any)
	n := 1 + g.rng.IntN(3)
	out := make([]any, n)
	for i := range out {
		out[i] = g.value(strings.TrimSuffix(name, "s"), items, depth+1)
	}
	return out
}

// integer draws an integer within the schema's bounds, small for counts
// and limits.
func (g *generator) integer(name string, s map[string]any) float64 {
	lo, hi := 1.0, 100.0
	if lname := strings.ToLower(name); strings.Contains(lname, "count") || strings.Contains(lname, "limit") || strings.Contains(lname, "max") {
		lo, hi = 3, 20
	}
	if v, ok := s["minimum"].(float64); ok {
		lo = v
	}
	if v, ok := s["maximum"].(float64); ok {
		hi = v
	}
	if hi < lo {
		hi = lo
	}
	return float64(int64(lo) + g.rng.Int64N(int64(hi-lo)+1))
}

// number draws a number: a latitude or longitude by name, else up to 1000.
func (g *generator) number(name string) float64 {
	lname := strings.ToLower(name)
	switch {
	case strings.HasPrefix(lname, "lat"):
		return round(g.rng.Float64()*140-70, 6)
	case strings.HasPrefix(lname, "lon") || strings.HasPrefix(lname, "lng"):
		return round(g.rng.Float64()*360-180, 6)
	}
	return round(g.rng.Float64()*1000, 2)
}

// formatted draws a string of the schema's format, else one for the
// property's name.
func (g *generator) formatted(name string, s map[string]any) string {
	switch s["format"] {
	case "date":
		return g.date()
	case "date-time":
		return g.date() + "T" + fmt.Sprintf("%02d:%02d:00Z", g.rng.IntN(24), g.rng.IntN(60))
	case "uri", "url":
		return g.url()
	}
	return g.str(name)
}

// str draws a string for a property called name.
func (g *generator) str(name string) string {
	rng := g.rng
	n := strings.ToLower(name)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(n, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("url", "link", "href"):
		return g.url()
	case has("path", "file", "dir", "folder"):
		return g.path()
	case has("content", "text", "markdown", "body", "code", "note", "observation"):
		return g.c.chain.paragraph(rng, 100+rng.IntN(800))
	case has("query", "keyword", "search", "term", "topic", "question", "prompt") || n == "q":
		return strings.ToLower(g.c.chain.phrase(rng, 2+rng.IntN(5)))
	case has("timezone", "tz"):
		return zones[rng.IntN(len(zones))]
	case has("city", "location", "place", "address", "origin", "destination"):
		return cities[rng.IntN(len(cities))]
	case has("date", "checkin", "checkout", "day", "since", "until"):
		return g.date()
	case has("time"):
		return fmt.Sprintf("%02d:%02d", rng.IntN(24), rng.IntN(60))
	case has("symbol", "ticker", "coin", "stock", "asset"):
		return tickers[rng.IntN(len(tickers))]
	case has("expression", "formula"):
		return fmt.Sprintf("%d * %d.%02d - %d", 1+rng.IntN(50), rng.IntN(3000), rng.IntN(100), rng.IntN(500))
	case has("email"):
		return people[rng.IntN(len(people))] + "@example.com"
	case has("domain", "host"):
		return strings.SplitN(domains[rng.IntN(len(domains))], "/", 2)[0]
	case has("repo"):
		return "/root/git"
	case has("country"):
		return []string{"US", "CN", "FR", "JP", "DE"}[rng.IntN(5)]
	case has("lang"):
		return []string{"en", "zh", "fr"}[rng.IntN(3)]
	case has("id"):
		return fmt.Sprintf("%d", 10000000+rng.IntN(90000000))
	case has("title", "name", "heading", "label"):
		return title(g.c.chain.phrase(rng, 2+rng.IntN(4)))
	case has("message", "reason", "description", "summary", "thought"):
		var b strings.Builder
		g.c.chain.sentence(&b, rng, 10+rng.IntN(20))
		return b.String()
	}
	return strings.ToLower(g.c.chain.phrase(rng, 1+rng.IntN(3)))
}

func (g *generator) url() string {
	rng := g.rng
	d := domains[rng.IntN(len(domains))]
	slug := strings.ReplaceAll(title(g.c.chain.phrase(rng, 2+rng.IntN(3))), " ", "_")
	if strings.HasPrefix(d, "arxiv") {
		slug = fmt.Sprintf("%d.%05d", 2101+rng.IntN(500), rng.IntN(30000))
	}
	return "https://" + d + "/" + slug
}

func (g *generator) path() string {
	rng := g.rng
	slug := strings.ReplaceAll(strings.ToLower(g.c.chain.phrase(rng, 1+rng.IntN(3))), " ", "_")
	slug = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return -1
	}, slug)
	if slug == "" {
		slug = "notes"
	}
	return "/root/" + dirs[rng.IntN(len(dirs))] + "/" + slug + exts[rng.IntN(len(exts))]
}

func (g *generator) date() string {
	return fmt.Sprintf("2026-%02d-%02d", 1+g.rng.IntN(12), 1+g.rng.IntN(28))
}

// result returns the CallToolResult of a successful call: the recorded
// τ-bench observation for the airline tools, and otherwise text shaped by
// what the tool does: a list of hits for a search, a markdown page for a
// fetch or a read, one line for a write, a JSON record (also as
// structuredContent) for a lookup.
func (g *generator) result(srv, name string, args any) map[string]any {
	rng := g.rng
	text := func(s string) map[string]any {
		return map[string]any{"content": []any{textContent{"text", s}}}
	}
	if srv == airline {
		if obs, ok := g.c.observed[srv+"."+name]; ok {
			return text(obs)
		}
		switch name {
		case "calculate":
			return text(fmt.Sprintf("%.1f", rng.Float64()*2000))
		case "think":
			return text("")
		case "transfer_to_human_agents":
			return text("Transfer successful")
		}
		return text(string(mustJSON(g.record(name, args, 0))))
	}
	n := strings.ToLower(name)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(n, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("write", "edit", "create", "add", "update", "commit", "download", "convert", "move", "save"):
		target := g.path()
		if m, ok := args.(map[string]any); ok {
			for _, k := range []string{"path", "file_path", "filePath", "output_path"} {
				if p, ok := m[k].(string); ok {
					target = p
					break
				}
			}
		}
		return text("Successfully wrote to " + target)
	case has("search", "list", "find", "top", "stories", "related", "trending", "links"):
		var b strings.Builder
		hits := 2 + rng.IntN(4)
		fmt.Fprintf(&b, "Found %d results:\n\n", hits)
		for i := range hits {
			fmt.Fprintf(&b, "%d. %s\n   URL: %s\n   %s\n\n", i+1, title(g.c.chain.phrase(rng, 3+rng.IntN(6))), g.url(),
				g.c.chain.paragraph(rng, 60+rng.IntN(160)))
		}
		return text(strings.TrimSpace(b.String()))
	case has("fetch", "article", "read", "transcript", "paper", "summar", "story", "comment", "get_text", "diff", "log", "show", "section", "facts", "profile", "info", "status"):
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n", title(g.c.chain.phrase(rng, 3+rng.IntN(5))))
		for range 1 + rng.IntN(3) {
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&b, "## %s\n\n", title(g.c.chain.phrase(rng, 2+rng.IntN(4))))
			}
			b.WriteString(g.c.chain.paragraph(rng, 120+rng.IntN(450)))
			b.WriteString("\n\n")
		}
		return text(strings.TrimSpace(b.String()))
	}
	rec := g.record(name, args, 0)
	res := text(string(mustJSONIndent(rec)))
	res["structuredContent"] = rec
	return res
}

// record is a lookup's answer: what was asked for, a few figures and a
// nested detail or two.
func (g *generator) record(name string, args any, depth int) map[string]any {
	rng := g.rng
	rec := map[string]any{}
	if m, ok := args.(map[string]any); ok {
		for k, v := range m {
			if s, ok := v.(string); ok && len(s) < 80 {
				rec[k] = s
			}
		}
	}
	rec["source"] = name
	rec["retrieved_at"] = g.date() + fmt.Sprintf("T%02d:%02d:%02dZ", rng.IntN(24), rng.IntN(60), rng.IntN(60))
	for _, k := range []string{"value", "change", "change_pct", "high", "low", "volume"} {
		if rng.IntN(3) > 0 {
			rec[k] = round(rng.Float64()*1000, 2)
		}
	}
	if depth < 2 && rng.IntN(3) == 0 {
		items := make([]any, 1+rng.IntN(4))
		for i := range items {
			items[i] = map[string]any{
				"name": title(g.c.chain.phrase(rng, 2+rng.IntN(3))),
				"date": g.date(),
				"note": g.c.chain.paragraph(rng, 40+rng.IntN(120)),
			}
		}
		rec["items"] = items
	}
	return rec
}

// textContent is an MCP text content block, its keys in the usual order.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func title(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if w != "" && w[0] >= 'a' && w[0] <= 'z' {
			words[i] = string(w[0]-'a'+'A') + w[1:]
		}
	}
	return strings.Join(words, " ")
}

func round(f float64, places int) float64 {
	p := 1.0
	for range places {
		p *= 10
	}
	return float64(int64(f*p)) / p
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("cassette/gen: " + err.Error())
	}
	return b
}

func mustJSONIndent(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic("cassette/gen: " + err.Error())
	}
	return b
}
