package cassette

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/engine/schema"
)

// schemaVerdict validates data against the published cassette schema. It
// reports ok=false for data that is not a JSON object with
// "mcptest_cassette" (the schema speaks for v1 cassettes only), and for
// data with a repeated key, which a schema cannot see (the decoder it
// validates through keeps the last) and the reader refuses.
func schemaVerdict(t testing.TB, data []byte) (valid, ok bool, err error) {
	t.Helper()
	if !json.Valid(data) || repeatedKeys(data) {
		return false, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // exact numbers, as the schema library wants them
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	m, isObj := v.(map[string]any)
	if !isObj {
		return false, false, nil
	}
	if _, isV1 := m["mcptest_cassette"]; !isV1 {
		return false, false, nil
	}
	err = schema.Cassette().Validate(v)
	return err == nil, true, err
}

// repeatedKeys reports whether an object of the valid JSON data holds a
// key twice, reading it token by token with encoding/json.
func repeatedKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys  map[string]bool
		isKey bool // the next string token of the object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, isKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if top != nil && top.isKey {
				k := tok.(string)
				if top.keys[k] {
					return true
				}
				top.keys[k] = true
				top.isKey = false
				continue
			}
		}
		// A value ended: the next token of the enclosing object is a key.
		if len(stack) > 0 && stack[len(stack)-1] != nil {
			stack[len(stack)-1].isKey = true
		}
	}
}

// TestSchemaAgreesWithReader holds the published schema and the reader to
// the same verdict on every v1 cassette of testdata, valid and invalid, so
// the two cannot drift apart.
func TestSchemaAgreesWithReader(t *testing.T) {
	n := 0
	for _, dir := range []string{"ok", "err"} {
		for _, f := range corpus(t, dir) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			valid, ok, serr := schemaVerdict(t, data)
			if !ok {
				continue
			}
			n++
			_, rerr := Read(f, data)
			if valid != (rerr == nil) {
				t.Errorf("%s: schema says valid=%v (%v), reader says %v", f, valid, serr, rerr)
			}
		}
	}
	for _, tt := range append(errorCases, agreeCases...) {
		valid, ok, serr := schemaVerdict(t, []byte(tt.json))
		if !ok {
			continue
		}
		n++
		_, rerr := Read("f.json", []byte(tt.json))
		if valid != (rerr == nil) {
			t.Errorf("%s: schema says valid=%v (%v), reader says %v", tt.name, valid, serr, rerr)
		}
	}
	data := generate(benchConfig)
	if valid, _, serr := schemaVerdict(t, data); !valid {
		t.Errorf("the generated benchmark cassette does not validate: %v", serr)
	}
	if n < 50 {
		t.Errorf("only %d v1 files compared", n)
	}
}

// agreeCases break (or keep) one rule of the format each, for
// TestSchemaAgreesWithReader; want says whether the reader accepts them.
var agreeCases = func() []struct{ name, json, want, pointer string } {
	call := func(c string) string {
		return `{"mcptest_cassette": 1, "runs": [{"turns": [{"calls": [` + c + `]}]}]}`
	}
	run := func(r string) string { return `{"mcptest_cassette": 1, "runs": [` + r + `]}` }
	tool := func(t string) string {
		return `{"mcptest_cassette": 1, "runs": [], "catalog": {"s": {"tools": [` + t + `]}}}`
	}
	docs := map[string]string{
		"ok: empty call args":          call(`{"tool": "t", "arguments": null}`),
		"ok: array args":               call(`{"tool": "t", "arguments": [1, 2]}`),
		"ok: zero duration":            call(`{"tool": "t", "duration_ms": 0}`),
		"ok: float duration":           call(`{"tool": "t", "duration_ms": 1.5e2}`),
		"ok: integral float count":     run(`{"cost_micros": 4.0, "tokens": {"input": 1e3}}`),
		"ok: max count":                run(`{"cost_micros": 9007199254740992}`),
		"ok: empty objects":            run(`{"turns": [{}], "tokens": {}, "delegations": []}`),
		"ok: null description":         tool(`{"name": "a", "description": null}`),
		"ok: extra tool keys":          tool(`{"name": "a", "icons": [], "_meta": {}}`),
		"ok: server extra keys":        `{"mcptest_cassette": 1, "runs": [], "catalog": {"s": {"tools": [], "nextCursor": "x"}}}`,
		"ok: empty catalog":            `{"mcptest_cassette": 1, "runs": [], "catalog": {}}`,
		"ok: extension anything":       `{"mcptest_cassette": 1, "runs": [], "x-": null}`,
		"bad: version 0":               `{"mcptest_cassette": 0, "runs": []}`,
		"bad: version true":            `{"mcptest_cassette": true, "runs": []}`,
		"bad: runs null":               `{"mcptest_cassette": 1, "runs": null}`,
		"bad: X- is not an extension":  `{"mcptest_cassette": 1, "runs": [], "X-a": 1}`,
		"bad: call x without dash":     call(`{"tool": "t", "xa": 1}`),
		"bad: empty tool":              call(`{"tool": ""}`),
		"bad: tool null":               call(`{"tool": null}`),
		"bad: server null":             call(`{"tool": "t", "server": null}`),
		"bad: is_error null":           call(`{"tool": "t", "is_error": null}`),
		"bad: result array":            call(`{"tool": "t", "result": []}`),
		"bad: result null":             call(`{"tool": "t", "result": null}`),
		"bad: negative duration":       call(`{"tool": "t", "duration_ms": -0.001}`),
		"bad: agent number":            call(`{"tool": "t", "agent": 1}`),
		"bad: call null":               call(`null`),
		"bad: calls null":              run(`{"turns": [{"calls": null}]}`),
		"bad: final_response number":   run(`{"turns": [{"final_response": 1}]}`),
		"bad: turns string":            run(`{"turns": "x"}`),
		"bad: delegation from number":  run(`{"delegations": [{"from": 1, "to": "b"}]}`),
		"bad: delegation no to":        run(`{"delegations": [{"from": "a"}]}`),
		"bad: delegation extra key":    run(`{"delegations": [{"from": "a", "to": "b", "via": "c"}]}`),
		"bad: tokens extra key":        run(`{"tokens": {"cached": 1}}`),
		"bad: tokens total float":      run(`{"tokens": {"total": 0.5}}`),
		"bad: cost over max":           run(`{"cost_micros": 18014398509481984}`),
		"bad: cost string":             run(`{"cost_micros": "1"}`),
		"bad: run null":                run(`null`),
		"bad: catalog server string":   `{"mcptest_cassette": 1, "runs": [], "catalog": {"s": "x"}}`,
		"bad: catalog no tools":        `{"mcptest_cassette": 1, "runs": [], "catalog": {"s": {}}}`,
		"bad: tool no name":            tool(`{}`),
		"bad: tool name number":        tool(`{"name": 1}`),
		"bad: tool empty name":         tool(`{"name": ""}`),
		"bad: tool inputSchema array":  tool(`{"name": "a", "inputSchema": []}`),
		"bad: tool annotations string": tool(`{"name": "a", "annotations": "ro"}`),
		"ok: tool outputSchema null":   tool(`{"name": "a", "outputSchema": null}`),
		"ok: tool title null":          tool(`{"name": "a", "title": null}`),
		"ok: tool annotations null":    tool(`{"name": "a", "annotations": null}`),
		"bad: provenance number":       `{"mcptest_cassette": 1, "runs": [], "recorded_at": 20261101}`,
	}
	var out []struct{ name, json, want, pointer string }
	for name, doc := range docs {
		want := ""
		if strings.HasPrefix(name, "bad:") {
			want = "error"
		}
		out = append(out, struct{ name, json, want, pointer string }{name, doc, want, ""})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}()

// TestAgreeCases checks the reader's own verdict on agreeCases (the schema's
// is checked by TestSchemaAgreesWithReader).
func TestAgreeCases(t *testing.T) {
	for _, tt := range agreeCases {
		_, err := Read("f.json", []byte(tt.json))
		if (err == nil) != (tt.want == "") {
			t.Errorf("%s: Read error %v", tt.name, err)
		}
	}
}
