package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// bpe is the cl100k_base encoder as Count needs it: the rank of every
// mergeable byte sequence (the pieces are cut by nextPiece, split.go).
// It is built once, on the first count: a command that counts no tokens
// never pays for it, and one that does pays a map build, not the decoder
// tables and sorted vocabulary a full tokenizer also builds.
type bpe struct {
	ranks map[string]int
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
	return b, nil
}

// count is the number of tokens of text: the pieces nextPiece cuts,
// each one token when it is in the vocabulary, else as many as its
// byte-pair merge leaves. A byte that is not UTF-8 is counted as U+FFFD,
// as the expression the pieces come from reads it.
func (b *bpe) count(text string) int {
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	n := 0
	for i := 0; i < len(text); {
		end := nextPiece(text, i)
		n += b.pieceTokens(text[i:end])
		i = end
	}
	return n
}

// pieceTokens merges a piece's bytes pairwise, always the adjacent pair
// of lowest rank first (the leftmost on a tie), until no adjacent pair is
// in the vocabulary, and returns how many parts are left. A piece of up
// to pieceBuf bytes is merged in arrays on the stack: a count allocates
// nothing but for longer pieces.
func (b *bpe) pieceTokens(piece string) int {
	if _, ok := b.ranks[piece]; ok || len(piece) == 1 {
		return 1
	}
	// start[i] is where part i begins; start[len-1] is the end of the
	// piece. rank[i] is the rank of part i joined with part i+1.
	var startBuf [pieceBuf + 1]int
	var rankBuf [pieceBuf]int
	start, rank := startBuf[:0], rankBuf[:0]
	for i := range len(piece) + 1 {
		start = append(start, i)
	}
	for i := range len(piece) {
		rank = append(rank, b.pair(piece, start, i))
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
		rank[best] = b.pair(piece, start, best)
		if best > 0 {
			rank[best-1] = b.pair(piece, start, best-1)
		}
	}
	return len(start) - 1
}

// pieceBuf is the longest piece pieceTokens merges without allocating.
const pieceBuf = 64

// pair is the rank of part i of piece joined with part i+1 (parts begin
// at start), math.MaxInt when there is no part i+1 or the join is not in
// the vocabulary.
func (b *bpe) pair(piece string, start []int, i int) int {
	if i+2 >= len(start) {
		return math.MaxInt
	}
	if r, ok := b.ranks[piece[start[i]:start[i+2]]]; ok {
		return r
	}
	return math.MaxInt
}
