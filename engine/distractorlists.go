package engine

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcptest/mcptest/gate/distractor"
)

// toolsList is a tools/list result; _meta names the test the tools were
// generated for.
type toolsList struct {
	Meta  map[string]string `json:"_meta"`
	Tools []distractor.Tool `json:"tools"`
}

// DistractorLists is what `mcptest distractors` prints: for each test of
// the suite at path that filters select (SelectCases) and that has a
// distractors: block, the tools the block injects as a tools/list document
// (indented JSON, one after the other), so a team can present exactly
// those tools to its agent when recording. It is nil when no selected test
// has the block. The suite is loaded without its cassettes: the tools are
// what the agent is shown while it is recorded, before they exist.
func DistractorLists(path string, filters []string) ([]byte, error) {
	suite, err := LoadSuiteUnrecorded(path)
	if err != nil {
		return nil, err
	}
	cases, err := SelectCases(suite, filters)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	for _, cs := range cases {
		d, ok := cs.Block("distractors").(*DistractorsBlock)
		if !ok {
			continue
		}
		doc := toolsList{Meta: map[string]string{"mcptest/test": cs.Name}, Tools: d.Tools()}
		if err := enc.Encode(doc); err != nil {
			return nil, fmt.Errorf("encode tools/list: %w", err)
		}
	}
	if buf.Len() == 0 {
		return nil, nil
	}
	return buf.Bytes(), nil
}
