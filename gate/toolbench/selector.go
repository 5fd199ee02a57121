package toolbench

import (
	"math"
	"strings"
	"unicode"
)

// stopwords carry no selection signal.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or of to in on for with by from at as is are be was were it its this that these those
		me my i you your we our us what which who whom how when where why can could would should will do does did please
		into out up about over all any some each per via than then there here them they their not no`) {
		stopwords[w] = true
	}
}

// Terms splits text into lower-case content words: runs of letters and
// digits, with snake_case, kebab-case, dotted and camelCase names split
// into their words; stopwords and one-letter words dropped.
func Terms(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 1 {
			w := string(cur)
			if !stopwords[w] {
				out = append(out, w)
			}
		}
		cur = cur[:0]
	}
	var prev rune
	for _, r := range text {
		switch {
		case unicode.IsUpper(r):
			if unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, unicode.ToLower(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

// Doc is what the selector reads of a tool.
type Doc struct {
	Name        string
	Description string
}

// Selector is the deterministic lexical selection oracle: an inverted
// index from term to the tools that use it. A tool's score for a request
// is the sum, over the request's distinct terms it contains, of the term's
// inverse document frequency log(1 + N/df), counted 1.5 times when the
// term is in the tool's name. The highest score wins; ties go to the tool
// listed first; a request sharing no term with any tool selects nothing.
type Selector struct {
	names    []string
	postings map[string][]posting
	idf      map[string]float64
	scores   []float64
	touched  []int32
}

type posting struct {
	tool   int32
	weight float32 // 1, or 1.5 for a name term
}

// NewSelector indexes a catalog.
func NewSelector(docs []Doc) *Selector {
	s := &Selector{names: make([]string, len(docs)), postings: map[string][]posting{}, scores: make([]float64, len(docs))}
	for i, d := range docs {
		s.names[i] = d.Name
		w := map[string]float32{}
		for _, t := range Terms(d.Description) {
			w[t] = 1
		}
		for _, t := range Terms(d.Name) {
			w[t] = 1.5
		}
		for t, wt := range w {
			s.postings[t] = append(s.postings[t], posting{int32(i), wt})
		}
	}
	s.idf = make(map[string]float64, len(s.postings))
	n := float64(len(docs))
	for t, ps := range s.postings {
		s.idf[t] = math.Log(1 + n/float64(len(ps)))
	}
	return s
}

// Select returns the index of the tool picked for the request, -1 when
// none shares a term with it. It is not safe for concurrent use.
func (s *Selector) Select(request string) int {
	seen := map[string]bool{}
	for _, t := range Terms(request) {
		if seen[t] {
			continue
		}
		seen[t] = true
		idf := s.idf[t]
		for _, p := range s.postings[t] {
			if s.scores[p.tool] == 0 {
				s.touched = append(s.touched, p.tool)
			}
			s.scores[p.tool] += idf * float64(p.weight)
		}
	}
	best, bestScore := -1, 0.0
	for _, i := range s.touched {
		sc := s.scores[i]
		if sc > bestScore+1e-12 || (math.Abs(sc-bestScore) <= 1e-12 && best >= 0 && int(i) < best) {
			best, bestScore = int(i), sc
		}
		s.scores[i] = 0
	}
	s.touched = s.touched[:0]
	return best
}

// Name returns the name of tool i.
func (s *Selector) Name(i int) string { return s.names[i] }
