module github.com/mcptest/mcptest

go 1.26.8

require github.com/santhosh-tekuri/jsonschema/v5 v5.3.1

require (
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
