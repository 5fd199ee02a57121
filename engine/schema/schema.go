package schema

import (
	"bytes"
	_ "embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// SuiteURL and CassetteURL are the $id of the published schemas. Suites name
// SuiteURL in their `# yaml-language-server: $schema=` header.
const (
	SuiteURL    = "https://mcptest.sh/schema/v1.json"
	CassetteURL = "https://mcptest.sh/schema/cassette.v1.json"
)

// SuiteJSON and CassetteJSON are the schema documents, byte for byte as
// published in this folder.
var (
	//go:embed suite.v1.json
	SuiteJSON []byte
	//go:embed cassette.v1.json
	CassetteJSON []byte
)

var (
	once            sync.Once
	suite, cassette *jsonschema.Schema
)

func compile() {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(SuiteURL, bytes.NewReader(SuiteJSON)); err != nil {
		panic("embedded suite schema: " + err.Error())
	}
	if err := c.AddResource(CassetteURL, bytes.NewReader(CassetteJSON)); err != nil {
		panic("embedded cassette schema: " + err.Error())
	}
	suite = c.MustCompile(SuiteURL)
	cassette = c.MustCompile(CassetteURL)
}

// Suite returns the compiled suite schema.
func Suite() *jsonschema.Schema {
	once.Do(compile)
	return suite
}

// Cassette returns the compiled cassette schema.
func Cassette() *jsonschema.Schema {
	once.Do(compile)
	return cassette
}
