package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestDirCache: a second run serves the replayed case from the cache with
// an identical result; a corrupt entry is a miss, never an error.
func TestDirCache(t *testing.T) {
	s := writeSuite(t, `
agents:
  - name: weather selection
    cassette: c.json
    expect:
      - tool_names: { contains: w.get_weather }
`, map[string]string{"c.json": cassetteJSON(runJSON("x", "w.get_weather"))})
	cache := DirCache{Dir: t.TempDir()}
	first := run(t, s, Options{Cache: cache, Version: "test"})
	second := run(t, s, Options{Cache: cache, Version: "test"})
	if first.Totals.Cached != 0 || second.Totals.Cached != 1 {
		t.Fatalf("cached %d then %d, want 0 then 1", first.Totals.Cached, second.Totals.Cached)
	}
	second.Totals.Cached = 0
	if !reflect.DeepEqual(jsonOf(t, first), jsonOf(t, second)) {
		t.Errorf("the cached result differs:\n%s\n%s", jsonOf(t, first), jsonOf(t, second))
	}
	if other := run(t, s, Options{Cache: cache, Version: "other"}); other.Totals.Cached != 0 {
		t.Errorf("another mcptest version was served from the cache")
	}
	entries, _ := filepath.Glob(filepath.Join(cache.Dir, "*.json"))
	for _, e := range entries {
		os.WriteFile(e, []byte("{not json"), 0o644)
	}
	if env := run(t, s, Options{Cache: cache, Version: "test"}); env.Totals.Cached != 0 || env.Verdict != first.Verdict {
		t.Errorf("a corrupt entry: cached %d, verdict %s", env.Totals.Cached, env.Verdict)
	}
}

func jsonOf(t *testing.T, env *Envelope) string {
	t.Helper()
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
