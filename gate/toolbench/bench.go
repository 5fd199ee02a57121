package toolbench

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mcptest/mcptest/gate/quality"
)

// Intent is a request and the tool names that count as a correct pick.
type Intent struct {
	Query string   `json:"query"`
	Gold  []string `json:"gold"`
}

// The mutation kinds.
const (
	Blank       = "blank"
	Genericize  = "genericize"
	Truncate    = "truncate"
	DropKeyword = "drop_keyword"
)

// Kinds lists the mutation kinds.
var Kinds = []string{Blank, Genericize, Truncate, DropKeyword}

// GenericDescription is what genericize replaces a description with: a
// phrase with no content word a request could match.
const GenericDescription = "A helpful utility."

// Mutation edits one tool's description.
type Mutation struct {
	Tool string `json:"tool"`
	Kind string `json:"kind"`
	// Chars is truncate's length, in characters.
	Chars *int `json:"chars,omitempty"`
	// Word is drop_keyword's word.
	Word string `json:"word,omitempty"`
}

// Spec is a benchmark: a catalog (decoded tools/list entries), intents and
// mutations.
type Spec struct {
	Tools     []map[string]any
	Intents   []Intent
	Mutations []Mutation
}

// SpecError is a problem of a spec, located by its section (catalog,
// intents, mutations), the entry's 0-based index (-1 for the section) and
// the entry's key ("" for the entry).
type SpecError struct {
	Section string
	Index   int
	Key     string
	Msg     string
}

func (e *SpecError) Error() string {
	at := e.Section
	if e.Index >= 0 {
		at += fmt.Sprintf("[%d]", e.Index)
	}
	if e.Key != "" {
		at += "." + e.Key
	}
	return at + ": " + e.Msg
}

// Validate names the first problem of a spec, as a *SpecError.
func (s Spec) Validate() error {
	names := map[string]bool{}
	for i, t := range s.Tools {
		n, _ := t["name"].(string)
		if n == "" {
			return &SpecError{"catalog.tools", i, "name", "the tool has no name"}
		}
		names[n] = true
	}
	if len(s.Intents) == 0 {
		return &SpecError{"intents", -1, "", "at least one intent is needed: a query and the gold tool names that count as a correct pick"}
	}
	for i, in := range s.Intents {
		if strings.TrimSpace(in.Query) == "" {
			return &SpecError{"intents", i, "query", "the intent needs a query"}
		}
		if len(in.Gold) == 0 {
			return &SpecError{"intents", i, "gold", "the intent needs a non-empty gold list"}
		}
		for _, g := range in.Gold {
			if !names[g] {
				return &SpecError{"intents", i, "gold", fmt.Sprintf("%q is not a tool of the catalog", g)}
			}
		}
	}
	for i, m := range s.Mutations {
		if !names[m.Tool] {
			return &SpecError{"mutations", i, "tool", fmt.Sprintf("%q is not a tool of the catalog", m.Tool)}
		}
		switch m.Kind {
		case Blank, Genericize:
		case Truncate:
			if m.Chars == nil || *m.Chars < 0 {
				return &SpecError{"mutations", i, "chars", "truncate needs chars, the number of characters to keep (>= 0)"}
			}
		case DropKeyword:
			if strings.TrimSpace(m.Word) == "" || !utf8.ValidString(m.Word) {
				return &SpecError{"mutations", i, "word", "drop_keyword needs word, the content word to remove"}
			}
		default:
			return &SpecError{"mutations", i, "kind", fmt.Sprintf("kind %q: expected one of %s", m.Kind, strings.Join(Kinds, ", "))}
		}
	}
	return nil
}

// Apply returns the description a mutation leaves.
func Apply(description string, m Mutation) string {
	switch m.Kind {
	case Blank:
		return ""
	case Genericize:
		return GenericDescription
	case Truncate:
		r := []rune(description)
		if m.Chars != nil && *m.Chars >= 0 && *m.Chars < len(r) {
			return string(r[:*m.Chars])
		}
		return description
	case DropKeyword:
		re, err := regexp.Compile(`(?i)\b` + regexp.QuoteMeta(m.Word) + `\b`)
		if err != nil { // a word that is not UTF-8; Validate refuses it
			return description
		}
		out := re.ReplaceAllString(description, "")
		return strings.Join(strings.Fields(out), " ")
	}
	return description
}

// Figures are one catalog's measurements.
type Figures struct {
	Correct  int     `json:"correct"`
	Intents  int     `json:"intents"`
	Accuracy float64 `json:"accuracy"`
	// CILow and CIHigh bound the accuracy at 95% (Wilson).
	CILow     float64        `json:"ci_low"`
	CIHigh    float64        `json:"ci_high"`
	TDQSMean  float64        `json:"tdqs_mean"`
	TDQSMin   float64        `json:"tdqs_min"`
	Smells    map[string]int `json:"smells"`
	Tokens    int            `json:"tokens"`
	Picks     []string       `json:"picks"`
	SmellSum  int            `json:"smell_total"`
	Criticals int            `json:"critical_count"`
}

// MutationResult is one mutation's effect against the baseline.
type MutationResult struct {
	Mutation
	Figures
	// Drop is the baseline accuracy minus this one (negative when the
	// mutation helped).
	Drop float64 `json:"drop"`
	// NewSmells counts, per category, the smells the edit introduced.
	NewSmells     map[string]int `json:"new_smells"`
	TokensRemoved int            `json:"tokens_removed"`
}

// Report is the benchmark's result.
type Report struct {
	Baseline  Figures          `json:"baseline"`
	Mutations []MutationResult `json:"mutations"`
	MaxDrop   float64          `json:"max_drop"`
}

// Run measures the catalog, then each mutation alone.
func Run(s Spec) (Report, error) {
	if err := s.Validate(); err != nil {
		return Report{}, err
	}
	rep := Report{Baseline: measure(s.Tools, s.Intents), Mutations: []MutationResult{}}
	for _, m := range s.Mutations {
		tools := make([]map[string]any, len(s.Tools))
		for i, t := range s.Tools {
			tools[i] = t
			if t["name"] == m.Tool {
				cp := make(map[string]any, len(t))
				for k, v := range t {
					cp[k] = v
				}
				d, _ := t["description"].(string)
				cp["description"] = Apply(d, m)
				tools[i] = cp
			}
		}
		f := measure(tools, s.Intents)
		r := MutationResult{Mutation: m, Figures: f, Drop: round4(rep.Baseline.Accuracy - f.Accuracy),
			NewSmells: map[string]int{}, TokensRemoved: rep.Baseline.Tokens - f.Tokens}
		for _, c := range quality.Smells {
			if d := f.Smells[c] - rep.Baseline.Smells[c]; d > 0 {
				r.NewSmells[c] = d
			}
		}
		rep.MaxDrop = math.Max(rep.MaxDrop, r.Drop)
		rep.Mutations = append(rep.Mutations, r)
	}
	return rep, nil
}

func measure(tools []map[string]any, intents []Intent) Figures {
	docs := make([]Doc, len(tools))
	qt := make([]quality.Tool, len(tools))
	f := Figures{Intents: len(intents), Picks: make([]string, len(intents))}
	for i, t := range tools {
		qt[i] = quality.FromRaw(t)
		docs[i] = Doc{Name: qt[i].Name, Description: qt[i].Description}
		f.Tokens += WhitespaceTokens(qt[i])
	}
	sel := NewSelector(docs)
	for i, in := range intents {
		pick := sel.Select(in.Query)
		if pick < 0 {
			continue
		}
		f.Picks[i] = sel.Name(pick)
		for _, g := range in.Gold {
			if g == f.Picks[i] {
				f.Correct++
				break
			}
		}
	}
	f.Accuracy = round4(float64(f.Correct) / float64(len(intents)))
	lo, hi := Wilson(f.Correct, len(intents))
	f.CILow, f.CIHigh = round4(lo), round4(hi)
	q := quality.Assess(qt)
	f.TDQSMean, f.TDQSMin, f.Smells, f.SmellSum, f.Criticals = q.MeanScore, q.MinScore, q.Smells, q.SmellTotal, q.CriticalCount
	return f
}

// WhitespaceTokens is the catalog-cost estimate of one tool: the
// whitespace-separated words of its name, description and inputSchema
// JSON.
func WhitespaceTokens(t quality.Tool) int {
	n := len(strings.Fields(t.Name)) + len(strings.Fields(t.Description))
	if t.InputSchema != nil {
		b, _ := json.MarshalIndent(t.InputSchema, "", " ")
		n += len(strings.Fields(string(b)))
	}
	return n
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
