package engine

import (
	"runtime"
	"sync"
)

// digests computes the definition digests (Case.DefinitionSHA256) of the
// cases a builder makes on one worker per core, beside the goroutine that
// converts and builds the tests in order: the canonical JSON and SHA-256
// of a test are about a third of building it, and depend on the test's
// own value alone. The builder reads the value while a worker encodes it;
// neither changes it. wait returns once every digest handed over is set,
// so a suite is never seen with a digest missing.
type digests struct {
	jobs chan digestJob
	wg   sync.WaitGroup
}

type digestJob struct {
	c *Case
	m map[string]any
}

// digestQueue bounds the tests handed over and not yet digested: their
// values stay alive until then, a few KB each.
const digestQueue = 64

// newDigests starts the workers; nil (digest in place) on one core.
func newDigests() *digests {
	n := runtime.GOMAXPROCS(0)
	if n < 2 {
		return nil
	}
	d := &digests{jobs: make(chan digestJob, digestQueue)}
	d.wg.Add(n)
	for range n {
		go func() {
			defer d.wg.Done()
			for j := range d.jobs {
				j.c.DefinitionSHA256 = canonicalSHA256(j.m)
			}
		}()
	}
	return d
}

// add has c's digest computed from m, its definition.
func (d *digests) add(c *Case, m map[string]any) {
	d.jobs <- digestJob{c, m}
}

// wait returns once every digest added is set, and stops the workers.
func (d *digests) wait() {
	if d == nil {
		return
	}
	close(d.jobs)
	d.wg.Wait()
}
