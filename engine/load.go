package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// MaxSuiteBytes bounds the size of a suite file. A long suite's tests are
// built one at a time (streamSuite), and its text is held only until the
// reader has cut it into tests and compressed it (about a ninth of it),
// so loading one holds the cases built, not every test's values nor its
// text: 32,000 tests of the generated one-test-per-cassette shape
// (gen.CaseSuite, 11.7 MiB) load in about 100 MB, 92,000 (31 MB) in about
// 250 MB, and a run of them, which builds each test when it runs it, in
// about 60 MB. A suite with an error is read again whole to word every
// error, about 14 times its size (440 MB at 31 MB): the limit keeps that
// bounded.
const MaxSuiteBytes = 32 << 20

// suiteYAML words the reader's errors for a suite.
// Nothing reads the YAML nodes once they are converted to values: the
// reader drops each as it goes (Release), so the nodes and the values are
// not all held at once.
var suiteYAML = yamlpos.Options{Noun: "suite", Kind: "syntax",
	Empty: "the suite is empty: expected a mapping with servers:, agents: or tests:", Release: true}

// suiteItems is suiteYAML holding a long suite's tests: for the loader
// to check and build one test at a time (see streamSuite).
var suiteItems = func() yamlpos.Options {
	o := suiteYAML
	o.Items = "tests"
	return o
}()

// validateItems is suiteItems for validate, which reads the tests once and
// holds the text anyway: the reader keeps it as it is instead of packing
// it (compressing the text and inflating each chunk again was a twentieth
// of validating the 2,000-transcript suite).
var validateItems = func() yamlpos.Options {
	o := suiteItems
	o.Unpacked = true
	return o
}()

// document is a suite decoded by yamlpos, the one place mcptest reads
// YAML: generic values with the position of every value and key.
type document = yamlpos.Doc

// parseYAML decodes data into a document. Syntax errors, duplicate keys,
// non-string keys, alias bombs and oversized input are positioned errors.
func parseYAML(file string, data []byte) *document {
	return readYAML(file, data, suiteYAML)
}

// readYAML is parseYAML reading with o.
func readYAML(file string, data []byte, o yamlpos.Options) *document {
	if len(data) > MaxSuiteBytes {
		return &document{File: file, Errs: diag.List{tooLargeSuite(file, int64(len(data)))}}
	}
	return yamlpos.Read(file, data, o)
}

// LoadSuite reads, validates and loads the suite at path. Every problem of
// the file, and every missing cassette, is returned at once as a diag.List;
// an I/O failure is a plain error. A path that is not a regular file, or a
// file over MaxSuiteBytes, is refused before it is read.
func LoadSuite(path string) (*Suite, error) {
	return readSuite(path, loadMode{})
}

// loadMode is how a suite is loaded: unrecorded lets a cassette: that
// does not exist yet pass (LoadSuiteUnrecorded); forRun leaves out of
// Cases the tests Run builds again (LoadSuiteForRun).
type loadMode struct {
	unrecorded, forRun bool
	// noDigest leaves the cases' definition digests out (validate, which
	// reports none of them).
	noDigest bool
	// keep is how many droppable tests a load for a run keeps built
	// (keepBuilt, see Suite.dropHeld).
	keep int
	// ahead, when set, is the run's options: the load computes the
	// replayed tests as it builds them (LoadSuiteAhead).
	ahead *Options
}

// readSuite is LoadSuite loading in mode.
func readSuite(path string, mode loadMode) (*Suite, error) {
	data, err := ReadSuiteFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, diag.List{{Pos: diag.Pos{File: path}, Kind: "suite",
			Message: "no such file: expected a suite.yml (pass it with --config)"}}
	case err != nil:
		return nil, err
	}
	return parseSuiteWith(path, data, mode, suiteItems)
}

// ReadSuiteFile reads the bytes of the suite file at path, for ParseSuite.
// A path that is not a regular file and a file over MaxSuiteBytes are
// positioned errors (a diag.List), found from the stat, before a byte is
// read; a failure to open or read the file is the os error.
func ReadSuiteFile(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, MaxSuiteBytes)
	if err != nil {
		return nil, suiteReadError(path, err)
	}
	return data, nil
}

// suiteReadError turns a refusal of the suite file into the positioned
// error the user can act on; a missing file stays the os error, any other
// failure is wrapped.
func suiteReadError(path string, err error) error {
	var nr *safefile.NotRegularError
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &nr) && nr.Mode.IsDir():
		return diag.List{{Pos: diag.Pos{File: path}, Kind: "suite",
			Message: "is a directory: expected a suite file such as " + filepath.ToSlash(filepath.Join(path, "suite.yml"))}}
	case errors.As(err, &nr):
		return diag.List{{Pos: diag.Pos{File: path}, Kind: "suite", Message: nr.Reason()}}
	case errors.As(err, &tl):
		return diag.List{tooLargeSuite(path, tl.Size)}
	case errors.Is(err, os.ErrNotExist):
		return err
	}
	return fmt.Errorf("read suite: %w", err)
}

// tooLargeSuite is the error for a suite of size bytes, over MaxSuiteBytes.
func tooLargeSuite(file string, size int64) *diag.Error {
	return &diag.Error{Pos: diag.Pos{File: file}, Kind: "suite",
		Message: fmt.Sprintf("the file is %s, over the %s limit for a suite", safefile.Size(size), safefile.Size(MaxSuiteBytes))}
}

// ParseSuite validates data against the suite schema and the rules the
// schema cannot state, and builds the Suite. Relative paths resolve against
// the directory of path, except in an inline suite (see suiteDir).
func ParseSuite(path string, data []byte) (*Suite, error) {
	return parseSuiteWith(path, data, loadMode{}, suiteItems)
}

// LoadSuiteUnrecorded reads, validates and loads the suite at path as
// LoadSuite does, except that a cassette: that does not exist yet is no
// error: for the commands used before recording (mcptest distractors
// prints the tools/list to present to the agent while it is recorded).
func LoadSuiteUnrecorded(path string) (*Suite, error) {
	return readSuite(path, loadMode{unrecorded: true})
}

// parseSuiteWith is parseSuite reading the text with o. When the reader
// holds the tests: (o.Items), they are built one at a time as it hands
// them over (streamSuite), and the text is let go: the reader keeps it
// packed, for the errors of a run (Suite.text) and to hand the tests over
// again (Suite.rebuild). At the first problem of any kind, the text is
// put back together, read again whole and loaded as before, which finds
// and words every error.
func parseSuiteWith(path string, data []byte, mode loadMode, o yamlpos.Options) (*Suite, error) {
	sum := func() string { return "" }
	if !mode.noDigest {
		// The suite's digest is a run's (report.SuiteInfo); validate
		// reports none. It is computed beside the reading (2.7 ms of
		// one core for the 744 KB suite of 2,000 transcripts, before
		// anything else of a run could start).
		summed := make(chan string, 1)
		go func(data []byte) {
			b := sha256.Sum256(data)
			summed <- hex.EncodeToString(b[:])
		}(data)
		sum = sync.OnceValue(func() string { return <-summed })
	}
	o.UnpackedItems, o.UnpackedBytes = unpackedItems(mode), packMin
	d := readYAML(filepath.ToSlash(path), data, o)
	if d.Held() {
		data = nil
		if s := streamSuite(d, path, mode, o); s != nil {
			s.SHA256 = sum()
			return s, nil
		}
		o.Items = ""
		data = d.Text()
		d = readYAML(filepath.ToSlash(path), data, o)
	}
	if len(d.Errs) > 0 {
		return nil, withSource(d, d.Errs).Sorted()
	}
	s := newSuite(d, path, sum())
	errs, stop := validateSchema(d)
	b := &builder{doc: d, suite: s, schemaErrs: errs, schemaStop: stop, unrecorded: mode.unrecorded, noDigest: mode.noDigest}
	b.build()
	errs = append(errs, b.errs...)
	if len(errs) > 0 && notASuite(d) {
		return nil, diag.List{notASuiteError(d.File)}
	}
	if len(errs) > 0 {
		return nil, withSource(d, errs).Sorted()
	}
	s.keepSource(data)
	return s, nil
}

// unpackedItems is how many tests a suite loaded in mode may hold for
// the reader to keep its text as it is (yamlpos.Options.UnpackedItems,
// with a text under packMin, which keepSource keeps as it is too): a
// load for a run has the tests handed over again (Suite.rebuild, from
// the packed text) only when it dropped some, which it does only past
// mode.keep of them; any other load never does.
func unpackedItems(mode loadMode) int {
	if mode.forRun {
		return mode.keep
	}
	return math.MaxInt
}

// newSuite starts the suite read into d from the file at path, whose
// bytes' SHA-256 is sum (hex, "" when not computed).
func newSuite(d *document, path string, sum string) *Suite {
	return &Suite{Path: d.File, Dir: suiteDir(path), SHA256: sum}
}

// streamSuite builds the suite of a document whose tests: the reader
// holds (yamlpos.Doc.Items): the rest of the document is checked against
// the schema, then each test, as the reader hands it over, is checked
// (validItem) and built, and its values and the positions within it are
// dropped, so that the values of one test are alive at a time, beside
// the cases built. It returns nil at the first problem of any kind (of
// the text, the schema or the builder): the caller then loads the text
// whole, as it did before tests: were held, so every error is found,
// worded and placed as ever. Loading for a run (mode.forRun), the tests
// Run can build again are dropped as they are built (Suite.dropHeld).
// The suite keeps the text as the reader packed it, and the document
// itself when it dropped tests, for Run to have them handed over again.
func streamSuite(d *document, path string, mode loadMode, o yamlpos.Options) *Suite {
	root, _ := d.Root.(map[string]any)
	if len(d.Errs) > 0 || root == nil || !validRest(root, o.Items) {
		return nil
	}
	s := newSuite(d, path, "") // its digest set by the caller
	b := &builder{doc: d, suite: s, unrecorded: mode.unrecorded, held: o.Items, noDigest: mode.noDigest}
	if mode.forRun {
		s.keep = mode.keep
		b.onHeld = s.dropHeld
	}
	if mode.ahead != nil && !mode.noDigest {
		s.ahead = newLoadAhead(s, *mode.ahead)
		b.ahead = s.ahead
	}
	b.build()
	if b.stopped || len(b.errs) > 0 || len(d.Errs) > 0 {
		s.Release() // nothing computed ahead of a suite with a problem is kept
		return nil
	}
	s.ahead.loaded()
	if s.kept = d.Packed(); s.kept == nil {
		s.source = d.Data // read unpacked (validateItems)
	}
	if len(s.dropped) > 0 {
		s.doc = d
	}
	return s
}

// notASuite reports whether the document is something other than a suite:
// its root is not a mapping, or none of its keys is a top-level key of a
// suite or a near miss of one.
func notASuite(d *document) bool {
	m, ok := d.Root.(map[string]any)
	if !ok {
		return true
	}
	top := sortedKeys(rawSuiteSchema()["properties"].(map[string]any))
	for k := range m {
		if contains(top, k) || diag.Suggest(k, top) != "" {
			return false
		}
	}
	return true
}

// notASuiteError is the one error of a file that is not a suite. Such a
// file may be anything named with --config (a key file, /etc/shadow), so
// the error quotes nothing of it and asks the printer not to echo its
// lines.
func notASuiteError(file string) *diag.Error {
	return &diag.Error{Pos: diag.Pos{File: file, Line: 1, Col: 1}, Kind: "suite", HideSource: true,
		Message: "not a suite: expected a YAML mapping with servers:, agents: or tests: (or scenarios:, tool_quality:, tools:, compliance:, redteam:, evals:), and this file has none of them"}
}

// canonicalSHA256 digests a generic value by its canonical JSON encoding
// (map keys sorted).
func canonicalSHA256(v any) string {
	b, err := canonicalJSON(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// suiteDir is the directory a suite's relative paths resolve against: the
// suite's own, except for an inline suite the front door persisted to
// WORKSPACE/.mcptest/inline/<run_id>.yml, whose paths were written against
// the workspace root (as validate_suite and the introspection verbs read
// them), so they resolve there.
func suiteDir(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "inline" && filepath.Base(filepath.Dir(dir)) == ".mcptest" {
		return filepath.Dir(filepath.Dir(dir))
	}
	return dir
}

// withSource attaches the suite's bytes to its errors about the suite
// file, so the printer shows the line under them: for an error at a value
// (a pointer) in a suite whose root is a mapping or a list, for an error
// about the whole document in a suite whose root mapping has a suite key.
// Anything else the file holds stays unshown: it may be no suite at all.
func withSource(d *document, errs diag.List) diag.List {
	root, isMap := d.Root.(map[string]any)
	_, isList := d.Root.([]any)
	whole := false
	for k := range root {
		if _, ok := rawSuiteSchema()["properties"].(map[string]any)[k]; ok {
			whole = true
		}
	}
	for _, e := range errs {
		if e.Pos.File != d.File || e.Source != nil || e.HideSource {
			continue
		}
		if (e.Pointer != "" && (isMap || isList)) || (e.Pointer == "" && whole) {
			e.Source = d.Data
		}
	}
	return errs
}
