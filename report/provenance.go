package report

// Environment says where a run happened: the platform of the mcptest binary
// and the CI system, when there was one.
type Environment struct {
	// Platform is GOOS/GOARCH of the binary that ran, for example
	// "linux/amd64".
	Platform string `json:"platform"`
	// CI names the CI system ("github-actions", "ci"), absent locally.
	CI string `json:"ci,omitempty"`
	// Runner is the CI runner's OS and architecture as the CI reports them
	// (GitHub Actions' RUNNER_OS/RUNNER_ARCH), when known.
	Runner string `json:"runner,omitempty"`
}

// ServerInfo is a suite server's provenance for a reader: how the agent
// reaches it and how it authenticates. It never holds a secret: only the
// name of the environment variable a token comes from.
type ServerInfo struct {
	Name string `json:"name"`
	// Transport is "stdio" (a command) or "http" (streamable HTTP at a URL).
	Transport string `json:"transport"`
	// Auth is "none" or "bearer".
	Auth string `json:"auth"`
	// TokenEnv names the environment variable of a bearer token.
	TokenEnv string `json:"token_env,omitempty"`
	// Tools names, in order, the tools the server listed when the run's
	// tool tests connected to it; absent when the run did not connect.
	Tools []string `json:"tools,omitempty"`
}
