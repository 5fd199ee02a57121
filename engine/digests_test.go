package engine

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcptest/mcptest/internal/diag"
)

// drawnSuite writes a suite of n drawn agent tests (tests: and agents:,
// the optional blocks drawn per test) whose cassettes need not exist
// (loaded unrecorded); broken, when >= 0, repeats the name of test 0 at
// test broken, a problem the builder finds midway.
func drawnSuite(rng *rand.Rand, n, broken int) string {
	var b strings.Builder
	tools := []string{"s.search", "s.fetch", "s.get", "t.shell", "t.read", "u.send"}
	pick := func() string { return tools[rng.IntN(len(tools))] }
	b.WriteString("tests:\n")
	for i := range n {
		if i == n/2 && rng.IntN(3) == 0 {
			b.WriteString("agents:\n")
		}
		name := fmt.Sprintf("test %d", i)
		if i == broken {
			name = "test 0"
		}
		fmt.Fprintf(&b, "  - name: %q\n    type: agent\n    cassette: c/%d.json\n", name, rng.IntN(n))
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "    prompt: \"find %d and fetch it\"\n", rng.IntN(1000))
		}
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "    model: %s\n", []string{"gpt-4o", "claude-sonnet-4-5"}[rng.IntN(2)])
		}
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "    equal_function_sets:\n      classes:\n        - { name: a, members: [%s, %s] }\n        - { name: b, members: [%s] }\n      expect:\n        - tool_selection.f1: { \">=\": %d }\n",
				pick(), pick(), pick(), rng.IntN(101))
		case 1:
			fmt.Fprintf(&b, "    budget:\n      max_calls: %d\n      max_turns: %d\n", 1+rng.IntN(50), 1+rng.IntN(5))
		case 2:
			fmt.Fprintf(&b, "    trajectory:\n      match: %s\n      steps:\n        - { tool: %s }\n        - { tool: %s }\n",
				[]string{"superset", "subset", "strict", "unordered"}[rng.IntN(4)], pick(), pick())
		}
		if k := rng.IntN(3); k > 0 {
			b.WriteString("    expect:\n")
			for range k {
				fmt.Fprintf(&b, "      - target: tool_names\n        matcher: { contains: %s }\n", pick())
			}
		}
	}
	return b.String()
}

// TestDigestsOnEveryCore: the definition digests the builder computes on
// workers (digests) are the ones it computes in place on one core, for
// every test of drawn suites, loaded whole and with tests: held, for a
// run and not; a suite with a problem midway gives the same errors on
// any number of cores and leaves no worker behind; validate's load
// (noDigest) sets none.
func TestDigestsOnEveryCore(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 2))
	before := runtime.NumGoroutine()
	for d := range 16 {
		n := 1 + rng.IntN(200)
		broken := -1
		if d%4 == 3 {
			broken = 1 + rng.IntN(n+1)
		}
		text := []byte(drawnSuite(rng, n, broken))
		for _, o := range []struct {
			name string
			mode loadMode
		}{{"whole", loadMode{unrecorded: true}}, {"held", loadMode{unrecorded: true}}, {"held for a run", loadMode{unrecorded: true, forRun: true, keep: n}}} {
			opts := suiteYAML
			if o.name != "whole" {
				opts = heldAlways
			}
			var digests [2][]string
			var errs [2]string
			for k, procs := range []int{1, 4} {
				prev := runtime.GOMAXPROCS(procs)
				s, err := parseSuiteWith("suite.yml", text, o.mode, opts)
				runtime.GOMAXPROCS(prev)
				if err != nil {
					if _, ok := err.(diag.List); !ok {
						t.Fatalf("suite %d (%s): %v", d, o.name, err)
					}
					errs[k] = err.Error()
					continue
				}
				for _, c := range s.Cases {
					digests[k] = append(digests[k], c.Name+" "+c.DefinitionSHA256)
					if len(c.DefinitionSHA256) != 64 {
						t.Fatalf("suite %d (%s), GOMAXPROCS=%d: case %q has digest %q", d, o.name, procs, c.Name, c.DefinitionSHA256)
					}
				}
			}
			if errs[0] != errs[1] {
				t.Fatalf("suite %d (%s): errors differ between 1 and 4 cores:\n%s\n---\n%s", d, o.name, errs[0], errs[1])
			}
			if (broken >= 0 && broken < n) != (errs[0] != "") {
				t.Fatalf("suite %d (%s): test %d repeats a name of %d, and the load said %q", d, o.name, broken, n, errs[0])
			}
			if strings.Join(digests[0], "\n") != strings.Join(digests[1], "\n") {
				t.Fatalf("suite %d (%s): the digests differ between 1 and 4 cores", d, o.name)
			}
			if errs[0] == "" && len(digests[0]) != n {
				t.Fatalf("suite %d (%s): %d cases of %d", d, o.name, len(digests[0]), n)
			}
		}
		if broken < 0 {
			s, err := parseSuiteWith("suite.yml", text, loadMode{unrecorded: true, noDigest: true}, heldAlways)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range s.Cases {
				if c.DefinitionSHA256 != "" {
					t.Fatalf("suite %d: validate's load digested case %q", d, c.Name)
				}
			}
		}
	}
	// Every worker has returned: no goroutine is left of the loads.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the loads, %d before", n, before)
	}
}
