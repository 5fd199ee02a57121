package engine

import (
	"fmt"
	"iter"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report"
)

// A run of a long suite held the model of every test from loading to the
// end: 32,000 tests of the generated one-test-per-cassette shape are about
// 36 MB of cases beside the suite's text, and the run's peak memory grew
// with them. A suite loaded for a run (LoadSuiteForRun) checks every test
// as LoadSuite does, then keeps of each test of the held tests: list
// (yamlpos.Options.Items) whose cassettes it found only what Run needs
// before computing it (droppedTest); Run has the reader hand the tests
// over again (yamlpos.Doc.Again, from the text it keeps compressed chunk
// by chunk, never whole), builds each such test when its turn comes
// (rebuilder), and drops it once its result is kept, so a run holds the
// tests it is computing and no more, and not the suite's text.

// droppedTest is what a suite loaded for a run keeps of a test it checked
// and built and did not keep: its name (for --filter and --shard), the
// number of its cassette files (the progress total), its index in tests:
// and its place in suite order, the number of Suite.Cases before it.
type droppedTest struct {
	name  string
	files int32
	item  int32
	at    int32
}

// LoadSuiteForRun reads, validates and loads the suite at path as
// LoadSuite does, with the same errors, for Run alone: the tests of a long
// tests: list that name their cassette: are not in Cases once checked, and
// Run builds each again from the suite's text when it computes it.
func LoadSuiteForRun(path string) (*Suite, error) {
	return readSuite(path, loadMode{forRun: true, keep: keepBuilt})
}

// droppable reports whether Run can build c again from the text alone
// and plan it without it: a test of one cassette: whose files were found
// when it was loaded (caseFiles returns them as they are).
func droppable(c *Case) bool {
	return c.Kind == report.KindAgent && len(c.Sources) == 0 && c.Cassette != "" && c.cassetteFiles != nil
}

// keepBuilt is how many droppable tests a suite loaded for a run keeps
// built before it drops the rest: a test of the generated shapes is about
// 1.1 KB built, so the first 2,048 hold about 2.3 MB, a constant beside
// the run's peak. Building a test again costs about what loading it did
// (the item parsed, checked and digested a second time: a fifth of the
// CPU of 2,000 one-test-per-transcript cases), so a suite of up to
// keepBuilt such tests is built once, and a longer one builds only the
// tests past them twice.
const keepBuilt = 2048

// dropHeld is the builder's onHeld for a suite loaded for a run: it takes
// the test just built, the item-th of tests:, out of the suite when it is
// droppable and the suite already keeps as many droppable tests as its
// load was told to (keepBuilt for a run),
// keeping what Run needs of it.
func (s *Suite) dropHeld(item int, c *Case) bool {
	n := len(s.Cases) - 1
	if n < 0 || s.Cases[n] != c || !droppable(c) || c.ahead != nil {
		return true
	}
	if s.keptBuilt < s.keep {
		s.keptBuilt++
		return true
	}
	s.dropped = append(s.dropped, droppedTest{name: c.Name, files: int32(len(c.cassetteFiles)), item: int32(item), at: int32(n)})
	s.Cases[n] = nil
	s.Cases = s.Cases[:n]
	return true
}

// caseRef is a case of a suite in suite order: a case it keeps (c) or a
// test it dropped (d).
type caseRef struct {
	c *Case
	d *droppedTest
}

// named is a case as --filter and --shard select it: by its name.
type named interface{ caseName() string }

func (c *Case) caseName() string { return c.Name }

// caseName is the case's name.
func (r caseRef) caseName() string {
	if r.d != nil {
		return r.d.name
	}
	return r.c.Name
}

// refs lists the suite's cases in suite order: Cases, with each dropped
// test before the case it was dropped before.
func (s *Suite) refs() []caseRef {
	out := make([]caseRef, 0, len(s.Cases)+len(s.dropped))
	k := 0
	for i := range s.dropped {
		for ; k < int(s.dropped[i].at); k++ {
			out = append(out, caseRef{c: s.Cases[k]})
		}
		out = append(out, caseRef{d: &s.dropped[i]})
	}
	for ; k < len(s.Cases); k++ {
		out = append(out, caseRef{c: s.Cases[k]})
	}
	return out
}

// rebuilder builds the tests a suite dropped again, one at a time and in
// order, as Run reaches them: the reader that held tests: hands them over
// again, and it hands over each test once built.
type rebuilder struct {
	next func() (int, *Case, bool)
	stop func()
	// errs are the problems the builder met reading the tests again (a
	// cassette removed since the suite was loaded); read once next has
	// reported the end.
	errs diag.List
}

// newRebuilder starts building the tests s dropped again; nil when it
// dropped none. stop must be called when the run is done with it.
func newRebuilder(s *Suite) *rebuilder {
	if len(s.dropped) == 0 {
		return nil
	}
	r := &rebuilder{}
	r.next, r.stop = iter.Pull2(iter.Seq2[int, *Case](func(yield func(int, *Case) bool) {
		r.errs = s.rebuild(yield)
	}))
	return r
}

// test returns the dropped test d, built again: the tests before it in
// tests: are built and passed over. Errors are the builder's, or one at
// the suite file when the tests ended before d.
func (r *rebuilder) test(s *Suite, d *droppedTest) (*Case, diag.List) {
	for {
		i, c, ok := r.next()
		if !ok {
			break
		}
		if i == int(d.item) {
			return c, nil
		}
	}
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	return nil, diag.List{{Pos: diag.Pos{File: s.Path}, Kind: "suite",
		Message: fmt.Sprintf("test %q was not found when the suite was read again: it changed while mcptest ran", d.name)}}
}

// close stops building; a nil rebuilder does nothing.
func (r *rebuilder) close() {
	if r != nil {
		r.stop()
	}
}

// rebuild has the reader that held the suite's tests: hand them over
// again (from the text it keeps packed) and builds the document as the
// loader did, giving yield each test of tests: as soon as it is built,
// with its index, until yield returns false. It returns the problems
// found (none for cassettes that are still there). The tests before the
// first one dropped are kept built, and are not built again.
func (s *Suite) rebuild(yield func(int, *Case) bool) diag.List {
	d := s.doc.Again()
	again := &Suite{Path: s.Path, Dir: s.Dir, SHA256: s.SHA256}
	b := &builder{doc: d, suite: again, held: suiteItems.Items, again: true, from: int(s.dropped[0].item)}
	b.onHeld = func(i int, c *Case) bool {
		again.Cases = again.Cases[:len(again.Cases)-1]
		return yield(i, c)
	}
	b.build()
	return append(b.errs, d.Errs...)
}
