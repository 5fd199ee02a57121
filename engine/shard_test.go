package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/report"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want report.Shard
		err  string
	}{
		{"1/1", report.Shard{Index: 1, Count: 1}, ""},
		{"3/4", report.Shard{Index: 3, Count: 4}, ""},
		{" 2/2 ", report.Shard{Index: 2, Count: 2}, ""},
		{"10000/10000", report.Shard{Index: 10000, Count: 10000}, ""},
		{"0/4", report.Shard{}, "1-based"},
		{"5/4", report.Shard{}, "at most the number of shards"},
		{"1/0", report.Shard{}, "between 1 and 10000"},
		{"0/0", report.Shard{}, "between 1 and 10000"}, // not the zero Shard, which runs every case
		{"00/0", report.Shard{}, "between 1 and 10000"},
		{"99999999999999999999/4", report.Shard{}, "whole numbers"},
		{"1/10001", report.Shard{}, "between 1 and 10000"},
		{"-1/4", report.Shard{}, "1-based"},
		{"1/-4", report.Shard{}, "between 1 and"},
		{"1", report.Shard{}, "expected i/n"},
		{"", report.Shard{}, "expected i/n"},
		{"a/4", report.Shard{}, "whole numbers"},
		{"1/4/2", report.Shard{}, "whole numbers"},
		{"1.5/4", report.Shard{}, "whole numbers"},
	}
	for _, tt := range tests {
		got, err := report.ParseShard(tt.in)
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
	if (report.Shard{}).String() != "" {
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
				if (report.Shard{Index: i, Count: n}).Holds(name) {
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
	sh := report.Shard{Index: 2, Count: 5}
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
	if _, err := selectShard(cases, report.Shard{Index: 3, Count: 2}); err == nil || !strings.Contains(err.Error(), "--shard") {
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
		sh, err := report.ParseShard(s)
		if err != nil {
			if sh != (report.Shard{}) {
				t.Fatalf("ParseShard(%q) = %v and an error", s, sh)
			}
			return
		}
		if sh.Index < 1 || sh.Index > sh.Count || sh.Count > report.MaxShards {
			t.Fatalf("ParseShard(%q) = %v, out of range", s, sh)
		}
		if again, err := report.ParseShard(sh.String()); err != nil || again != sh {
			t.Fatalf("ParseShard(%q) = %v does not read back: %v, %v", s, sh, again, err)
		}
	})
}
