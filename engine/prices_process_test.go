package engine_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette/gen"
)

// TestProcessEmbeddedPricesAreTheTable runs the built binary over
// generated OpenAI transcripts, whose runs are priced, twice: with the
// embedded table, and with `--prices` naming that table's JSON
// uncompressed. The two reports are the same but for where the table
// came from (the same digest, every cost the same), and the embedded run
// allocated under 1 MB reading its rates (the allocation profile below
// prices.Embedded; gunzipping and scanning the JSON allocated 3.2 MB).
func TestProcessEmbeddedPricesAreTheTable(t *testing.T) {
	tl, goCmd, _, _ := generatedRun(t, 1, 42)
	dir := t.TempDir()
	const n = 60
	if _, err := gen.WriteTranscripts(dir, n, 42, gen.OpenAI); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "suite.yml"), gen.TranscriptSuite(42, n), 0o644); err != nil {
		t.Fatal(err)
	}
	z, err := os.ReadFile("../internal/prices/litellm/model_prices_and_context_window.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	table, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	tableFile := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(tableFile, table, 0o644); err != nil {
		t.Fatal(err)
	}
	report := func(env []string, args ...string) map[string]any {
		out := filepath.Join(t.TempDir(), "r.json")
		env = append(env, "GOMAXPROCS=2", "MCPTEST_DIR="+t.TempDir())
		l := tl.launchEnv(t, dir, env, append([]string{tl.mcptest, "run", "--config", "suite.yml", "--format", "json", "--output", out, "--no-cache"}, args...)...)
		if l.code > 1 {
			t.Fatalf("exit %d\n%s", l.code, l.stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if c := strings.Count(string(data), `"cost_micros":`); c == 0 {
			t.Fatalf("%d costs in the report of %d priced transcripts", c, n)
		}
		var env2 map[string]any
		if err := json.Unmarshal(data, &env2); err != nil {
			t.Fatal(err)
		}
		delete(env2, "run")
		return env2
	}
	prof := filepath.Join(t.TempDir(), "mem.out")
	embedded := report(profiled(prof))
	file := report(nil, "--prices", tableFile)
	src := func(r map[string]any) any { p, _ := r["prices"].(map[string]any); return p["source"] }
	if s, _ := src(embedded).(string); !strings.Contains(s, "embedded copy") {
		t.Errorf("the embedded run's table: %v", src(embedded))
	}
	embedded["prices"].(map[string]any)["source"] = src(file)
	if !reflect.DeepEqual(embedded, file) {
		e, _ := json.Marshal(embedded)
		f, _ := json.Marshal(file)
		t.Errorf("the report priced with the embedded rates differs from the one priced with the table's JSON:\n%s\n%s", e, f)
	}
	figure, top := focusedAllocs(t, goCmd, tl.mcptest, prof, "alloc_space", "prices.Embedded$", "")
	if kb, err := strconv.ParseFloat(strings.TrimSuffix(figure, "kB"), 64); err != nil || kb >= 1000 {
		t.Errorf("reading the embedded rates allocated %s:\n%s", figure, top)
	}
}
