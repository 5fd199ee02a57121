module github.com/mcptest/mcptest

go 1.26.8

require github.com/santhosh-tekuri/jsonschema/v5 v5.3.1

require gopkg.in/yaml.v3 v3.0.1 // indirect
