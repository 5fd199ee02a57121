package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// argumentsByUnmarshal is arguments as it was before decodeAny: the
// string decoded by json.Unmarshal, the reference FuzzArguments holds the
// decoder to.
func argumentsByUnmarshal(s string) any {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		// Kept as a JSON string: as encoding/json writes and reads it
		// back (invalid UTF-8 each byte U+FFFD).
		b, _ := json.Marshal(s)
		var kept string
		_ = json.Unmarshal(b, &kept)
		return kept
	}
	return out
}

// FuzzArguments holds arguments, which keeps the JSON text the document's
// decoder reads back on demand, to json.Unmarshal on arbitrary strings:
// the same value (the same float bits, the same strings), or the string
// kept when either refuses it.
//
//	go test ./cassette -run '^$' -fuzz FuzzArguments -fuzztime 60s
func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{"a": 1}`, `{"a":1,"a":2}`, `[1e400]`, `{"x":{"x":1,"x":[]}}`, `-0`, `"\ud800\udc00\ud800"`,
		"\"\xff\"", `{"expression":"32 * 1390.95 - 343"}`, `12345678901234567890`, `1.5e-400`, ` null `, `{"a":1} x`} {
		f.Add(s)
	}
	for _, seed := range fuzzSeeds(f) {
		f.Add(string(seed))
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := arguments(s).Value(), argumentsByUnmarshal(s)
		if g, w := fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want); g != w {
			t.Fatalf("arguments(%q) = %s, json.Unmarshal gives %s", s, g, w)
		}
	})
}

// readGeneric reads data as Read does, but a transcript only from its
// generic value, without readChat: the reader before it.
func readGeneric(path string, data []byte) (*Cassette, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !json.Valid(data) {
		return Read(path, data)
	}
	runs := []Run{}
	c, err := streamDoc(path, data, func(_ *Cassette, r *Run) { keepResults(r); runs = append(runs, *r) }, true, false)
	if err != nil {
		return nil, err
	}
	c.Runs = runs
	return c, nil
}

// chatSeeds are the shapes readChat reads and their near misses.
var chatSeeds = []string{
	`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_time","arguments":"{\"tz\":\"UTC\"}"}}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion","created":1767600000,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"mcp__fs__read","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12},"system_fingerprint":"fp"}`,
	`{"choices":[{"message":{"role":"assistant","content":"hi","tool_calls":[]}},{"message":{"role":"assistant","content":"x","tool_calls":null}}],"usage":{"input_tokens":3}}`,
	`{"role":"assistant","content":"done","tool_calls":[{"function":{"name":"a","arguments":{"x":1}}},{"id":7,"function":{"name":"b"}}],"usage":{"prompt_tokens":1e400},"model":"m"}`,
	`{"role":"assistant","tool_calls":[{"function":{"name":"a","arguments":"{\"a\":1,\"a\":2}"}}],"role":"user"}`,
	`{"role":"user","content":"hi","tool_calls":[]}`,
	`{"content":"x","tool_calls":[]}`,
	`{"choices":[{"message":{"role":"assistant","content":"only text"}}],"usage":{"input_tokens":3}}`,
	`{"choices":[{"message":{"role":"assistant","tool_calls":[{"function":{"name":""}}]}}]}`,
	`{"role":"assistant","tool_calls":[{"function":{"name":"x","arguments":"not json"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
}

// FuzzChat holds readChat to the generic path it replaces for the Chat
// Completions shapes: on arbitrary input, the same cassette or the same
// error.
//
//	go test ./cassette -run '^$' -fuzz FuzzChat -fuzztime 60s
func FuzzChat(f *testing.F) {
	for _, s := range chatSeeds {
		f.Add([]byte(s))
	}
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	for i := range 16 { // documents as readPiecewise's readers read them, and near misses
		d := draws{rand.New(rand.NewPCG(uint64(i), 88)), float64(i%2) * 0.05}
		f.Add([]byte((&transcriptDraw{draws: d}).doc()))
		f.Add([]byte((&spansDraw{draws: d}).doc()))
		f.Add([]byte((&langChainDraw{draws: d}).doc()))
		f.Add([]byte((&modelListDraw{draws: d}).doc()))
		f.Add([]byte((&uiListDraw{draws: d}).doc()))
		f.Add([]byte((&itemListDraw{draws: d}).doc()))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Read("fuzz.json", data)
		want, werr := readGeneric("fuzz.json", data)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("errors differ:\n%v\n--- generic:\n%v", err, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cassettes differ:\n%#v\n--- generic:\n%#v", got, want)
		}
	})
}

// TestReadChatShapes: readChat reads the shapes it is for, and leaves the
// near misses to the generic path having recorded nothing.
func TestReadChatShapes(t *testing.T) {
	for i, s := range chatSeeds {
		d := newDecoder([]byte(s), &walker{})
		c := d.readChat(d.space(0))
		if want := i <= 2 || i == 9; (c != nil) != want {
			t.Errorf("seed %d: readChat read it: %v, want %v", i, c != nil, want)
		}
		if c == nil && (!d.clean() || len(d.w.path) != 0) {
			t.Errorf("seed %d: refused but left %d problems, path %v", i, len(d.w.probs)+len(d.w.dups), d.w.path)
		}
	}
}

// TestReadChatRules: readChat reads a message whose tool_calls is null
// with the members after it (its model, its usage), and refuses a choice,
// a tool call or a function name that is not of its shape (a number, a
// null, an empty name), wherever it stands; what it reads is what the
// generic path reads.
func TestReadChatRules(t *testing.T) {
	const call = `{"function":{"name":"a","arguments":"{}"}}`
	for _, tc := range []struct {
		rule, doc string
		read      bool
	}{
		{"tool_calls null, members after it", `{"role":"assistant","content":"x","tool_calls":null,"model":"m","usage":{"prompt_tokens":3,"completion_tokens":1}}`, true},
		{"a choice's tool_calls null, usage after it", `{"choices":[{"message":{"role":"assistant","content":"x","tool_calls":null}}],"usage":{"prompt_tokens":3,"completion_tokens":1},"model":"m"}`, true},
		{"a choice that is a number, last", `{"choices":[{"message":{"role":"assistant","tool_calls":[` + call + `]}},1]}`, false},
		{"a choice that is a number, first", `{"choices":[1,{"message":{"role":"assistant","tool_calls":[` + call + `]}}]}`, false},
		{"a choice that is null", `{"choices":[null]}`, false},
		{"a call that is a number, last", `{"role":"assistant","tool_calls":[` + call + `,1]}`, false},
		{"a call that is a number, first", `{"role":"assistant","tool_calls":[1,` + call + `]}`, false},
		{"a call that is a string", `{"role":"assistant","tool_calls":["x"]}`, false},
		{"a name that is a number", `{"role":"assistant","tool_calls":[{"function":{"name":5,"arguments":"{}"}}]}`, false},
		{"a name that is null", `{"role":"assistant","tool_calls":[{"function":{"name":null}}],"model":"m"}`, false},
		{"a name that is empty", `{"role":"assistant","tool_calls":[{"function":{"name":""}}]}`, false},
	} {
		d := newDecoder([]byte(tc.doc), &walker{})
		if c := d.readChat(d.space(0)); (c != nil) != tc.read {
			t.Errorf("%s: readChat read it: %v, want %v", tc.rule, c != nil, tc.read)
		}
		got, err := Read("chat.json", []byte(tc.doc))
		want, werr := readGeneric("chat.json", []byte(tc.doc))
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read %+v, %v\ngeneric %+v, %v", tc.rule, got, err, want, werr)
		}
		if tc.read && (got.Model != "m" || len(got.Runs) != 1 || got.Runs[0].Tokens == nil || got.Runs[0].Tokens.Input != 3) {
			t.Errorf("%s: model %q, runs %+v, want model m and 3 input tokens", tc.rule, got.Model, got.Runs)
		}
	}
}
