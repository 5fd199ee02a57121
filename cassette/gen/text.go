package gen

import (
	"math/rand/v2"
	"strings"
)

// markov is a word bigram chain over the real prompts and tool descriptions
// of the corpus: it writes prose with the vocabulary and rhythm of agent
// traces, which compresses and decodes like the real thing (lorem ipsum
// would not: its words are too short and too few).
type markov struct {
	next   map[string][]string
	starts []string
}

func newMarkov(texts []string) *markov {
	m := &markov{next: map[string][]string{}}
	for _, t := range texts {
		words := strings.Fields(t)
		for i, w := range words {
			if i == 0 || strings.HasSuffix(words[i-1], ".") {
				if isCapital(w) {
					m.starts = append(m.starts, w)
				}
			}
			if i+1 < len(words) {
				m.next[w] = append(m.next[w], words[i+1])
			}
		}
	}
	return m
}

func isCapital(w string) bool {
	return w != "" && w[0] >= 'A' && w[0] <= 'Z'
}

// sentence writes one sentence of about n words (at least 4) to b.
func (m *markov) sentence(b *strings.Builder, rng *rand.Rand, n int) {
	w := m.starts[rng.IntN(len(m.starts))]
	for i := 0; ; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		if strings.HasSuffix(w, ".") && i >= 3 {
			return
		}
		nexts := m.next[w]
		if len(nexts) == 0 || i >= n {
			if !strings.HasSuffix(w, ".") {
				b.WriteByte('.')
			}
			return
		}
		w = nexts[rng.IntN(len(nexts))]
	}
}

// paragraph writes prose of about size bytes.
func (m *markov) paragraph(rng *rand.Rand, size int) string {
	var b strings.Builder
	for b.Len() < size {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		m.sentence(&b, rng, 8+rng.IntN(20))
	}
	return b.String()
}

// phrase returns n words from the chain, without the final full stop: a
// title or a search query.
func (m *markov) phrase(rng *rand.Rand, n int) string {
	var b strings.Builder
	m.sentence(&b, rng, n)
	words := strings.Fields(b.String())
	if len(words) > n {
		words = words[:n]
	}
	return strings.TrimRight(strings.Join(words, " "), ".,;:")
}
