package gen

import (
	"runtime/metrics"
	"time"
)

// HeapPeak samples the bytes of heap objects (live and not yet swept) every
// millisecond until stop is called, and returns the highest sample above
// the level when it started: the memory figure of the benchmarks and
// tests that read generated cassettes.
func HeapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	done := make(chan uint64)
	quit := make(chan struct{})
	go func() {
		peak := base
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				done <- max(peak, read()) - base
				return
			case <-tick.C:
				peak = max(peak, read())
			}
		}
	}()
	return func() uint64 { close(quit); return <-done }
}
