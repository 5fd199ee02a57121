package live

import "github.com/mcptest/mcptest/gate/tokens"

// SurfaceTokens is the cl100k_base token cost of the catalog's tools: what
// listing them costs an agent's context.
func (c *Catalog) SurfaceTokens() int {
	n := 0
	for _, tool := range c.Tools {
		n += tokens.Tool(tool.Name, tool.Description, tool.InputSchema)
	}
	return n
}
