package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/dlclark/regexp2"
	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// splitPattern is cl100k_base's pre-tokenizer: the text is cut into
// pieces (words with their leading space, runs of up to three digits,
// punctuation, whitespace) and each piece is byte-pair encoded on its own.
const splitPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// bpe is the cl100k_base encoder as Count needs it: the rank of every
// mergeable byte sequence and the splitter. It is built once, on the
// first count: a command that counts no tokens never pays for it, and one
// that does pays a map build, not the decoder tables and sorted
// vocabulary a full tokenizer also builds.
type bpe struct {
	ranks map[string]int
	split *regexp2.Regexp
}

var (
	loadOnce sync.Once
	loaded   *bpe
	loadErr  error
)

func encoder() *bpe {
	loadOnce.Do(func() { loaded, loadErr = loadBPE() })
	if loadErr != nil {
		// The BPE data is embedded: failing to read it is a build defect.
		panic(fmt.Sprintf("tokens: load embedded %s: %v", Encoding, loadErr))
	}
	return loaded
}

// loadBPE builds the encoder from the embedded cl100k_base.tiktoken.
func loadBPE() (*bpe, error) {
	data, err := assets.Assets.ReadFile(Encoding + ".tiktoken")
	if err != nil {
		return nil, err
	}
	return parseBPE(data)
}

// parseBPE builds the encoder from a .tiktoken file: one "base64 rank"
// line per mergeable token; a line of another shape is an error. The
// decoded tokens share one string, so the map's keys cost no allocation
// each.
func parseBPE(data []byte) (*bpe, error) {
	n := bytes.Count(data, []byte("\n")) + 1
	buf := make([]byte, 0, base64.StdEncoding.DecodedLen(len(data)))
	ends := make([]int, 0, n)
	ranks := make([]int, 0, n)
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			continue
		}
		tok, rank, ok := bytes.Cut(line, []byte(" "))
		r, err := strconv.Atoi(string(rank))
		if !ok || err != nil {
			return nil, fmt.Errorf("line %q: expected a base64 token, a space and a rank", line)
		}
		start := len(buf)
		buf = buf[:start+base64.StdEncoding.DecodedLen(len(tok))]
		m, err := base64.StdEncoding.Decode(buf[start:], tok)
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", line, err)
		}
		buf = buf[:start+m]
		ends, ranks = append(ends, len(buf)), append(ranks, r)
	}
	all := string(buf)
	b := &bpe{ranks: make(map[string]int, len(ranks))}
	start := 0
	for i, end := range ends {
		b.ranks[all[start:end]] = ranks[i]
		start = end
	}
	var err error
	if b.split, err = regexp2.Compile(splitPattern, regexp2.None); err != nil {
		return nil, err
	}
	return b, nil
}

// count is the number of tokens of text: the pieces the splitter cuts,
// each one token when it is in the vocabulary, else as many as its
// byte-pair merge leaves.
func (b *bpe) count(text string) int {
	n := 0
	m, _ := b.split.FindStringMatch(text)
	for m != nil {
		n += b.pieceTokens(m.String())
		m, _ = b.split.FindNextMatch(m)
	}
	return n
}

// pieceTokens merges a piece's bytes pairwise, always the adjacent pair
// of lowest rank first (the leftmost on a tie), until no adjacent pair is
// in the vocabulary, and returns how many parts are left.
func (b *bpe) pieceTokens(piece string) int {
	if piece == "" {
		return 0
	}
	if _, ok := b.ranks[piece]; ok || len(piece) == 1 {
		return 1
	}
	// start[i] is where part i begins; start[len-1] is the end of the
	// piece. rank[i] is the rank of part i joined with part i+1.
	start := make([]int, len(piece)+1)
	for i := range start {
		start[i] = i
	}
	rank := make([]int, len(piece))
	pair := func(i int) int {
		if i+2 >= len(start) {
			return math.MaxInt
		}
		if r, ok := b.ranks[piece[start[i]:start[i+2]]]; ok {
			return r
		}
		return math.MaxInt
	}
	for i := range rank {
		rank[i] = pair(i)
	}
	for len(rank) > 1 {
		best := 0
		for i, r := range rank {
			if r < rank[best] {
				best = i
			}
		}
		if rank[best] == math.MaxInt {
			break
		}
		start = append(start[:best+1], start[best+2:]...)
		rank = append(rank[:best+1], rank[best+2:]...)
		rank[best] = pair(best)
		if best > 0 {
			rank[best-1] = pair(best - 1)
		}
	}
	return len(start) - 1
}
