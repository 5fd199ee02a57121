package main

import (
	"context"
	"strings"

	"github.com/mcptest/mcptest/engine/schema"
)

func init() {
	// The generated suites' modeline names the schema at this build's
	// release tag (main for a development build).
	schema.SetRef(build().Ref())
}

// printSchema is `mcptest schema [suite|cassette|envelope]`: the published
// JSON Schema, byte for byte the embedded file `mcptest validate` checks
// against (suite when no name is given).
func (c *Command) printSchema(_ context.Context, args []string) error {
	fs := c.newFlags("schema", "mcptest schema [suite|cassette|envelope]\n"+
		"  Prints the JSON Schema (draft 2020-12) of a suite (the default), a v1 cassette or a run envelope.\n"+
		"  The same file is published at "+schema.FileURL("NAME.v1.json")+";\n"+
		"  generated suites name it on their first line for editors (yaml-language-server).")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	name := "suite"
	switch len(pos) {
	case 0:
	case 1:
		name = pos[0]
	default:
		return inputErr("schema takes one name (%s), got %d arguments", strings.Join(schema.Names, ", "), len(pos))
	}
	f, ok := schema.Files[name]
	if !ok {
		return inputErr("schema %q: expected one of %s%s", name, strings.Join(schema.Names, ", "), didYouMean(name, schema.Names))
	}
	_, err = c.Stdout.Write(f.JSON)
	return err
}
