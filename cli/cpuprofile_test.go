package cli

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestGodebugSets: over drawn GODEBUG values (settings of drawn names,
// some near memprofilerate: a prefix, a suffix, a space before or after,
// a case changed; empty settings and ones without "="), godebugSets
// reports memprofilerate set exactly when one setting's name, the text
// before its first "=", is memprofilerate, as the runtime reads it.
func TestGodebugSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	names := []string{"memprofilerate", "memprofilerates", "xmemprofilerate", " memprofilerate",
		"memprofilerate ", "MemProfileRate", "panicnil", "gctrace", "", "memprofile"}
	for range 2000 {
		var parts []string
		want := false
		for range rng.IntN(5) {
			name := names[rng.IntN(len(names))]
			switch rng.IntN(4) {
			case 0:
				parts = append(parts, name) // no "=": not a setting
			case 1:
				parts = append(parts, name+"=1=2")
				want = want || name == "memprofilerate"
			default:
				parts = append(parts, name+"="+[]string{"1", "0", "", "524288"}[rng.IntN(4)])
				want = want || name == "memprofilerate"
			}
		}
		godebug := strings.Join(parts, ",")
		if got := godebugSets(godebug, "memprofilerate"); got != want {
			t.Fatalf("godebugSets(%q) = %v, want %v", godebug, got, want)
		}
	}
}

// TestMemProfileOffUnlessAsked: with no path MemProfile turns the
// runtime's allocation sampling off, unless GODEBUG sets memprofilerate,
// which it leaves as it was.
func TestMemProfileOffUnlessAsked(t *testing.T) {
	defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
	for _, c := range []struct {
		godebug string
		want    int
	}{
		{"", 0},
		{"panicnil=1", 0},
		{"memprofilerate=1", 12345},
		{"panicnil=1,memprofilerate=0", 12345},
		{" memprofilerate=1", 0},
	} {
		t.Setenv("GODEBUG", c.godebug)
		runtime.MemProfileRate = 12345
		MemProfile("", io.Discard)()
		if runtime.MemProfileRate != c.want {
			t.Errorf("GODEBUG=%q: rate %d, want %d", c.godebug, runtime.MemProfileRate, c.want)
		}
	}
}

// TestMemProfileKeepsTheOperatorsRate: with a path MemProfile samples at
// memProfileRate, unless GODEBUG sets memprofilerate (the exact counts
// the start-cost process tests read), which it leaves as it was; its stop
// writes a gzipped profile there and says nothing.
func TestMemProfileKeepsTheOperatorsRate(t *testing.T) {
	defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
	for _, c := range []struct {
		godebug string
		want    int
	}{
		{"", memProfileRate},
		{"panicnil=1", memProfileRate},
		{"memprofilerate=1", 12345},
		{"panicnil=1,memprofilerate=1", 12345},
	} {
		t.Setenv("GODEBUG", c.godebug)
		runtime.MemProfileRate = 12345
		path := filepath.Join(t.TempDir(), "mem.out")
		var said strings.Builder
		stop := MemProfile(path, &said)
		got := runtime.MemProfileRate
		stop()
		if got != c.want {
			t.Errorf("GODEBUG=%q: rate %d, want %d", c.godebug, got, c.want)
		}
		if b, err := os.ReadFile(path); err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) || said.Len() > 0 {
			t.Errorf("GODEBUG=%q: the profile (%v) begins %q; said %q", c.godebug, err, b[:min(len(b), 4)], said.String())
		}
	}
}
