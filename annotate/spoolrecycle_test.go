package annotate

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/mcptest/mcptest/report"
)

// TestSpoolRecyclesPrepared: over drawn runs of cases (names and messages
// of drawn lengths, a few over the recycled bytes' bound), prepared ahead
// of Add by several goroutines at once in windows of drawn sizes, as a
// run's workers prepare them, the spooled envelope is what the JSON
// reporter writes, byte for byte (an array Add gave back and Prepare
// filled again never shows in an earlier case); Add keeps the arrays it
// wrote for Prepare to copy into (the encodings of hundreds of cases pass
// through a few windows' worth of arrays, not one copy a case), within
// maxFreeBytes.
func TestSpoolRecyclesPrepared(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 12))
	recycled := 0
	for run := range 30 {
		env := &report.Envelope{SchemaVersion: 1, Verdict: report.Pass}
		for i := range 50 + rng.IntN(300) {
			c := &report.CaseResult{Name: fmt.Sprintf("case %d %s", i, strings.Repeat("n", rng.IntN(200))), Kind: report.KindAgent, Verdict: report.Pass, Runs: 1}
			if rng.IntN(40) == 0 {
				c.Name += strings.Repeat("x", maxFreeBytes/2+rng.IntN(maxFreeBytes))
			}
			for range rng.IntN(4) {
				c.Findings = append(c.Findings, report.Finding{Level: "warning", Message: strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(500))})
			}
			env.Cases = append(env.Cases, c)
		}
		var want bytes.Buffer
		if err := (JSON{}).Report(&want, env); err != nil {
			t.Fatal(err)
		}
		spool, err := NewCaseSpool()
		if err != nil {
			t.Fatal(err)
		}
		window := 1 + rng.IntN(16)
		for from := 0; from < len(env.Cases); from += window {
			batch := env.Cases[from:min(from+window, len(env.Cases))]
			var wg sync.WaitGroup
			for _, c := range batch {
				wg.Go(func() {
					if err := spool.Prepare(c); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			spool.mu.Lock()
			recycled += len(spool.free)
			spool.mu.Unlock()
			for _, c := range batch {
				if err := spool.Add(c); err != nil {
					t.Fatal(err)
				}
			}
		}
		head := *env
		head.Cases = []*report.CaseResult{}
		var got bytes.Buffer
		if err := spool.WriteEnvelope(&got, &head); err != nil {
			t.Fatal(err)
		}
		spool.Close()
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			i := 0
			for i < min(got.Len(), want.Len()) && got.Bytes()[i] == want.Bytes()[i] {
				i++
			}
			t.Fatalf("run %d (window %d): the spooled envelope differs from the reporter's from byte %d: %q against %q", run, window, i,
				got.Bytes()[i:min(i+80, got.Len())], want.Bytes()[i:min(i+80, want.Len())])
		}
		spool.mu.Lock()
		if spool.freeBytes > maxFreeBytes {
			t.Errorf("run %d: %d bytes of arrays kept, over %d", run, spool.freeBytes, maxFreeBytes)
		}
		spool.mu.Unlock()
	}
	if recycled == 0 {
		t.Fatal("no array was ever kept for Prepare: nothing was recycled")
	}
}
