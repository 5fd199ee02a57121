package cassette

// readRuns is how the benchmarks read, as the runner does: one run at a
// time, keeping none.
func readRuns(path string, data []byte, each func(*Run)) error {
	_, err := Stream(path, data, func(_ *Cassette, r *Run) { each(r) })
	return err
}
