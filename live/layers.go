package live

import (
	"fmt"

	"github.com/mcptest/mcptest/gate/tokens"
)

// Layer is one layer a catalog passed through on its way to mcptest: the
// target, the bearer token, the initialize handshake, each list.
type Layer struct {
	Layer  string `json:"layer"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// LayerReport is the document `mcptest doctor --format json` prints for a
// target that answered.
type LayerReport struct {
	Layers            []Layer `json:"layers"`
	ToolSurfaceTokens int     `json:"tool_surface_tokens"`
}

// Layers reports each layer cat passed through when read from t: the
// target, the auth of a URL target, the handshake of a server (a catalog
// file has none) and the three lists, with the tool surface's token cost.
// Details quote the server and are untrusted.
func Layers(t Target, cat *Catalog) LayerReport {
	surface := cat.SurfaceTokens()
	kind, where := "stdio", t.String()
	switch {
	case t.Catalog != "":
		kind, where = "catalog file", t.Catalog
	case t.URL != "":
		kind = "streamable HTTP"
	}
	layers := []Layer{{"target", "ok", kind + ": " + where}}
	if t.URL != "" {
		auth := "no bearer token configured; the server did not ask for one"
		if t.BearerTokenEnv != "" {
			auth = "bearer token from env var " + t.BearerTokenEnv + " accepted"
		}
		layers = append(layers, Layer{"auth", "ok", auth})
	}
	if t.Catalog == "" {
		info := "server did not name itself"
		if cat.ServerInfo != nil {
			info = fmt.Sprintf("server %s %s", cat.ServerInfo.Name, cat.ServerInfo.Version)
		}
		layers = append(layers, Layer{"initialize", "ok", fmt.Sprintf("protocol %s, %s", cat.ProtocolVersion, info)})
	}
	layers = append(layers,
		Layer{"tools", "ok", fmt.Sprintf("%s, %d tool-surface tokens (%s over name, description and inputSchema JSON)", plural(len(cat.Tools), "tool"), surface, tokens.Encoding)},
		Layer{"resources", "ok", fmt.Sprintf("%d resources, %d resource templates", len(cat.Resources), len(cat.ResourceTemplates))},
		Layer{"prompts", "ok", fmt.Sprintf("%d prompts", len(cat.Prompts))},
	)
	return LayerReport{layers, surface}
}
