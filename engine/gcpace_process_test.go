package engine_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// gcLine is one line of GODEBUG=gctrace=1: the heap at the collection's
// start, at its end and what it found live, and the goal it ran at (MB).
var gcLine = regexp.MustCompile(`(?m)^gc \d+ @\S+ \d+%: .* (\d+)->(\d+)->(\d+) MB, (\d+) MB goal`)

type gcCycle struct{ start, end, live, goal int }

func gcCycles(t *testing.T, stderr string) []gcCycle {
	t.Helper()
	var out []gcCycle
	for _, m := range gcLine.FindAllStringSubmatch(stderr, -1) {
		var c [4]int
		for i := range c {
			c[i], _ = strconv.Atoi(m[i+1])
		}
		out = append(out, gcCycle{c[0], c[1], c[2], c[3]})
	}
	if len(out) == 0 {
		t.Fatalf("no gctrace lines in the run's stderr:\n%s", stderr)
	}
	return out
}

// TestProcessDirectoryFoldPace runs the built binary over a generated
// directory of cassettes (one test over the directory, at GOMAXPROCS 1
// and 2) with the collector traced (GODEBUG=gctrace=1), as users run it
// and with GOGC=100 set (which leaves the collector's pace alone): the
// reports are the same, byte for byte but for the run's clock; as users
// run it the collector runs at most half as often, and no collection lets
// the heap grow past the larger of twice what the one before found live
// and that plus 16 MiB (foldHeapFloor; 2 MB of slack for gctrace's
// rounding), or than the pace the collection before set, which holds
// until the finalizer that sets the next one runs.
func TestProcessDirectoryFoldPace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binary over a generated directory")
	}
	tl := buildTools(t)
	dir := t.TempDir()
	if _, err := gen.Write(dir, 400, 40); err != nil {
		t.Fatal(err)
	}
	for _, procs := range []string{"1", "2"} {
		var reports [2][]byte
		var cycles [2][]gcCycle
		for i, gogc := range []string{"", "GOGC=100"} {
			out := filepath.Join(t.TempDir(), "r.json")
			env := []string{"GODEBUG=gctrace=1", "GOMAXPROCS=" + procs, "MCPTEST_DIR=" + t.TempDir()}
			if gogc != "" {
				env = append(env, gogc)
			}
			l := tl.launchEnv(t, dir, env, tl.mcptest, "run", "--config", gen.SuiteFile, "--format", "json", "--output", out, "--no-cache")
			if l.code > 1 {
				t.Fatalf("GOMAXPROCS=%s %s: exit %d\n%s", procs, gogc, l.code, l.stderr)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			reports[i], cycles[i] = withoutRunClock(t, data), gcCycles(t, l.stderr)
		}
		if string(reports[0]) != string(reports[1]) {
			t.Errorf("GOMAXPROCS=%s: the report differs with GOGC=100 set", procs)
		}
		paced, plain := len(cycles[0]), len(cycles[1])
		t.Logf("GOMAXPROCS=%s: %d collections paced, %d at GOGC=100", procs, paced, plain)
		if 2*paced > plain {
			t.Errorf("GOMAXPROCS=%s: %d collections paced, over half of the %d at GOGC=100", procs, paced, plain)
		}
		for _, cs := range cycles {
			for k := 1; k < len(cs); k++ {
				live := cs[k-1].live
				most := max(2*live, live+16) + 2
				if k >= 2 {
					// The pace is set by a finalizer just after a
					// collection: until it runs, the percent is the one
					// set from the collection before.
					p := min(max(1600/max(cs[k-2].live, 1), 100), 400)
					most = max(most, live+live*p/100+2)
				}
				if cs[k].start > most || cs[k].goal > most {
					t.Errorf("GOMAXPROCS=%s: collection %d ran at %d MB (goal %d) after %d MB found live: over %d MB", procs, k+1, cs[k].start, cs[k].goal, live, most)
				}
			}
		}
	}
}
