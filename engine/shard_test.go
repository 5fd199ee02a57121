package engine

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  string
	}{
		{"1/1", Shard{1, 1}, ""},
		{"3/4", Shard{3, 4}, ""},
		{" 2/2 ", Shard{2, 2}, ""},
		{"10000/10000", Shard{10000, 10000}, ""},
		{"0/4", Shard{}, "1-based"},
		{"5/4", Shard{}, "at most the number of shards"},
		{"1/0", Shard{}, "between 1 and 10000"},
		{"0/0", Shard{}, "between 1 and 10000"}, // not the zero Shard, which runs every case
		{"00/0", Shard{}, "between 1 and 10000"},
		{"99999999999999999999/4", Shard{}, "whole numbers"},
		{"1/10001", Shard{}, "between 1 and 10000"},
		{"-1/4", Shard{}, "1-based"},
		{"1/-4", Shard{}, "between 1 and"},
		{"1", Shard{}, "expected i/n"},
		{"", Shard{}, "expected i/n"},
		{"a/4", Shard{}, "whole numbers"},
		{"1/4/2", Shard{}, "whole numbers"},
		{"1.5/4", Shard{}, "whole numbers"},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseShard(%q) = %v, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want || got.String() != strings.TrimSpace(tt.in) {
			t.Errorf("ParseShard(%q) = %v, %v", tt.in, got, err)
		}
	}
	if (Shard{}).String() != "" {
		t.Error("the zero shard has a name")
	}
}

// TestShardPartition: for every n, each case is in exactly one of the n
// shards, and which one depends on its name alone.
func TestShardPartition(t *testing.T) {
	var names []string
	for i := range 200 {
		names = append(names, fmt.Sprintf("case %d", i))
	}
	for n := 1; n <= 16; n++ {
		sizes := make([]int, n)
		for _, name := range names {
			hits := 0
			for i := 1; i <= n; i++ {
				if (Shard{i, n}).Holds(name) {
					hits++
					sizes[i-1]++
				}
			}
			if hits != 1 {
				t.Fatalf("n=%d: %q is in %d shards", n, name, hits)
			}
		}
		if n <= 8 {
			for i, s := range sizes {
				if s == 0 {
					t.Errorf("n=%d: shard %d is empty for 200 cases", n, i+1)
				}
			}
		}
	}
	// Stable under reordering and adding unrelated cases.
	var cases, reordered []*Case
	for _, name := range names[:50] {
		cases = append(cases, &Case{Name: name})
	}
	for i := len(cases) - 1; i >= 0; i-- {
		reordered = append(reordered, cases[i])
		reordered = append(reordered, &Case{Name: fmt.Sprintf("unrelated %d", i)})
	}
	sh := Shard{2, 5}
	a, _ := selectShard(cases, sh)
	b, _ := selectShard(reordered, sh)
	in := map[string]bool{}
	for _, c := range b {
		in[c.Name] = true
	}
	for _, c := range a {
		if !in[c.Name] {
			t.Errorf("%q left shard %s when other cases moved", c.Name, sh)
		}
	}
	if _, err := selectShard(cases, Shard{3, 2}); err == nil || !strings.Contains(err.Error(), "--shard") {
		t.Errorf("selectShard with a bad shard: %v", err)
	}
}

// FuzzParseShard: --shard is typed by users; whatever it is, ParseShard
// returns a shard 1 <= i <= n <= MaxShards that renders as it reads, or an
// error, never the zero Shard (which runs every case).
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "3/4", "0/0", "00/0", "1/0", "0/4", "-0/-0", "+1/+1", "99999999999999999999/4", " 2/2 ", "1/4/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			if sh != (Shard{}) {
				t.Fatalf("ParseShard(%q) = %v and an error", s, sh)
			}
			return
		}
		if sh.Index < 1 || sh.Index > sh.Count || sh.Count > MaxShards {
			t.Fatalf("ParseShard(%q) = %v, out of range", s, sh)
		}
		if again, err := ParseShard(sh.String()); err != nil || again != sh {
			t.Fatalf("ParseShard(%q) = %v does not read back: %v, %v", s, sh, again, err)
		}
	})
}
