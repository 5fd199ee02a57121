package yamlpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mcptest/mcptest/internal/jsonpos"
)

// refTree is the reader ParseJSON replaced (live's, before this package):
// encoding/json's tokens, placed by the decoder's offsets. ParseJSON must give
// its tree and its errors for every valid document.
func refTree(data []byte) (*yaml.Node, error) {
	t := &refReader{data: data, dec: json.NewDecoder(bytes.NewReader(data)), lines: jsonpos.Lines{Data: data}}
	t.dec.UseNumber()
	n, err := t.value(0)
	if err != nil {
		return nil, err
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{n}}, nil
}

type refReader struct {
	data  []byte
	dec   *json.Decoder
	lines jsonpos.Lines
}

func (t *refReader) next() int {
	i := int(t.dec.InputOffset())
	for i < len(t.data) && strings.IndexByte(" \t\r\n,:", t.data[i]) >= 0 {
		i++
	}
	return i
}

func (t *refReader) value(depth int) (*yaml.Node, error) {
	if depth > MaxJSONDepth {
		return nil, fmt.Errorf("the document nests deeper than %d levels", MaxJSONDepth)
	}
	off := t.next()
	tok, err := t.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	n := &yaml.Node{}
	n.Line, n.Column = t.lines.At(off)
	switch v := tok.(type) {
	case json.Delim:
		n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		if v == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		}
		for t.dec.More() {
			c, err := t.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		if _, err := t.dec.Token(); err != nil {
			return nil, err
		}
	case string:
		n.Kind, n.Tag, n.Value, n.Style = yaml.ScalarNode, "!!str", v, yaml.DoubleQuotedStyle
	case json.Number:
		if _, err := strconv.ParseFloat(v.String(), 64); err != nil {
			return nil, &jsonpos.Error{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf("the number %.40s is out of the range a JSON reader holds (a float64)", v)}
		}
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!int", v.String()
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", fmt.Sprint(v)
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	}
	return n, nil
}

// sameNode fails unless ParseJSON and refTree agree on data.
func sameNode(t *testing.T, data []byte) {
	t.Helper()
	if !json.Valid(data) {
		return
	}
	got, err := ParseJSON(data)
	want, werr := refTree(data)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("%q: error %v, want %v", data, err, werr)
	}
	var pe, wpe *jsonpos.Error
	if errors.As(err, &pe) != errors.As(werr, &wpe) || pe != nil && *pe != *wpe {
		t.Fatalf("%q: error %#v, want %#v", data, pe, wpe)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: tree differs from encoding/json's", data)
	}
}

// jsonSeeds are documents ParseJSON is held to refTree on: the repository's
// catalogs and cassettes, and the shapes where a scanner could slip.
func jsonSeeds(tb testing.TB) [][]byte {
	out := [][]byte{
		[]byte(`{}`), []byte(`[]`), []byte(` [ 1 , -2.5e3 , true , false , null , "" ] `),
		[]byte("{\"a\":{\"b\":[{\"c\":\"\\u00e9\\ud83d\\ude80\\ud800x\"}]},\n \"é\": \"tab\\t\\\"q\\\"\", \"n\": 1e400}"),
		[]byte("{\"k\\/\": \"\xff\u2028\", \"big\": 123456789012345678901234567890}"),
		[]byte("\"top\""), []byte("  42\n"), []byte("[\n\t{\"x\" : [ ] , \"y\" : { } }\r\n]"),
	}
	for _, pattern := range []string{"../../live/testdata/catalogs/*/*.json", "../../cassette/testdata/*/*.json"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil {
				out = append(out, data)
			}
		}
	}
	return out
}

// TestParseJSON: ParseJSON gives refTree's tree and errors on every seed.
func TestParseJSON(t *testing.T) {
	s := jsonSeeds(t)
	if len(s) < 20 {
		t.Fatalf("only %d seeds: the corpora moved?", len(s))
	}
	for _, data := range s {
		sameNode(t, data)
	}
	if _, err := ParseJSON([]byte(strings.Repeat("[", MaxJSONDepth+2) + strings.Repeat("]", MaxJSONDepth+2))); err == nil {
		t.Error("a nesting over MaxJSONDepth read")
	}
}

// FuzzParseJSON holds ParseJSON to refTree for any valid document.
func FuzzParseJSON(f *testing.F) {
	for _, s := range jsonSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameNode(t, data) })
}

// jsonCatalog is a tools/list result of n tools, on one line or indented by
// two: a name, a description with a few non-ASCII characters, and an
// inputSchema of three properties, one an enum and one nested.
func jsonCatalog(tb testing.TB, n int, pretty bool) []byte {
	tb.Helper()
	tools := make([]any, n)
	for i := range tools {
		tools[i] = map[string]any{
			"name":        fmt.Sprintf("list_file_%d", i),
			"description": fmt.Sprintf("Lists the files of a folder — %d entries at most, sorted by name (“a” to “z”).", i%97+3),
			"inputSchema": map[string]any{"type": "object", "required": []any{"path"}, "properties": map[string]any{
				"path":  map[string]any{"type": "string", "description": "The folder, relative to the root."},
				"order": map[string]any{"type": "string", "enum": []any{"name", "size", "mtime"}},
				"page":  map[string]any{"type": "object", "properties": map[string]any{"size": map[string]any{"type": "integer", "minimum": 1, "maximum": 500}}},
			}},
		}
	}
	doc := map[string]any{"tools": tools}
	var data []byte
	var err error
	if pretty {
		data, err = json.MarshalIndent(doc, "", "  ")
	} else {
		data, err = json.Marshal(doc)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// BenchmarkParseJSON reads catalogs of 1,000 and 10,000 tools, on one line and
// pretty-printed, with ParseJSON and with refTree (encoding/json's tokens,
// which it replaced), in turn within each iteration, the order
// alternating. ns/op is ParseJSON's time; x-encoding-json is refTree's over it.
//
//	go test ./internal/yamlpos -run '^$' -bench BenchmarkParseJSON -benchtime 10x -count 5
func BenchmarkParseJSON(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, pretty := range []bool{false, true} {
			layout := "one-line"
			if pretty {
				layout = "pretty"
			}
			b.Run(fmt.Sprintf("tools=%d/%s", n, layout), func(b *testing.B) {
				data := jsonCatalog(b, n, pretty)
				readers := []func([]byte) (*yaml.Node, error){ParseJSON, refTree}
				var spent [2]int64
				b.SetBytes(int64(len(data)))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					for k := range readers {
						r := (i + k) % 2
						start := time.Now()
						if _, err := readers[r](data); err != nil {
							b.Fatal(err)
						}
						spent[r] += time.Since(start).Nanoseconds()
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(spent[0])/float64(b.N), "ns/op")
				b.ReportMetric(float64(spent[1])/float64(spent[0]), "x-encoding-json")
			})
		}
	}
}
