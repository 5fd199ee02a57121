package cassette

// callList copies the run's calls into one list, for the tests that index
// them; the package itself reads a run's calls where they lie (Calls).
func (r *Run) callList() []Call {
	var out []Call
	for _, c := range r.Calls() {
		out = append(out, *c)
	}
	return out
}
