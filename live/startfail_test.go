package live

import (
	"strings"
	"testing"
)

// TestStderrSays: a failed start's stderr becomes one clause on the error's
// line (never a newline): the line that says why, and for a Node server
// without its module, the package and the npm command.
func TestStderrSays(t *testing.T) {
	node := "node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\nError: Cannot find module '/x/.ci/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js'\n    at Module._resolveFilename (node:internal)\n{\n  code: 'MODULE_NOT_FOUND'\n}\n\nNode.js v20.20.2\n"
	for _, tc := range []struct{ stderr, want string }{
		{"", ""},
		{"\n  \n", ""},
		{"starting\nlistening\n", "; its stderr says: listening"},
		{"boot\nfatal error: config.json: no such file\nbye\n", "; its stderr says: fatal error: config.json: no such file"},
		{node, "; its stderr says: Error: Cannot find module '/x/.ci/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js' (the server's npm package @modelcontextprotocol/server-everything is not installed: install it with `npm install --prefix /x/.ci/node @modelcontextprotocol/server-everything`)"},
		{"Error: Cannot find module '/a/node_modules/left-pad/index.js'", "; its stderr says: Error: Cannot find module '/a/node_modules/left-pad/index.js' (the server's npm package left-pad is not installed: install it with `npm install --prefix /a left-pad`)"},
	} {
		got := stderrSays(tc.stderr)
		if got != tc.want || strings.Contains(got, "\n") {
			t.Errorf("stderrSays(%q)\n= %q\nwant %q", tc.stderr, got, tc.want)
		}
	}
}
