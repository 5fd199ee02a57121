package distractor

import (
	_ "embed"
	"encoding/json"
	"strings"
	"sync"
	"unicode"
)

// Tool is one entry of a tools/list result.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema any    `json:"inputSchema"`
}

// Source is where distractors come from.
type Source string

// The distractor sources of a distractors: block.
const (
	FromCatalog       Source = "catalog"
	FromNearDuplicate Source = "near_duplicate"
)

// DefaultCount is the number of distractors when count: is omitted.
const DefaultCount = 5

// Config is what a distractors: block says about generation.
type Config struct {
	From Source
	// Of names the real tools near-duplicates are derived from.
	Of []string
	// Count is how many distractors to generate; 0 is the no-noise baseline.
	Count int
	// Correct lists the correct tool ids; no generated distractor is given
	// one of their names.
	Correct []string
}

//go:embed catalog.json
var catalogJSON []byte

type catalogEntry struct {
	Server      string `json:"server"`
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema any    `json:"inputSchema"`
}

// catalog decodes the bundled catalog the first time it is needed, not
// when mcptest starts: most runs use no distractors.
var catalog = sync.OnceValue(func() []catalogEntry {
	var out []catalogEntry
	if err := json.Unmarshal(catalogJSON, &out); err != nil {
		panic("distractor catalog: " + err.Error())
	}
	return out
})

// Catalog returns the bundled catalog, in its fixed order.
func Catalog() []Tool {
	entries := catalog()
	out := make([]Tool, len(entries))
	for i, e := range entries {
		out[i] = Tool{Name: e.Name, Description: e.Description, InputSchema: e.InputSchema}
	}
	return out
}

// Generate returns the distractors of cfg, at most Count of them: fewer when
// the source cannot make that many distinct names.
//
// From the catalog, the tools are taken in catalog order, skipping any whose
// name is the tool name of a correct id. Near-duplicates of each name in Of
// are made in rounds, one variant of every name per round: `name_v2`,
// `name_internal`, the name re-cased (snake_case to camelCase, otherwise the
// first letter's case flipped), then the last word's plural flipped
// (`search_products` to `search_product`, `get_product` to `get_products`).
// A variant that equals a real or earlier name is skipped.
func Generate(cfg Config) []Tool {
	if cfg.Count <= 0 {
		return []Tool{}
	}
	taken := map[string]bool{}
	for _, c := range cfg.Correct {
		taken[toolName(c)] = true
	}
	out := []Tool{}
	switch cfg.From {
	case FromCatalog:
		for _, t := range Catalog() {
			if len(out) == cfg.Count {
				break
			}
			if !taken[t.Name] {
				taken[t.Name] = true
				out = append(out, t)
			}
		}
	case FromNearDuplicate:
		for _, o := range cfg.Of {
			taken[toolName(o)] = true
		}
		variants := []func(string) (string, string){
			func(n string) (string, string) { return n + "_v2", "(v2) " + describe(n) },
			func(n string) (string, string) { return n + "_internal", describe(n) + " Internal use." },
			func(n string) (string, string) { return recase(n), describe(n) },
			func(n string) (string, string) { return flipPlural(n), describe(flipPlural(n)) },
		}
		for _, v := range variants {
			for _, o := range cfg.Of {
				if len(out) == cfg.Count {
					return out
				}
				name, desc := v(toolName(o))
				if name == "" || taken[name] {
					continue
				}
				taken[name] = true
				out = append(out, Tool{Name: name, Description: desc, InputSchema: lookAlikeSchema()})
			}
		}
	}
	return out
}

// toolName strips a server prefix: "catalog.search_products" -> "search_products".
func toolName(id string) string {
	if _, t, ok := strings.Cut(id, "."); ok {
		return t
	}
	return id
}

// describe turns a tool name into a plain description: "search_products" ->
// "Search products.".
func describe(name string) string {
	words := splitWords(name)
	if len(words) == 0 {
		return ""
	}
	s := strings.Join(words, " ")
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r) + "."
}

// splitWords splits snake_case, kebab-case and camelCase into lower-case words.
func splitWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	for i, r := range name {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
		case unicode.IsUpper(r) && i > 0 && len(cur) > 0 && !unicode.IsUpper(cur[len(cur)-1]):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// recase changes a name's casing: snake_case becomes camelCase; a name
// without separators has its first letter's case flipped.
func recase(name string) string {
	if strings.ContainsAny(name, "_-") {
		words := splitWords(name)
		for i := 1; i < len(words); i++ {
			r := []rune(words[i])
			r[0] = unicode.ToUpper(r[0])
			words[i] = string(r)
		}
		return strings.Join(words, "")
	}
	r := []rune(name)
	if len(r) == 0 {
		return ""
	}
	if unicode.IsUpper(r[0]) {
		r[0] = unicode.ToLower(r[0])
	} else {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}

// flipPlural flips the number of a name's last word: "products" ->
// "product", "categories" -> "category", "product" -> "products", "search"
// -> "searches".
func flipPlural(name string) string {
	i := strings.LastIndexAny(name, "_-") + 1
	head, last := name[:i], name[i:]
	switch {
	case last == "":
		return ""
	case strings.HasSuffix(last, "ies") && len(last) > 3:
		return head + last[:len(last)-3] + "y"
	case strings.HasSuffix(last, "ches") || strings.HasSuffix(last, "shes") || strings.HasSuffix(last, "xes") || strings.HasSuffix(last, "sses"):
		return head + last[:len(last)-2]
	case strings.HasSuffix(last, "ss") || strings.HasSuffix(last, "ch") || strings.HasSuffix(last, "sh") || strings.HasSuffix(last, "x"):
		return head + last + "es"
	case strings.HasSuffix(last, "s"):
		return head + last[:len(last)-1]
	case strings.HasSuffix(last, "y") && len(last) > 1 && !strings.ContainsRune("aeiou", rune(last[len(last)-2])):
		return head + last[:len(last)-1] + "ies"
	}
	return head + last + "s"
}

// lookAlikeSchema is the input schema of a near-duplicate: an object that
// accepts what the real tool does, since the real schema is not known
// offline.
func lookAlikeSchema() any {
	return map[string]any{"type": "object", "additionalProperties": true}
}
