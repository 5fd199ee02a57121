// Package tokens counts cl100k_base tokens the way mcptest prices a tool
// surface: each tool's name, description and inputSchema JSON, tokenized
// with the BPE data embedded in the binary (tiktoken-go-loader), so a gate
// never downloads anything at run time.
//
// Text flows in, token counts flow out; the same text always gives the same
// count, equal to tiktoken's own.
package tokens
