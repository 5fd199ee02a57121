package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/live"
)

// FuzzScaffold feeds arbitrary tool names and input schemas through the
// scaffolder: whatever a server advertises, the suite must validate as
// returned.
func FuzzScaffold(f *testing.F) {
	f.Add("echo", `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`, true)
	f.Add("delete_all", `{"type":"object","$defs":{"n":{"type":"integer","minimum":3}},"properties":{"n":{"$ref":"#/$defs/n"}},"required":["n"]}`, false)
	f.Add("we\"ird\n\u2028name", `{"allOf":[{"properties":{"a":{"enum":[1,"x",null]}},"required":["a"]}]}`, true)
	f.Add("x", `{"type":"object","properties":{"l":{"type":"array","minItems":2,"items":{"anyOf":[{"type":"null"},{"type":"number","exclusiveMinimum":0.5}]}}},"required":["l"]}`, true)
	f.Fuzz(func(t *testing.T, name, schema string, probe bool) {
		var s any
		if json.Unmarshal([]byte(schema), &s) != nil {
			return
		}
		if name == "" {
			return
		}
		cat := &live.Catalog{Tools: []*mcp.Tool{{Name: name, InputSchema: s, OutputSchema: s}, {Name: name + "_2", InputSchema: s}}}
		sc := ScaffoldSuite(cat, live.Target{Command: []string{"node", name}}, ScaffoldOptions{IncludeEdge: true, IncludeViolation: true, Probe: probe})
		if _, err := engine.ParseSuite("fuzz.yml", []byte(sc.Suite)); err != nil {
			t.Fatalf("the scaffolded suite does not validate: %v\n%s", err, sc.Suite)
		}
	})
}
