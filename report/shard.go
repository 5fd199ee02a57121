package report

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxShards bounds the number of shards a run may be split into.
const MaxShards = 10000

// Shard selects a deterministic slice of a suite's cases: shard Index of
// Count (Index is 1-based). A case belongs to the shard numbered
// FNV-1a-32(name) mod Count, plus one, so where a case lands depends on its
// name alone: adding, removing or reordering other cases never moves it,
// and the Count shards together hold every case exactly once. The zero
// Shard selects every case.
type Shard struct {
	Index int
	Count int
}

// ParseShard reads "i/n" with 1 <= i <= n <= MaxShards; anything else,
// 0/0 included, is an error.
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: expected i/n, such as 1/4 (the first of four shards)", s)
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: expected i/n with whole numbers, such as 1/4", s)
	}
	sh := Shard{Index: i, Count: n}
	if sh == (Shard{}) {
		// 0/0 is written, so it is refused like 1/0: it is not the zero
		// Shard, which selects every case.
		return Shard{}, fmt.Errorf("shard 0/0: the number of shards must be between 1 and %d", MaxShards)
	}
	if err := sh.Check(); err != nil {
		return Shard{}, err
	}
	return sh, nil
}

// String renders the shard as "i/n", or "" for the zero Shard.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

func (s Shard) Check() error {
	switch {
	case s == Shard{}:
		return nil
	case s.Count < 1 || s.Count > MaxShards:
		return fmt.Errorf("shard %d/%d: the number of shards must be between 1 and %d", s.Index, s.Count, MaxShards)
	case s.Index < 1 || s.Index > s.Count:
		return fmt.Errorf("shard %d/%d: the shard number is 1-based and at most the number of shards (1/%d .. %d/%d)", s.Index, s.Count, s.Count, s.Count, s.Count)
	}
	return nil
}

// Holds reports whether the case called name belongs to the shard.
func (s Shard) Holds(name string) bool {
	return s.HoldsName([]byte(name))
}

// HoldsName is Holds of a name given as its bytes (a case's name read
// from an envelope and not decoded): FNV-1a, 32 bits, of the name, modulo
// the number of shards.
func (s Shard) HoldsName(name []byte) bool {
	if s.Count == 0 {
		return true
	}
	h := uint32(2166136261)
	for _, c := range name {
		h = (h ^ uint32(c)) * 16777619
	}
	return int(h%uint32(s.Count)) == s.Index-1
}

// Tally recomputes the envelope's totals and verdict from its cases and
// floors: the run fails when any case fails or a suite floor (decided by
// Summarize) failed. Run and a merge of shard envelopes both count with it,
// so the two cannot disagree.
func (e *Envelope) Tally() {
	var k Counter
	for _, c := range e.Cases {
		k.Add(c)
	}
	e.tally(k.totals, k.failed)
}

// tally sets the totals, and the verdict from them and the floors.
func (e *Envelope) tally(t Totals, failed bool) {
	e.Totals = t
	e.Verdict = Pass
	if failed {
		e.Verdict = Fail
	}
	for _, f := range e.Floors {
		if !f.Passed && !f.Deferred {
			e.Verdict = Fail
		}
	}
}
