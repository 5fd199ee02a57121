package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/report"
)

// TestReadOutputListsOfferedTools: a case's output resource is its whole
// record, the tools its catalog offered and it did not call listed at
// calls 0, though the stored envelope keeps them once in its catalogs.
func TestReadOutputListsOfferedTools(t *testing.T) {
	root := t.TempDir()
	cat := report.NewCatalog([]report.ToolUse{{Server: "fs", Tool: "read"}, {Server: "fs", Tool: "write"}})
	env := report.Envelope{SchemaVersion: 1, Run: report.RunInfo{ID: "01J0000000000000000000RUN1", Mode: "replay"}, Verdict: report.Pass,
		Catalogs: []report.Catalog{*cat},
		Cases: []*report.CaseResult{{Name: "reads", Kind: report.KindAgent, Verdict: report.Pass, Catalog: cat.SHA256,
			Tools: []report.ToolUse{{Server: "fs", Tool: "read", Calls: 2}}}}}
	data, err := json.Marshal(&env)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".mcptest", "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".mcptest", "runs", "run.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, s := newServer(Options{Root: root, Getenv: func(string) string { return "" }})
	uri := outputURI(env.Run.ID, caseSlugs(env.Cases)[0])
	res, err := s.readOutput(context.Background(), &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: uri}})
	if err != nil {
		t.Fatal(err)
	}
	var c report.CaseResult
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &c); err != nil {
		t.Fatal(err)
	}
	want := []report.ToolUse{{Server: "fs", Tool: "read", Calls: 2}, {Server: "fs", Tool: "write"}}
	if len(c.Tools) != 2 || c.Tools[0] != want[0] || c.Tools[1] != want[1] {
		t.Errorf("the case's tools: %+v, want %+v", c.Tools, want)
	}
}
