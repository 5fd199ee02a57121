package engine

import "github.com/mcptest/mcptest/report"

// serverInfos describes the suite's servers in the suite's (name) order.
func serverInfos(servers []Server) []report.ServerInfo {
	var out []report.ServerInfo
	for _, s := range servers {
		si := report.ServerInfo{Name: s.Name, Transport: "stdio", Auth: "none"}
		if s.URL != "" {
			si.Transport = "http"
		}
		if s.BearerTokenEnv != "" {
			si.Auth, si.TokenEnv = "bearer", s.BearerTokenEnv
		}
		out = append(out, si)
	}
	return out
}
