package schema

import (
	"bytes"
	_ "embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// SuiteURL and CassetteURL are the $id of the published schemas: the one
// address of each, its file in the repository on main, raw. The suites of
// this repository name SuiteURL in their `# yaml-language-server: $schema=`
// header; a generated suite names the same file at the running build's
// release tag (Modeline), main for a development build.
const (
	SuiteURL    = repoRaw + "main/engine/schema/suite.v1.json"
	CassetteURL = repoRaw + "main/engine/schema/cassette.v1.json"
	// EnvelopeURL is the $id of the run envelope's schema.
	EnvelopeURL = repoRaw + "main/engine/schema/envelope.v1.json"
)

// SuiteJSON and CassetteJSON are the schema documents, byte for byte as
// published in this folder.
var (
	//go:embed suite.v1.json
	SuiteJSON []byte
	//go:embed cassette.v1.json
	CassetteJSON []byte
	// EnvelopeJSON is the run envelope's schema (envelope.v1.json).
	//go:embed envelope.v1.json
	EnvelopeJSON []byte
)

// Each schema is compiled on its first use, on its own: none refers to
// another, and a run that checks a suite's sections against the suite
// schema (before its first test can start) need not wait for the other
// two, which cost it as much again.
var (
	Suite    = compiled(SuiteURL, SuiteJSON)       // Suite returns the compiled suite schema.
	Cassette = compiled(CassetteURL, CassetteJSON) // Cassette returns the compiled cassette schema.
	Envelope = compiled(EnvelopeURL, EnvelopeJSON) // Envelope returns the compiled run envelope schema.
)

// compiled returns the schema document doc, published at url, compiled
// once on the first call.
func compiled(url string, doc []byte) func() *jsonschema.Schema {
	return sync.OnceValue(func() *jsonschema.Schema {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource(url, bytes.NewReader(doc)); err != nil {
			panic("embedded schema " + url + ": " + err.Error())
		}
		return c.MustCompile(url)
	})
}

// Files are the published schemas by the name `mcptest schema NAME`
// takes: the file in this folder and its bytes.
var Files = map[string]struct {
	File string
	JSON []byte
}{
	"suite":    {"suite.v1.json", SuiteJSON},
	"cassette": {"cassette.v1.json", CassetteJSON},
	"envelope": {"envelope.v1.json", EnvelopeJSON},
}

// Names are the keys of Files, in the order help lists them.
var Names = []string{"suite", "cassette", "envelope"}

// repoRaw is where the repository's files are served raw, by git ref.
const repoRaw = "https://raw.githubusercontent.com/mcptest/mcptest/"

// ref is the git ref the published addresses name: the running build's
// release tag, main until SetRef says otherwise.
var ref = "main"

// SetRef sets the git ref the schema addresses name (stamp.Build.Ref):
// cmd/mcptest calls it once, at start, before any suite is generated.
func SetRef(r string) { ref = r }

// FileURL is the address of a schema file (one of Files) in the
// repository at the running build's ref, which editors fetch.
func FileURL(file string) string { return repoRaw + ref + "/engine/schema/" + file }

// Modeline is the first line of every generated suite: the
// yaml-language-server comment naming the suite schema of the running
// build's release, so editors complete and check the suite.
func Modeline() string {
	return "# yaml-language-server: $schema=" + FileURL("suite.v1.json") + "\n"
}
