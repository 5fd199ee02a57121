package toolbench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/gate/quality"
)

// Reference values from statsmodels proportion_confint(method="wilson").
func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{8, 10, 0.4901625, 0.9433178},
		{0, 10, 0, 0.2775328},
		{10, 10, 0.7224672, 1},
		{1, 1, 0.2065493, 1},
		{50, 100, 0.4038315, 0.5961685},
		{0, 0, 0, 1},
	} {
		lo, hi := Wilson(tc.k, tc.n)
		if !(math.Abs(lo-tc.lo) <= 1e-6 && math.Abs(hi-tc.hi) <= 1e-6) { // NaN fails too
			t.Errorf("Wilson(%d, %d) = [%.7f, %.7f], want [%.7f, %.7f]", tc.k, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestApply(t *testing.T) {
	const d = "Return the current weather forecast for a city, as JSON. Weather data is hourly."
	for _, tc := range []struct {
		m    Mutation
		want string
	}{
		{Mutation{Kind: Blank}, ""},
		{Mutation{Kind: Genericize}, GenericDescription},
		{Mutation{Kind: Truncate, Chars: ptr(18)}, "Return the current"},
		{Mutation{Kind: Truncate, Chars: ptr(500)}, d},
		{Mutation{Kind: Truncate, Chars: ptr(0)}, ""},
		{Mutation{Kind: DropKeyword, Word: "weather"}, "Return the current forecast for a city, as JSON. data is hourly."},
		{Mutation{Kind: DropKeyword, Word: "for"}, "Return the current weather forecast a city, as JSON. Weather data is hourly."},
	} {
		if got := Apply(d, tc.m); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.m.Kind, got, tc.want)
		}
	}
	if got := Apply("héllo wörld", Mutation{Kind: Truncate, Chars: ptr(4)}); got != "héll" {
		t.Errorf("truncate counts characters, not bytes: %q", got)
	}
}

func TestTerms(t *testing.T) {
	if got := Terms("getWeather_forecast for the City-name v2"); !reflect.DeepEqual(got, []string{"get", "weather", "forecast", "city", "name", "v2"}) {
		t.Errorf("Terms = %v", got)
	}
}

func TestSelector(t *testing.T) {
	s := NewSelector([]Doc{
		{"lookup_a", "Return the current weather forecast for a city, as JSON."},
		{"lookup_b", "Search the news archive for articles about a topic."},
		{"lookup_c", "Return the current weather forecast for a city, as JSON."},
	})
	for q, want := range map[string]int{
		"what is the weather forecast in Paris": 0, // tie with lookup_c: the first listed wins
		"find news articles about elections":    1,
		"translate this sentence":               -1,
	} {
		if got := s.Select(q); got != want {
			t.Errorf("Select(%q) = %d, want %d", q, got, want)
		}
	}
	// Name terms weigh more: "archive" in a name beats it in a description.
	s = NewSelector([]Doc{{"store", "Put a file in the archive."}, {"archive_file", "Put a file away."}})
	if got := s.Select("archive this file"); got != 1 {
		t.Errorf("name term did not win: %d", got)
	}
}

// TestRunSeedExample is the seed's spec: blanking the only weather tool's
// description drops selection to zero.
func TestRunSeedExample(t *testing.T) {
	spec := Spec{
		Tools: []map[string]any{
			{"name": "lookup_a", "description": "Return the current weather forecast for a city, as JSON."},
			{"name": "lookup_b", "description": "Search the news archive for articles about a topic and return the headlines."},
		},
		Intents: []Intent{{"what is the weather forecast in Paris", []string{"lookup_a"}}, {"news articles about the election", []string{"lookup_b"}}},
		Mutations: []Mutation{
			{Tool: "lookup_a", Kind: Blank},
			{Tool: "lookup_a", Kind: Genericize},
			{Tool: "lookup_a", Kind: Truncate, Chars: ptr(18)},
			{Tool: "lookup_a", Kind: DropKeyword, Word: "weather"},
			{Tool: "lookup_b", Kind: DropKeyword, Word: "weather"},
		},
	}
	rep, err := Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Baseline.Accuracy != 1 || rep.Baseline.Correct != 2 {
		t.Fatalf("baseline %+v", rep.Baseline)
	}
	wantDrops := []float64{0.5, 0.5, 0.5, 0, 0}
	for i, m := range rep.Mutations {
		if m.Drop != wantDrops[i] {
			t.Errorf("mutation %d (%s): drop %v, want %v (picks %v)", i, m.Kind, m.Drop, wantDrops[i], m.Picks)
		}
	}
	if rep.MaxDrop != 0.5 {
		t.Errorf("max drop %v", rep.MaxDrop)
	}
	if rep.Mutations[0].NewSmells["underspecified"] != 1 || rep.Mutations[0].TokensRemoved <= 0 {
		t.Errorf("blank: new smells %v, tokens removed %d", rep.Mutations[0].NewSmells, rep.Mutations[0].TokensRemoved)
	}
	for _, bad := range []Spec{
		{Tools: spec.Tools},
		{Tools: spec.Tools, Intents: []Intent{{"q", []string{"nope"}}}},
		{Tools: spec.Tools, Intents: spec.Intents, Mutations: []Mutation{{Tool: "lookup_a", Kind: "shuffle"}}},
		{Tools: spec.Tools, Intents: spec.Intents, Mutations: []Mutation{{Tool: "lookup_a", Kind: DropKeyword}}},
		{Tools: spec.Tools, Intents: spec.Intents, Mutations: []Mutation{{Tool: "lookup_a", Kind: Truncate}}},
	} {
		if _, err := Run(bad); err == nil {
			t.Errorf("spec %+v accepted", bad)
		}
	}
}

// GenerateCatalog makes a reproducible catalog of n tools over a vocabulary
// of realistic size, and m intents each aimed at one tool.
func GenerateCatalog(n, m int, seed uint64) ([]Doc, []string) {
	r := rand.New(rand.NewPCG(seed, seed))
	vocab := make([]string, 5000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x", i*7919%100003)
	}
	word := func() string { return vocab[int(math.Abs(r.NormFloat64()*800))%len(vocab)] }
	docs := make([]Doc, n)
	for i := range docs {
		var d []string
		for range 12 + r.IntN(20) {
			d = append(d, word())
		}
		docs[i] = Doc{Name: fmt.Sprintf("%s_%s_%d", word(), word(), i), Description: strings.Join(d, " ")}
	}
	queries := make([]string, m)
	for i := range queries {
		target := docs[r.IntN(n)]
		ws := strings.Fields(target.Description)
		queries[i] = strings.Join([]string{ws[0], ws[len(ws)/2], word(), ws[len(ws)-1]}, " ")
	}
	return docs, queries
}

// TestSelectorScales checks the inverted index at the size of the benchmark
// (10,000 tools, 1,000 intents) against a direct reading of Selector's
// definition, which scores every tool: on every 8th intent (the direct
// scan costs 10,000 tools a request) the index must pick the same tool;
// every intent picks a tool; and picking again gives the same answers (the
// scratch scores are reset). How fast it does so is measured by
// BenchmarkSelect10kTools1kIntents, not asserted here.
func TestSelectorScales(t *testing.T) {
	docs, queries := GenerateCatalog(10000, 1000, 1)
	s := NewSelector(docs)
	ref := newReferenceSelector(docs)
	picked := make([]int, len(queries))
	for i, q := range queries {
		picked[i] = s.Select(q)
		if picked[i] < 0 {
			t.Errorf("Select(%q) picked nothing, though it was made from a tool's words", q)
		}
		if i%8 == 0 {
			if want := ref.selectTool(q); picked[i] != want {
				t.Errorf("Select(%q) = %d, a direct scoring of every tool picks %d", q, picked[i], want)
			}
		}
	}
	for i, q := range queries {
		if again := s.Select(q); again != picked[i] {
			t.Fatalf("Select(%q) = %d the second time, %d the first", q, again, picked[i])
		}
	}
}

// referenceSelector reads Selector's doc comment literally: each tool's
// terms with their weights, and a full scan of the catalog per request.
type referenceSelector struct {
	weights []map[string]float64
	idf     map[string]float64
}

func newReferenceSelector(docs []Doc) *referenceSelector {
	r := &referenceSelector{idf: map[string]float64{}}
	df := map[string]int{}
	for _, d := range docs {
		w := map[string]float64{}
		for _, t := range Terms(d.Description) {
			w[t] = 1
		}
		for _, t := range Terms(d.Name) {
			w[t] = 1.5
		}
		for t := range w {
			df[t]++
		}
		r.weights = append(r.weights, w)
	}
	for t, n := range df {
		r.idf[t] = math.Log(1 + float64(len(docs))/float64(n))
	}
	return r
}

func (r *referenceSelector) selectTool(request string) int {
	var terms []string
	seen := map[string]bool{}
	for _, t := range Terms(request) {
		if !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	best, bestScore := -1, 0.0
	for i, w := range r.weights {
		score := 0.0
		for _, t := range terms {
			score += r.idf[t] * w[t]
		}
		if score > bestScore+1e-12 {
			best, bestScore = i, score
		}
	}
	return best
}

func BenchmarkSelect10kTools1kIntents(b *testing.B) {
	docs, queries := GenerateCatalog(10000, 1000, 1)
	for b.Loop() {
		s := NewSelector(docs)
		for _, q := range queries {
			s.Select(q)
		}
	}
}

func ptr(n int) *int { return &n }

// FuzzRun: any descriptions, query and mutation word run without a panic,
// with accuracies in [0, 1] inside their Wilson interval.
func FuzzRun(f *testing.F) {
	f.Add("Return the weather forecast for a city.", "weather in Paris", "weather", 10)
	f.Add("", "", "\u200b", -1)
	f.Fuzz(func(t *testing.T, desc, query, word string, chars int) {
		spec := Spec{
			Tools:   []map[string]any{{"name": "a", "description": desc}, {"name": "b_tool", "description": query}},
			Intents: []Intent{{Query: query + " x", Gold: []string{"a"}}},
			Mutations: []Mutation{{Tool: "a", Kind: Blank}, {Tool: "a", Kind: Genericize},
				{Tool: "a", Kind: Truncate, Chars: &chars}, {Tool: "b_tool", Kind: DropKeyword, Word: word}},
		}
		rep, err := Run(spec)
		if err != nil {
			return // an invalid spec (a negative chars, a blank word) is an error, not a panic
		}
		for _, fg := range append([]Figures{rep.Baseline}, rep.Mutations[0].Figures) {
			if fg.Accuracy < 0 || fg.Accuracy > 1 || fg.CILow > fg.Accuracy+1e-9 || fg.CIHigh < fg.Accuracy-1e-9 {
				t.Fatalf("figures %+v", fg)
			}
		}
	})
}

// TestTermsOneLetter: a one-letter word is dropped, a two-letter one kept.
func TestTermsOneLetter(t *testing.T) {
	if got := Terms("x marks go spot q"); !reflect.DeepEqual(got, []string{"marks", "go", "spot"}) {
		t.Errorf("Terms = %q, want [marks go spot]", got)
	}
}

// TestSelectorTieGoesFirst: of two tools scoring the same, the one listed
// first wins, also when the request's words reach the other one first.
func TestSelectorTieGoesFirst(t *testing.T) {
	s := NewSelector([]Doc{{"one", "Convert currency amounts."}, {"two", "Forecast rainfall totals."}})
	if got := s.Select("rainfall currency"); got != 0 {
		t.Errorf("Select = %d, want 0 (the tie goes to the tool listed first)", got)
	}
	if got := s.Select("currency rainfall"); got != 0 {
		t.Errorf("Select = %d, want 0 (the tie goes to the tool listed first)", got)
	}
}

// TestTruncateBounds: truncate keeps 0 characters at least, and as many
// as the description has leaves it byte for byte (invalid UTF-8 too).
func TestTruncateBounds(t *testing.T) {
	tools := []map[string]any{{"name": "a", "description": "d"}}
	intents := []Intent{{"q", []string{"a"}}}
	for chars, ok := range map[int]bool{0: true, -1: false} {
		err := Spec{Tools: tools, Intents: intents, Mutations: []Mutation{{Tool: "a", Kind: Truncate, Chars: ptr(chars)}}}.Validate()
		if (err == nil) != ok {
			t.Errorf("truncate to %d: %v, want accepted %v", chars, err, ok)
		}
	}
	if got := Apply("ab\xff", Mutation{Kind: Truncate, Chars: ptr(3)}); got != "ab\xff" {
		t.Errorf("truncate to the whole length: %q", got)
	}
}

// TestSpecErrorPlace: an error names its section, the entry's index (0
// included) and key.
func TestSpecErrorPlace(t *testing.T) {
	for _, tc := range []struct {
		e    SpecError
		want string
	}{
		{SpecError{"intents", 0, "gold", "m"}, "intents[0].gold: m"},
		{SpecError{"intents", -1, "", "m"}, "intents: m"},
		{SpecError{"mutations", 2, "", "m"}, "mutations[2]: m"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TestText: the baseline's line, one line per mutation numbered from 1
// with truncate's length, drop_keyword's word (cleaned) and the new smells
// when there are any, then the largest drop; without Clean a text is
// printed as it is.
func TestText(t *testing.T) {
	rep := Report{
		Baseline: Figures{Correct: 3, Intents: 4, Accuracy: 0.75, CILow: 0.3, CIHigh: 0.95, TDQSMean: 3.5, TDQSMin: 2, SmellSum: 1, Tokens: 40},
		Mutations: []MutationResult{
			{Mutation: Mutation{Tool: "a\x1b", Kind: Truncate, Chars: ptr(5)}, Figures: Figures{Correct: 2, Intents: 4, Accuracy: 0.5}, Drop: 0.25, TokensRemoved: 7,
				NewSmells: map[string]int{"vague": 1, "underspecified": 2}},
			{Mutation: Mutation{Tool: "b", Kind: DropKeyword, Word: "w\x1b"}, Figures: Figures{Correct: 3, Intents: 4, Accuracy: 0.75}, NewSmells: map[string]int{}},
			{Mutation: Mutation{Tool: "b", Kind: Truncate}, Figures: Figures{Correct: 3, Intents: 4, Accuracy: 0.75}},
		},
		MaxDrop: 0.25,
	}
	want := "baseline     accuracy 75% (3/4, 95% CI 30%-95%)  TDQS mean 3.50 min 2.00  smells 1  ~40 tokens\n" +
		"mutation 1   a^ truncate 5  accuracy 50% (2/4)  drop 0.25  7 tokens removed  +underspecified 2 +vague 1\n" +
		"mutation 2   b drop_keyword w^  accuracy 75% (3/4)  drop 0.00  0 tokens removed\n" +
		"mutation 3   b truncate  accuracy 75% (3/4)  drop 0.00  0 tokens removed\n" +
		"max drop 0.25\n"
	var b strings.Builder
	clean := func(s string) string { return strings.ReplaceAll(s, "\x1b", "^") }
	if err := (Text{Clean: clean}).Write(&b, rep); err != nil || b.String() != want {
		t.Errorf("Text:\n%s%v\nwant:\n%s", b.String(), err, want)
	}
	b.Reset()
	if err := (Text{}).Write(&b, rep); err != nil || b.String() != strings.ReplaceAll(want, "^", "\x1b") {
		t.Errorf("Text without Clean:\n%q", b.String())
	}
}

// TestWilsonNoTrials: no trials give the whole [0, 1], for any count.
func TestWilsonNoTrials(t *testing.T) {
	for _, k := range []int{0, 3} {
		if lo, hi := Wilson(k, 0); lo != 0 || hi != 1 {
			t.Errorf("Wilson(%d, 0) = [%v, %v], want [0, 1]", k, lo, hi)
		}
	}
}

// TestTruncateWithoutLength: Apply leaves the description as it is for a
// truncate with no length or a negative one (Validate refuses both).
func TestTruncateWithoutLength(t *testing.T) {
	for _, m := range []Mutation{{Kind: Truncate}, {Kind: Truncate, Chars: ptr(-1)}} {
		if got := Apply("abc", m); got != "abc" {
			t.Errorf("%+v: %q, want abc", m, got)
		}
	}
}

// TestWhitespaceTokens: a tool costs the words of its name, its
// description and, when it has one, its indented inputSchema JSON.
func TestWhitespaceTokens(t *testing.T) {
	if got := WhitespaceTokens(quality.Tool{Name: "get weather", Description: "Get the weather."}); got != 5 {
		t.Errorf("no schema: %d, want 5", got)
	}
	schema := map[string]any{"type": "object"}
	if got := WhitespaceTokens(quality.Tool{Name: "w", Description: "a b", InputSchema: schema}); got != 3+4 {
		t.Errorf("with a schema: %d, want 7 (the JSON {, \"type\":, \"object\", })", got)
	}
}

// TestRunCounts: a mutation's tokens removed is the baseline's count less
// its own, and its new smells list only the categories that grew.
func TestRunCounts(t *testing.T) {
	spec := Spec{
		Tools: []map[string]any{
			{"name": "lookup_a", "description": "Return the current weather forecast for a city, as JSON."},
			{"name": "lookup_b", "description": "Search the news archive for articles about a topic and return the headlines."},
		},
		Intents:   []Intent{{"weather forecast", []string{"lookup_a"}}},
		Mutations: []Mutation{{Tool: "lookup_a", Kind: Blank}, {Tool: "lookup_b", Kind: DropKeyword, Word: "archive"}},
	}
	rep, err := Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Mutations[0].TokensRemoved; got != 10 {
		t.Errorf("blank removed %d tokens, want the description's 10", got)
	}
	if got := rep.Mutations[1].TokensRemoved; got != 1 {
		t.Errorf("drop_keyword removed %d tokens, want 1", got)
	}
	for _, m := range rep.Mutations {
		for c, n := range m.NewSmells {
			if n <= 0 {
				t.Errorf("%s: new smell %s counted %d", m.Kind, c, n)
			}
		}
	}
	if len(rep.Mutations[1].NewSmells) != 0 {
		t.Errorf("dropping a word added smells %v", rep.Mutations[1].NewSmells)
	}
}

// TestSelectorTieTolerance: two scores at most 1e-12 apart are a tie,
// exactly 1e-12 apart included, and the tie goes to the tool listed first
// whichever the request reaches first; a score one float step more than
// 1e-12 above the best wins. The idf of each term is set by hand so the
// scores are those float values exactly.
func TestSelectorTieTolerance(t *testing.T) {
	lo := 1.2e-12
	hi := lo + 1e-12 // a float exactly 1e-12 (as a float) above lo
	if hi-lo != 1e-12 {
		t.Fatalf("the fixture's scores are %v apart, not 1e-12", hi-lo)
	}
	for _, tc := range []struct {
		name          string
		first, second float64 // the idf of "alpha" (tool 0) and "beta" (tool 1)
		request       string
		want          int
	}{
		{"the second listed 1e-12 above, reached second", lo, hi, "alpha beta", 0},
		{"the first listed 1e-12 above, reached second", hi, lo, "beta alpha", 0},
		{"the second listed 1e-12 above, reached first", lo, hi, "beta alpha", 0},
		{"the second listed more than 1e-12 above", lo, math.Nextafter(hi, 1), "alpha beta", 1},
		{"the first listed more than 1e-12 above, reached second", math.Nextafter(hi, 1), lo, "beta alpha", 0},
	} {
		s := NewSelector([]Doc{{"one", "alpha"}, {"two", "beta"}})
		s.idf["alpha"], s.idf["beta"] = tc.first, tc.second
		if got := s.Select(tc.request); got != tc.want {
			t.Errorf("%s: Select(%q) = %d, want %d", tc.name, tc.request, got, tc.want)
		}
	}
}
