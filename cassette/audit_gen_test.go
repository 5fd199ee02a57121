package cassette

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// The generator test of the read-or-refused invariant (audit.go). It
// takes every recording of the corpus (testdata/ok and the examples'
// cassettes) and makes recordings nobody wrote: the call type renamed,
// the keys of a call renamed to spellings no format uses, each call
// object moved one level deeper, the calls dropped with their results
// kept. No mutant may read as a recording that lost some of its calls:
// it is refused at a position, or it reads the calls the original reads
// (the mutation touched nothing the reader uses), or it reads no call at
// all, which makes its test inconclusive (engine, no_calls).

// auditCorpus returns the recordings the mutations start from.
func auditCorpus(t *testing.T) []string {
	files := corpus(t, "ok")
	err := filepath.WalkDir(filepath.Join("..", "examples"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := filepath.Ext(p)
		if !d.IsDir() && (ext == ".json" || ext == ".jsonl") && strings.Contains(filepath.ToSlash(p), "/cassettes/") {
			files = append(files, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// mutation rewrites a decoded JSON value, returning the new value.
type mutation struct {
	name  string
	apply func(v any) any
}

// Unseen spellings: no reader and no format uses them.
var unseen = map[string]string{
	"name": "nm", "toolName": "tlNm", "tool_name": "tl_nm", "tool": "tl", "function": "fnx",
	"arguments": "argz", "args": "argz", "input": "inpt", "parameters": "paramz",
	"toolCallId": "tcId", "tool_call_id": "tc_id", "call_id": "c_id", "callId": "cId", "tool_use_id": "tu_id", "toolUseId": "tuId",
	"tool_calls": "tl_calls", "toolCalls": "tlCalls", "toolInvocation": "tlInv", "toolCall": "tlCall",
}

var mutations = []mutation{
	{"call type renamed", func(v any) any { return rewrite(v, renameType) }},
	{"call keys renamed", func(v any) any { return rewrite(v, renameKeys(nil)) }},
	{"name keys renamed", func(v any) any {
		return rewrite(v, renameKeys(map[string]bool{"name": true, "toolName": true, "tool_name": true, "tool": true}))
	}},
	{"id keys renamed", func(v any) any {
		return rewrite(v, renameKeys(map[string]bool{"toolCallId": true, "tool_call_id": true, "call_id": true, "callId": true, "tool_use_id": true, "toolUseId": true}))
	}},
	{"type and keys renamed", func(v any) any { return rewrite(rewrite(v, renameType), renameKeys(nil)) }},
	{"calls one level deeper", func(v any) any { return rewrite(v, deeper) }},
	{"calls dropped, results kept", func(v any) any { return rewrite(v, dropCalls(referred(v))) }},
}

// firstOnly is mutations applied to the first object or array each
// changes (in the bottom-up order of rewrite), so one call of a
// recording is mutated and the others stay: the mutant a reader that
// loses one call reads as a run of fewer calls.
func firstOnly(ms []mutation) []mutation {
	var out []mutation
	for _, mu := range ms {
		apply := mu.apply
		out = append(out, mutation{mu.name + ", one call", func(v any) any {
			done := false
			return rewrite(v, func(x any) any {
				if done {
					return x
				}
				before, _ := json.Marshal(x)
				y := apply(x)
				if after, _ := json.Marshal(y); !bytes.Equal(before, after) {
					done = true
				}
				return y
			})
		}})
	}
	return out
}

// rewrite applies f to every object and array of v, bottom up.
func rewrite(v any, f func(any) any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = rewrite(e, f)
		}
		return f(out)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = rewrite(e, f)
		}
		return f(out)
	}
	return v
}

// callish reports whether a type value or span name says "call": the
// types the formats give a call or its parts.
func callish(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "tool") || strings.Contains(l, "call") || strings.Contains(l, "function") || l == "ai"
}

// renameType renames the type of a call: a "type" (or span name, or span
// attribute key) that says tool, call or function gets a prefix no
// reader knows, as a framework's next version might.
func renameType(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for _, k := range []string{"type", "object"} {
		if s, ok := m[k].(string); ok && callish(s) {
			m[k] = "renamed-" + s
		}
	}
	if s, ok := m["key"].(string); ok && len(m) == 2 && callish(s) {
		m["key"] = "renamed." + s
	}
	if s, ok := m["stringValue"].(string); ok && s == "TOOL" {
		m["stringValue"] = "RENAMED_TOOL"
	}
	return m
}

// renameKeys renames the keys of only (every key of unseen when nil) to
// their unseen spellings.
func renameKeys(only map[string]bool) func(any) any {
	return func(v any) any {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		for k, to := range unseen {
			if e, ok := m[k]; ok && (only == nil || only[k]) {
				if _, taken := m[to]; !taken {
					delete(m, k)
					m[to] = e
				}
			}
		}
		return m
	}
}

// isCallObject reports whether m looks like a call: it names something
// and carries arguments, an id or a call's type. It is the test's own
// notion, not the audit's.
func isCallObject(m map[string]any) bool {
	named := false
	for _, k := range []string{"name", "toolName", "tool_name", "tool", "function"} {
		if m[k] != nil {
			named = true
		}
	}
	if s, _ := m["type"].(string); strings.HasPrefix(s, "tool-") {
		named = true
	}
	if !named || m["role"] != nil {
		return false
	}
	for _, k := range []string{"arguments", "args", "input", "id", "toolCallId", "call_id", "callId", "type", "span_data"} {
		if m[k] != nil {
			return true
		}
	}
	return false
}

// refKeys are the keys a result refers to its call by.
var refKeys = []string{"toolCallId", "tool_call_id", "call_id", "callId", "tool_use_id", "toolUseId"}

// referred collects the call ids the results of v refer to.
func referred(v any) map[string]bool {
	ids := map[string]bool{}
	rewrite(v, func(v any) any {
		if m, ok := v.(map[string]any); ok && isResultObject(m) {
			for _, k := range refKeys {
				if s, _ := m[k].(string); s != "" {
					ids[s] = true
				}
			}
		}
		return v
	})
	return ids
}

// isResultObject reports whether m carries a call's result.
func isResultObject(m map[string]any) bool {
	for _, k := range []string{"result", "output", "tool_call_id", "tool_use_id", "content"} {
		if m[k] != nil {
			return true
		}
	}
	s, _ := m["type"].(string)
	return strings.Contains(s, "result") || strings.Contains(s, "output")
}

// callIDOf is the id a call object's results refer to it by.
func callIDOf(m map[string]any) string {
	for _, k := range append([]string{"id"}, refKeys...) {
		if s, _ := m[k].(string); s != "" {
			return s
		}
	}
	if fn, ok := m["function"].(map[string]any); ok {
		s, _ := fn["id"].(string)
		return s
	}
	return ""
}

// deeper moves each call object of an array one level down, under a key
// no reader knows.
func deeper(v any) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	for i, e := range a {
		if m, ok := e.(map[string]any); ok && isCallObject(m) {
			a[i] = map[string]any{"wrapped": m}
		}
	}
	return a
}

// dropCalls removes from each array the call objects a result refers to
// (by an id in ids) and that carry no result themselves, keeping the
// results. A call whose result it holds itself (a v1 call, an mcp_call
// item) is left: dropping it would leave a recording of fewer calls,
// nothing of the dropped one in it.
func dropCalls(ids map[string]bool) func(any) any {
	return func(v any) any {
		a, ok := v.([]any)
		if !ok {
			return v
		}
		out := a[:0:0]
		for _, e := range a {
			if m, ok := e.(map[string]any); ok && isCallObject(m) && !isResultObject(m) && ids[callIDOf(m)] {
				continue
			}
			out = append(out, e)
		}
		return out
	}
}

// mutate applies mu to data, a document or JSON Lines, line by line, or
// an Inspect .eval archive, sample by sample.
func mutate(t *testing.T, data []byte, mu mutation) []byte {
	if isZip(data) {
		return mutateArchive(t, data, mu)
	}
	var v any
	if err := json.Unmarshal(data, &v); err == nil {
		out, err := json.Marshal(mu.apply(v))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	var lines [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		out, err := json.Marshal(mu.apply(v))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, out)
	}
	return bytes.Join(lines, []byte("\n"))
}

// callIDs are the tools each run calls, folded (the server aside: a
// mutant may lose which server answered, or the MCP spelling of a
// function name, not the call).
func callIDs(c *Cassette) [][]string {
	out := [][]string{}
	for _, r := range c.Runs {
		ids := []string{}
		for _, call := range r.callList() {
			ids = append(ids, fold(call.Tool))
		}
		out = append(out, ids)
	}
	return out
}

func totalCalls(ids [][]string) int {
	n := 0
	for _, r := range ids {
		n += len(r)
	}
	return n
}

// keeps reports whether every run of got holds the calls of the same run
// of want, in order, with others between.
func keeps(got, want [][]string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		j := 0
		for _, tool := range got[i] {
			if j < len(want[i]) && tool == want[i][j] {
				j++
			}
		}
		if j < len(want[i]) {
			return false
		}
	}
	return true
}

// canonical re-encodes data as encoding/json does, so an unchanged
// mutant is told from a changed one by bytes.
func canonical(t *testing.T, data []byte) []byte {
	return mutate(t, data, mutation{"none", func(v any) any { return v }})
}

func TestAuditMutations(t *testing.T) {
	files := auditCorpus(t)
	outcomes := map[string]int{}
	for _, f := range files {
		data, err := Load(f, f)
		if err != nil {
			t.Fatal(err)
		}
		if text := bytes.TrimSpace(data); len(text) == 0 || text[0] != '{' && text[0] != '[' {
			continue // not JSON text (an archive): the mutations rewrite JSON
		}
		orig, err := Read(f, data)
		if err != nil {
			t.Fatalf("%s: the original does not read: %v", f, err)
		}
		want := callIDs(orig)
		if totalCalls(want) == 0 {
			continue
		}
		base := canonical(t, data)
		for _, mu := range append(mutations, firstOnly(mutations)...) {
			mutant := mutate(t, data, mu)
			if bytes.Equal(mutant, base) {
				continue
			}
			c, err := Read(f, mutant)
			switch {
			case err != nil:
				positioned(t, f, mu.name, err)
				outcomes["refused at a position"]++
			case totalCalls(callIDs(c)) == 0:
				outcomes["read with no call: inconclusive"]++
			case reflect.DeepEqual(callIDs(c), want):
				outcomes["the same calls"]++
			case keeps(callIDs(c), want):
				// More calls, none lost (a handoff read as a call once its
				// id key is renamed): no pass on what was not read.
				outcomes["every call and more"]++
			default:
				t.Errorf("%s, %s: read with other calls than the original, not refused:\n got %v\nwant %v", f, mu.name, callIDs(c), want)
			}
		}
	}
	keys := sortedKeys(outcomes)
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%s: %d", k, outcomes[k])
	}
	if outcomes["refused at a position"] == 0 || outcomes["read with no call: inconclusive"] == 0 {
		t.Errorf("the mutants never reached one of the outcomes: %v", outcomes)
	}
}

// positioned fails the test unless err is a diag error (or list) whose
// every entry has a line and column.
func positioned(t *testing.T, f, mu string, err error) {
	t.Helper()
	var l diag.List
	var e *diag.Error
	switch {
	case errors.As(err, &l):
	case errors.As(err, &e):
		l = diag.List{e}
	default:
		t.Errorf("%s, %s: error %T is not a diag error: %v", f, mu, err, err)
		return
	}
	for _, e := range l {
		if e.Pos.Line == 0 && !strings.Contains(e.Message, "more problems not shown") {
			t.Errorf("%s, %s: error without a position: %v", f, mu, e)
		}
	}
}

// mutateArchive applies mu to each sample of an Inspect .eval archive,
// the other members kept as they are.
func mutateArchive(t *testing.T, data []byte, mu mutation) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(f.Name, "samples/") {
			body = mutate(t, body, mu)
		}
		w, err := zw.Create(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
