package envstream

import (
	"os"
	"testing"

	"github.com/mcptest/mcptest/internal/rsstest"
)

// TestMain lets the test binary be the launcher the RSS measures start the
// built binary from (rsstest.Serve).
func TestMain(m *testing.M) {
	rsstest.Serve()
	os.Exit(m.Run())
}
