package live

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/mcptest/mcptest/internal/rsstest"
)

// TestMain lets the test binary be the launcher the RSS measures start the
// built binary from (rsstest.Serve).
func TestMain(m *testing.M) {
	rsstest.Serve()
	if path := os.Getenv(readCatalogEnv); path != "" {
		os.Exit(readCatalogChild(path))
	}
	os.Exit(m.Run())
}

// readCatalogEnv, set for the test binary, makes it a process that reads
// the catalog file it names with ReadFile and exits: what a command that
// reads a catalog costs before it does anything with it.
const readCatalogEnv = "MCPTEST_TEST_READ_CATALOG"

// readCatalogChild is the process readCatalogEnv starts.
func readCatalogChild(path string) int {
	c, err := ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	runtime.KeepAlive(c)
	return 0
}
