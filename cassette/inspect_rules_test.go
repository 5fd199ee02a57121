package cassette

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// inspectLog is an EvalLog of the samples given, as JSON.
func inspectLog(samples ...string) string {
	return `{"version": 2, "status": "success", "eval": {"task": "t", "model": "anthropic/claude-x", "created": "2026-01-01T00:00:00Z"},
		"samples": [` + strings.Join(samples, ", ") + `]}`
}

// TestInspectRules: each sample's messages are a run; a tool message
// with an error fails its call (its message the result when the content
// is empty); a server-side tool_use block is a call of the server its
// context names, with its result; a user message carrying tool payloads
// starts no turn; attachment:// references are resolved; model_usage is
// summed over models, the input being the total less the output (the
// cache reads and writes an Anthropic input_tokens leaves out counted);
// the provider is the model's prefix; several samples are warned about;
// a log without samples, and a call without a function, are errors at
// them.
func TestInspectRules(t *testing.T) {
	s1 := `{"id": "a", "epoch": 1, "input": [{"role": "user", "content": "first?"}], "attachments": {"k1": "the long answer"},
		"messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "first?"},
		 {"role": "assistant", "content": [{"type": "reasoning", "reasoning": "hm"},
		   {"type": "tool_use", "tool_type": "mcp_call", "id": "m1", "name": "ask", "context": "wiki", "arguments": "{\"q\": 1}", "result": "attachment://k1"}],
		  "tool_calls": [{"id": "c1", "function": "search", "arguments": {"q": "x"}, "type": "function"},
		                 {"id": "c2", "function": "fetch", "arguments": {}, "type": "function"}]},
		 {"role": "tool", "tool_call_id": "c1", "function": "search", "content": "found"},
		 {"role": "tool", "tool_call_id": "c2", "function": "fetch", "content": "", "error": {"type": "timeout", "message": "timed out"}},
		 {"role": "user", "content": "payload", "tool_call_id": ["c2"]},
		 {"role": "assistant", "content": [{"type": "text", "text": "done"}]}],
		"output": {"model": "claude-x-20260101", "choices": []},
		"model_usage": {"anthropic/claude-x": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 115, "input_tokens_cache_read": 80, "input_tokens_cache_write": 20},
		                "openai/gpt-y": {"input_tokens": 7, "output_tokens": 3}}}`
	s2 := `{"id": "b", "epoch": 1, "input": "second?", "messages": [{"role": "user", "content": "second?"}, {"role": "assistant", "content": "no tools"}]}`
	c, err := Read("t.json", []byte(inspectLog(s1, s2)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, call := range c.Runs[0].callList() {
		got = append(got, call.ID()+"="+outcome(call))
	}
	want := []string{"wiki.ask=the long answer", "search=found", "fetch=timed out (error)"}
	if !reflect.DeepEqual(got, want) || c.Format != FormatInspect || len(c.Runs) != 2 || len(c.Runs[0].Turns) != 1 ||
		c.Runs[0].Turns[0].FinalResponse != "done" || c.Prompt != "first?" || c.Model != "claude-x-20260101" ||
		c.Provider != "anthropic" || len(c.Warnings) != 1 {
		t.Errorf("calls %q, format %s, runs %d, turns %+v, prompt %q, model %q, provider %q, warnings %q",
			got, c.Format, len(c.Runs), c.Runs[0].Turns, c.Prompt, c.Model, c.Provider, c.Warnings)
	}
	if tok := c.Runs[0].Tokens; tok == nil || *tok != (Tokens{Input: 117, Cached: 80, Output: 8, Total: 125}) {
		t.Errorf("tokens %+v", tok)
	}
	if c.Runs[1].Tokens != nil || len(c.Runs[1].callList()) != 0 {
		t.Errorf("second run %+v", c.Runs[1])
	}

	for _, tc := range []struct{ doc, want string }{
		{`{"version": 2, "eval": {"task": "t", "model": "m"}, "stats": {}}`, "holds no samples"},
		{`{"version": 2, "eval": {"task": "t", "model": "m"}, "samples": {}}`, "samples: expected the log's samples, an array"},
		{inspectLog(`{"id": 1, "epoch": 1, "messages": [{"role": "assistant", "content": "", "tool_calls": [{"id": "1", "arguments": {}}]}]}`),
			`samples[0].messages[0].tool_calls[0]: missing "function"`},
		{inspectLog(`{"id": 1, "epoch": 1}`), `samples[0]: missing "messages"`},
		{inspectLog(`{"id": 1, "epoch": 1, "messages": [{"role": "robot", "content": "x"}]}`), `samples[0].messages[0].role`},
	} {
		if _, err := Read("t.json", []byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.doc, err, tc.want)
		}
	}
}

// zipOf is a zip archive of the named members, in order, deflated.
func zipOf(t testing.TB, members ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := 0; i+1 < len(members); i += 2 {
		w, err := zw.Create(members[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(members[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// centralHeader returns the offset of the central directory header of
// the member name in a zip.
func centralHeader(t testing.TB, data []byte, name string) int {
	t.Helper()
	i := bytes.Index(data, append([]byte("PK\x01\x02"), []byte{}...))
	for i >= 0 {
		n := int(binary.LittleEndian.Uint16(data[i+28:]))
		if string(data[i+46:i+46+n]) == name {
			return i
		}
		j := bytes.Index(data[i+4:], []byte("PK\x01\x02"))
		if j < 0 {
			break
		}
		i += 4 + j
	}
	t.Fatalf("no central header for %s", name)
	return -1
}

const inspectHeaderJSON = `{"version": 2, "status": "success", "eval": {"task": "t", "model": "mockllm/model"}}`

// TestInspectArchive reads .eval archives: the samples in Inspect's order
// (by epoch, then by id, numbers by value), the header from header.json
// or, while the eval runs, _journal/start.json; a problem in a member is
// placed in that member and names it; an archive without a header or
// samples is an error.
func TestInspectArchive(t *testing.T) {
	sample := func(id string, epoch int, tool string) string {
		return fmt.Sprintf(`{"id": %s, "epoch": %d, "messages": [{"role": "user", "content": "go"},
			{"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": %q, "arguments": {}}]},
			{"role": "tool", "tool_call_id": "c", "content": "ok"}, {"role": "assistant", "content": "done"}]}`, id, epoch, tool)
	}
	data := zipOf(t, "_journal/start.json", `{"version": 2, "eval": {"task": "t", "model": "mockllm/model"}, "plan": {}}`,
		"samples/10_epoch_1.json", sample("10", 1, "ten-1"),
		"samples/2_epoch_2.json", sample("2", 2, "two-2"),
		"samples/2_epoch_1.json", sample("2", 1, "two-1"),
		"summaries.json", `[]`)
	c, err := Read("t.eval", data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range c.Runs {
		got = append(got, r.callList()[0].Tool)
	}
	if want := []string{"two-1", "ten-1", "two-2"}; !reflect.DeepEqual(got, want) || c.Model != "mockllm/model" || c.Provider != "mockllm" {
		t.Errorf("runs %q, want %q; model %q, provider %q", got, want, c.Model, c.Provider)
	}

	for _, tc := range []struct {
		name string
		data []byte
		want string
		line int
	}{
		{"no header", zipOf(t, "samples/1_epoch_1.json", sample("1", 1, "x")), "holds no header.json", 1},
		{"no samples", zipOf(t, "header.json", inspectHeaderJSON), "holds no samples/*.json", 1},
		{"a broken sample", zipOf(t, "header.json", inspectHeaderJSON, "samples/1_epoch_1.json",
			"{\"id\": 1, \"epoch\": 1,\n \"messages\": [{\"role\": \"assistant\", \"content\": \"\", \"tool_calls\": [{\"id\": \"1\", \"function\": 7}]}]}"),
			"in samples/1_epoch_1.json: messages[0].tool_calls[0].function", 2},
		{"a sample that is no JSON", zipOf(t, "header.json", inspectHeaderJSON, "samples/1_epoch_1.json", "{\"id\": 1,\n oops}"),
			"in samples/1_epoch_1.json: invalid JSON", 2},
		{"a header that is no object", zipOf(t, "header.json", `[1]`, "samples/1_epoch_1.json", sample("1", 1, "x")),
			"in header.json: expected the eval log's header", 1},
		{"cut short", data[:len(data)/2], "no end of central directory", 1},
	} {
		_, err := Read("t.eval", tc.data)
		var e *diag.Error
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			continue
		}
		if errors.As(err, &e) && (e.Pos.File != "t.eval" || e.Pos.Line != tc.line || e.Kind != kind) {
			t.Errorf("%s: placed at %+v, want t.eval line %d", tc.name, e.Pos, tc.line)
		}
	}
	_, err = Read("t.eval", zipOf(t, "header.json", inspectHeaderJSON, "samples/1_epoch_1.json",
		`{"id": 1, "epoch": 1, "messages": [{"role": "assistant", "content": "", "tool_calls": [{"id": "1", "function": 7}]}]}`))
	if err == nil || !strings.Contains(err.Error(), "messages[0].tool_calls[0].function") {
		t.Error("a member's error does not name the value's path")
	}
}

// TestInspectArchiveBounds: an archive that claims or holds more than
// the caps allow is refused before it is inflated: too many entries, a
// member that inflates too many times its size (a zip bomb) or past
// MaxSize, a member that inflates past what its entry claims, a
// compression method the reader does not take.
func TestInspectArchiveBounds(t *testing.T) {
	good, err := os.ReadFile("testdata/ok/inspect_sum.eval")
	if err != nil {
		t.Fatal(err)
	}
	patched := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	end := bytes.LastIndex(good, []byte("PK\x05\x06"))
	sample := "samples/1_epoch_1.json"
	bomb := zipOf(t, "header.json", inspectHeaderJSON, sample, `{"id": 1, "epoch": 1, "messages": [], "pad": "`+strings.Repeat("0", 4<<20)+`"}`)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"entries", patched(func(b []byte) { binary.LittleEndian.PutUint16(b[end+10:], maxArchiveEntries+1) }), "entries or more, over the limit"},
		{"zip64 count", patched(func(b []byte) { binary.LittleEndian.PutUint16(b[end+10:], 0xFFFF) }), "entries or more, over the limit"},
		{"directory", patched(func(b []byte) { binary.LittleEndian.PutUint32(b[end+12:], maxArchiveDirectory+1) }), "directory is"},
		{"ratio", bomb, "a zip bomb"},
		{"claimed size", patched(func(b []byte) {
			h := centralHeader(t, b, sample)
			binary.LittleEndian.PutUint32(b[h+24:], binary.LittleEndian.Uint32(b[h+24:])/2)
		}), `member "samples/1_epoch_1.json": it does not inflate`},
		{"over MaxSize", patched(func(b []byte) { binary.LittleEndian.PutUint32(b[centralHeader(t, b, sample)+24:], MaxSize+1) }), "it inflates to 67108865 bytes, over the 64 MiB limit for a member"},
		{"method", patched(func(b []byte) { binary.LittleEndian.PutUint16(b[centralHeader(t, b, sample)+10:], 9) }), "compressed with method 9"},
	} {
		_, err := Read("t.eval", tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			continue
		}
		for _, e := range diagErrors(t, err) {
			if e.Pos.File != "t.eval" || e.Pos.Line != 1 || e.Pos.Col != 1 || !e.HideSource {
				t.Errorf("%s: %+v, want an error at t.eval:1:1 that shows no source", tc.name, e)
			}
		}
	}
}

// TestInspectArchiveDamage is a generator test: every prefix of a real
// archive, and the archive with each byte of its directory and of its
// members' headers changed, reads as a cassette or as positioned errors,
// never a panic, and never as a cassette whose runs lost their calls.
func TestInspectArchiveDamage(t *testing.T) {
	good, err := os.ReadFile("testdata/ok/inspect_sum.eval")
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, data []byte) {
		c, err := Read("fuzz.json", data)
		checkRead(t, c, err)
		if err == nil && c.Format == FormatInspect {
			for i, r := range c.Runs {
				if len(r.callList()) == 0 {
					t.Fatalf("%s: run %d read without its call", what, i)
				}
			}
		}
	}
	for n := 0; n < len(good); n += 7 {
		check(fmt.Sprintf("prefix %d", n), good[:n])
	}
	dir := bytes.Index(good, []byte("PK\x01\x02"))
	for i := dir; i < len(good); i++ {
		for _, x := range []byte{0x00, 0xFF, good[i] ^ 0x01} {
			b := bytes.Clone(good)
			b[i] = x
			check(fmt.Sprintf("byte %d = %#x", i, x), b)
		}
	}
	for i := 0; i < 64; i++ {
		b := bytes.Clone(good)
		b[i] ^= 0xFF
		check(fmt.Sprintf("local header byte %d", i), b)
	}
}

// TestInspectSampleEnds: a sample that ended in an error or stopped at a
// limit is read as far as it went, with a warning naming it, so a gate
// over its runs is not read as a whole run's.
func TestInspectSampleEnds(t *testing.T) {
	msgs := `"messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "function": "f", "arguments": {}}]}]`
	doc := inspectLog(`{"id": "a", "epoch": 1, `+msgs+`, "error": {"message": "sandbox\u001b[2J died", "traceback": "..."}}`,
		`{"id": "a", "epoch": 2, `+msgs+`, "limit": {"type": "token", "limit": 1000}}`,
		`{"id": "a", "epoch": 3, `+msgs+`}`)
	c, err := Read("t.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sample a epoch 1 ended in an error, its run read as far as it went: sandbox [2J died",
		"sample a epoch 2 stopped at its token limit (1000), its run read as far as it went"}
	if !reflect.DeepEqual(c.Warnings, want) || len(c.Runs) != 3 || len(c.Runs[0].callList()) != 1 {
		t.Errorf("warnings %q, runs %d", c.Warnings, len(c.Runs))
	}
}
