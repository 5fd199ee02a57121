package live

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/internal/diag"
)

// MockServer returns a deterministic MCP server that advertises the
// catalog: its tools (a call answers with the arguments it was given, as
// JSON text, so the same call always gets the same answer), resources
// (read answers with the resource's description), and prompts. A catalog
// the SDK cannot serve (an inputSchema that is not an object schema, a
// resource without a valid URI) is an error.
func MockServer(c *Catalog) (s *mcp.Server, err error) {
	for i, t := range c.Tools {
		if t.InputSchema == nil {
			continue
		}
		if m, ok := SchemaValue(t.InputSchema).(map[string]any); !ok || m["type"] != "object" {
			return nil, fmt.Errorf("tools[%d] (%s): inputSchema must be an object schema with \"type\": \"object\"", i, t.Name)
		}
	}
	// The SDK panics on what it cannot serve; a catalog is untrusted
	// input, so that is an error here.
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("the catalog cannot be served: %v", r)
		}
	}()
	info := &mcp.Implementation{Name: "mcptest-mock", Version: "v1"}
	if c.ServerInfo != nil && c.ServerInfo.Name != "" {
		info = c.ServerInfo
	}
	s = mcp.NewServer(info, &mcp.ServerOptions{Instructions: c.Instructions})
	for _, t := range c.Tools {
		tool := *t
		if tool.InputSchema == nil {
			tool.InputSchema = map[string]any{"type": "object"}
		}
		s.AddTool(&tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args any = map[string]any{}
			if len(req.Params.Arguments) > 0 {
				if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
					return nil, fmt.Errorf("arguments: %w", err)
				}
			}
			text, _ := json.Marshal(map[string]any{"tool": tool.Name, "arguments": args})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
		})
	}
	for _, r := range c.Resources {
		res := *r
		s.AddResource(&res, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: res.URI, MIMEType: "text/plain", Text: res.Description}}}, nil
		})
	}
	for _, p := range c.Prompts {
		pr := *p
		s.AddPrompt(&pr, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: pr.Description, Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: pr.Description}}}}, nil
		})
	}
	return s, nil
}

// ServeMock serves the catalog file path as a deterministic MCP server on
// stdio (MockServer, ServeStdio) until in ends or ctx is cancelled; a
// file that cannot be read or served is wrong input (FileError).
func ServeMock(ctx context.Context, path string, in io.Reader, out io.Writer) error {
	cat, err := ReadFile(path)
	if err != nil {
		return FileError(err)
	}
	server, err := MockServer(cat)
	if err != nil {
		return diag.Input("%s: %w", path, err)
	}
	return ServeStdio(ctx, server, in, out)
}
