package live

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// genCatalog is a tools/list result of n tools in the shape real servers
// publish (a LiveMCPBench tool's size: a sentence or three of description,
// two to five typed parameters with their own descriptions, some of them
// required, an enum, a nested object now and then, non-ASCII text in one
// tool of seven). The same n gives the same catalog.
func genCatalog(n int) map[string]any {
	verbs := []string{"search", "fetch", "create", "update", "delete", "list", "get"}
	nouns := []string{"issue", "page", "file", "record", "event", "message", "user", "order"}
	tools := make([]any, n)
	for i := range tools {
		verb, noun := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		props := map[string]any{}
		var required []any
		for p := 0; p < 2+i%4; p++ {
			name := fmt.Sprintf("%s_%d", []string{"query", "id", "limit", "path", "body"}[p], p)
			prop := map[string]any{"type": []string{"string", "string", "integer", "string", "object"}[p],
				"description": fmt.Sprintf("The %s of the %s to %s; see the server's documentation for its format.", name, noun, verb)}
			if p == 2 {
				prop["minimum"], prop["maximum"] = 1, 100
			}
			if p == 3 {
				prop["enum"] = []any{"asc", "desc"}
			}
			if p == 4 {
				prop["properties"] = map[string]any{"title": map[string]any{"type": "string"}, "tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}
			}
			props[name] = prop
			if p%2 == 0 {
				required = append(required, name)
			}
		}
		desc := fmt.Sprintf("%s a %s by its identifier or a free-text query. Returns the matching %ss with their metadata, paginated; use list_%ss first when the identifier is not known.", strings.ToUpper(verb[:1])+verb[1:], noun, noun, noun)
		if i%7 == 3 {
			desc += " 使用关键词搜索并返回结果列表，包括标题、链接和摘要。"
		}
		tools[i] = map[string]any{
			"name":        fmt.Sprintf("%s_%s_%d", verb, noun, i),
			"description": desc,
			"inputSchema": map[string]any{"type": "object", "properties": props, "required": required},
			"annotations": map[string]any{"readOnlyHint": verb == "search" || verb == "get" || verb == "list"},
		}
	}
	return map[string]any{"tools": tools}
}

// writeCatalogs writes the catalog of n tools twice: on one line, as
// json.dump and every captured tools/list write it, and pretty-printed.
func writeCatalogs(tb testing.TB, n int) (oneLine, pretty string) {
	tb.Helper()
	cat := genCatalog(n)
	dir := tb.TempDir()
	oneLine, pretty = filepath.Join(dir, "oneline.json"), filepath.Join(dir, "pretty.json")
	b, err := json.Marshal(cat)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := json.MarshalIndent(cat, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(oneLine, b, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(pretty, p, 0o644); err != nil {
		tb.Fatal(err)
	}
	return oneLine, pretty
}

// TestOneLineCatalogPositions: a catalog on one line reads to the same
// tools as pretty-printed, and its errors are placed at the right column
// of the one line, however far along it they are.
func TestOneLineCatalogPositions(t *testing.T) {
	oneLine, pretty := writeCatalogs(t, 300)
	a, err := ReadFile(oneLine)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(pretty)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.RawTools()) != 300 || len(b.RawTools()) != 300 {
		t.Fatalf("tools: one line %d, pretty %d, want 300", len(a.RawTools()), len(b.RawTools()))
	}
	data, err := os.ReadFile(oneLine)
	if err != nil {
		t.Fatal(err)
	}
	// The last tool's name becomes a number: the error is at its column,
	// counted in characters (the non-ASCII descriptions before it count
	// one a character).
	last := `"name":"list_file_299"`
	at := strings.LastIndex(string(data), last)
	if at < 0 {
		t.Fatalf("the last tool's name %s is not in the catalog", last)
	}
	bad := string(data[:at]) + `"name":299` + string(data[at+len(last):])
	file := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(file)
	col := len([]rune(bad[:at+len(`"name":`)])) + 1
	want := fmt.Sprintf("%s:1:%d:", file, col)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it at %s", err, want)
	}

	// The same in the pretty layout: the line is counted and the column
	// starts again after each line break.
	data, err = os.ReadFile(pretty)
	if err != nil {
		t.Fatal(err)
	}
	last = `"name": "list_file_299"`
	if at = strings.LastIndex(string(data), last); at < 0 {
		t.Fatalf("the last tool's name %s is not in the pretty catalog", last)
	}
	bad = string(data[:at]) + `"name": 299` + string(data[at+len(last):])
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(file)
	before := bad[:at+len(`"name": `)]
	line := strings.Count(before, "\n") + 1
	col = len([]rune(before[strings.LastIndexByte(before, '\n')+1:])) + 1
	want = fmt.Sprintf("%s:%d:%d:", file, line, col)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it at %s", err, want)
	}
}

// BenchmarkReadCatalog reads a generated catalog of 1,000 and 10,000 tools
// (genCatalog) with ReadFile, as the catalog commands do, in both layouts
// users have: on one line and pretty-printed. The two layouts are read in
// turn within each iteration, the order alternating, so both see the same
// machine load; ns/op is the one-line read, x-pretty its time over the
// pretty read's (issue 28's target: reading is linear in bytes, a one-line
// catalog within 1.2 times the same catalog pretty-printed).
//
//	go test ./live -run '^$' -bench BenchmarkReadCatalog -benchtime 5x
func BenchmarkReadCatalog(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			oneLine, pretty := writeCatalogs(b, n)
			read := func(path string) time.Duration {
				start := time.Now()
				if _, err := ReadFile(path); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			var line, pp time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%2 == 0 {
					line += read(oneLine)
					pp += read(pretty)
				} else {
					pp += read(pretty)
					line += read(oneLine)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(line.Nanoseconds())/float64(b.N), "ns/op")
			b.ReportMetric(float64(line)/float64(pp), "x-pretty")
		})
	}
}
