package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/gate/distractor"
)

// toolsList is a tools/list result. _meta names the test the tools were
// generated for.
type toolsList struct {
	Meta  map[string]string `json:"_meta"`
	Tools []distractor.Tool `json:"tools"`
}

// distractors prints, for each test with a distractors: block, the tools
// the block injects as a tools/list document, so a team can present exactly
// those tools to its agent when recording.
func (c *Command) distractors(_ context.Context, args []string) error {
	fs := c.newFlags("distractors", "mcptest distractors [--config suite.yml | suite.yml] [--filter NAME]...")
	config := fs.String("config", "suite.yml", "the suite file")
	var filters stringList
	fs.Var(&filters, "filter", "only the test `NAME` (exact, or else a case-insensitive substring); repeatable")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 0:
	case 1:
		*config = pos[0]
	default:
		return inputErr("distractors takes one suite file, got %d arguments: %q", len(pos), pos)
	}
	// The tools/list is what the agent is shown while it is recorded, so
	// the cassettes need not exist yet.
	suite, err := engine.LoadSuiteUnrecorded(*config)
	if err != nil {
		return err
	}
	cases, err := engine.SelectCases(suite, filters)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	n := 0
	for _, cs := range cases {
		d, ok := cs.Block("distractors").(*engine.DistractorsBlock)
		if !ok {
			continue
		}
		n++
		doc := toolsList{Meta: map[string]string{"mcptest/test": cs.Name}, Tools: d.Tools()}
		if err := enc.Encode(doc); err != nil {
			return fmt.Errorf("encode tools/list: %w", err)
		}
	}
	if n == 0 {
		return inputErr("%s: no selected test has a `distractors:` block", *config)
	}
	if _, err := c.Stdout.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write tools/list: %w", err)
	}
	return nil
}
