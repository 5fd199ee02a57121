package live

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestProcessCatalogFloodsWithinBudget runs the built binary's `mcptest
// tools --catalog` over JSON catalogs whose second tool holds JSON made to
// be expensive (empty objects, one-member maps, maps nested forty deep:
// 20 to 67 times their bytes decoded) in its input schema, about 6 MB:
// each is refused at that tool with the decode budget's error, peaking
// under 64 MiB (331 to 539 MB before, listed); with a thirtieth of the flood
// the catalog is listed.
func TestProcessCatalogFloodsWithinBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcptest")
	}
	dir := t.TempDir()
	bin := buildMcptest(t, dir)
	chain := strings.Repeat(`{"":`, 40) + "0" + strings.Repeat("}", 40)
	placed := regexp.MustCompile(`^cat\.json:1:\d+: tools\[1\] would take [0-9.]+ MiB decoded, over the decode budget of `)
	for name, elem := range map[string]string{"empty objects": "{}", "one-member maps": `{"a":0}`, "nested maps": chain} {
		for _, size := range []int{6_000_000, 200_000} {
			flood := "[" + strings.TrimSuffix(strings.Repeat(elem+",", size/(len(elem)+1)), ",") + "]"
			catalog := `{"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"name":"t","inputSchema":{"type":"object","x-f":` + flood + `}}]}`
			path := filepath.Join(dir, "cat.json")
			if err := os.WriteFile(path, []byte(catalog), 0o644); err != nil {
				t.Fatal(err)
			}
			c := exec.Command(bin, "tools", "--catalog", "cat.json")
			c.Dir = dir
			out, _ := c.CombinedOutput()
			code, kib := c.ProcessState.ExitCode(), c.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
			t.Logf("%s, %d bytes: exit %d, %d KiB: %.200s", name, len(catalog), code, kib, out)
			if size < 1_000_000 {
				if code != 0 || !strings.Contains(string(out), "2 tools") {
					t.Errorf("%s, within the budget: exit %d\n%.400s", name, code, out)
				}
				continue
			}
			if code != 2 || !placed.Match(out) {
				t.Errorf("%s: exit %d, want 2 with the decode budget's error at tools[1]:\n%.400s", name, code, out)
			}
			if kib > 64<<10 {
				t.Errorf("%s: peak RSS %d KiB, over 64 MiB", name, kib)
			}
		}
	}
}

// TestParseCatalogWithinBudget: a catalog document parsed from elsewhere
// than a file (ParseCatalog: a tool bench's catalogs) is held to the same
// budget.
func TestParseCatalogWithinBudget(t *testing.T) {
	flood := "[" + strings.TrimSuffix(strings.Repeat(`{"a":0},`, 800_000), ",") + "]"
	_, err := ParseCatalog([]byte(`{"tools":[{"name":"t","inputSchema":{"type":"object","x-f":` + flood + `}}]}`))
	if err == nil || !strings.HasPrefix(err.Error(), "tools[0] would take ") {
		t.Fatalf("ParseCatalog: %v, want the decode budget's error", err)
	}
	if _, err := ParseCatalog([]byte(`{"tools":[{"name":"t","inputSchema":{"type":"object","x-f":[{"a":0}]}}]}`)); err != nil {
		t.Fatal(err)
	}
}
