package engine_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/cassette"
)

// TestHostileRecordingsStayWithinDecodeBudget replays, with the built
// binary, recordings a pull request could plant to take the runner's
// memory: JSON that costs 20 to 60 times its size decoded (empty objects,
// one-member maps, maps nested forty deep, empty arrays), as a whole
// document, as an mcptest cassette's arguments and as an OpenAI
// transcript's arguments string, under the arguments: gate and an
// assertion that decodes the arguments. Each is refused (exit 2, the
// decode budget named, placed where the format has places), a cassette
// within SECURITY.md's replay bound, a document within its decode budget
// (live values at most DecodeBudget; the process at most twice that, the
// file three times and the binary's 48 MiB). On the build before the
// budget the cassettes passed the reading and peaked at 0.6 to 1.3 GB.
func TestHostileRecordingsStayWithinDecodeBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("replays recordings of several MB")
	}
	tl := buildTools(t)
	chain := strings.Repeat(`{"":`, 40) + "0" + strings.Repeat("}", 40)
	floods := map[string]string{"empty objects": "{}", "one-member maps": `{"a":0}`, "nested maps": chain, "empty arrays": "[]"}
	plants := map[string]func(flood string) string{
		"document": func(f string) string { return f },
		"cassette": func(f string) string {
			return `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [{"server": "weather", "tool": "get_weather", "arguments": {"city": ` +
				f + `}}], "final_response": "sunny"}]}]}`
		},
		"transcript": func(f string) string {
			b, _ := json.Marshal([]any{map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
				map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": `{"city": ` + f + `}`}}}}})
			return string(b)
		},
	}
	suite := "tests:\n  - name: t\n    type: agent\n    cassette: f.json\n    arguments: {}\n" +
		"    expect:\n      - target: calls[0].arguments.city\n        matcher: { exact: Oslo }\n"
	placed := regexp.MustCompile(`^f\.json:\d+:\d+: `)
	for fname, elem := range floods {
		flood := "[" + strings.TrimSuffix(strings.Repeat(elem+",", 6_000_000/(len(elem)+1)), ",") + "]"
		for pname, plant := range plants {
			t.Run(fname+" in a "+pname, func(t *testing.T) {
				dir := t.TempDir()
				doc := plant(flood)
				for name, text := range map[string]string{"f.json": doc, "suite.yml": suite} {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				l := tl.launchEnv(t, dir, []string{"MCPTEST_DIR=" + t.TempDir()}, tl.mcptest, "run", "--config", "suite.yml", "--no-cache")
				size := int64(len(doc))
				limit := (shapeFileFactor*size + shapeRSSConstant) >> 10
				if pname == "document" {
					limit = (shapeFileFactor*size + 2*cassette.DecodeBudget(len(doc)) + shapeRSSConstant) >> 10
				}
				t.Logf("%.1f MB: exit %d, peak RSS %d KiB (limit %d): %.160s", float64(size)/1e6, l.code, l.kib, limit, l.stderr)
				if l.code != 2 || !strings.Contains(l.stderr, "the decode budget") {
					t.Fatalf("exit %d, want 2 with the decode budget's error:\n%.600s", l.code, l.stderr)
				}
				if pname != "transcript" && !placed.MatchString(l.stderr) {
					t.Errorf("the error is not placed in the file: %.300s", l.stderr)
				}
				if pname == "transcript" && !strings.Contains(l.stderr, fmt.Sprintf("run 1, turn 1, call 1 (`%s`)", "get_weather")) {
					t.Errorf("the error does not name the call: %.300s", l.stderr)
				}
				if l.kib > limit {
					t.Errorf("peak RSS %d KiB over %d KiB", l.kib, limit)
				}
			})
		}
	}
}
