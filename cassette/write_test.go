package cassette

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// extended is a v1 cassette with extensions at every level a writer must
// keep, numbers encoding/json would not write back the same, and a second
// server in its catalog.
const extended = `{
  "mcptest_cassette": 1,
  "agent": "support-bot",
  "x-team": {"owner": "payments", "tags": ["a", "b"]},
  "catalog": {
    "kb": {"tools": [{"name": "search", "inputSchema": {"type": "object"}}], "x-note": "kept"}
  },
  "runs": [
    {"turns": [{"calls": [{"tool": "search", "arguments": {"q": "<refund>", "n": 1.50e3, "big": 12345678901234567890},
      "x-trace": "t1"}], "x-turn": true}], "x-run": 7, "cost_micros": 12}
  ]
}`

// TestFileAppendKeepsWhatItRead: a cassette read back (DecodeFile), given
// a new server and a new run and encoded again, keeps its extensions,
// its other servers and its runs byte for byte, and reads as a valid
// cassette with both runs.
func TestFileAppendKeepsWhatItRead(t *testing.T) {
	if _, err := Read("extended.json", []byte(extended)); err != nil {
		t.Fatalf("the fixture is not a valid cassette: %v", err)
	}
	f, err := DecodeFile("extended.json", []byte(extended))
	if err != nil {
		t.Fatal(err)
	}
	f.Catalog["shop"] = FileServer{Tools: []any{map[string]any{"name": "buy"}}}
	f.Runs = append(f.Runs, FileRun{Turns: []FileTurn{{Calls: []FileCall{{Server: "shop", Tool: "buy", Arguments: map[string]any{"item": "a&b"}, DurationMS: 12.5}}}}})
	data, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Read("appended.json", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(c.Runs) != 2 || c.Agent != "support-bot" || len(c.Catalog) != 2 {
		t.Errorf("read back: %d runs, agent %q, %d servers\n%s", len(c.Runs), c.Agent, len(c.Catalog), data)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"x-team":{"owner":"payments","tags":["a","b"]}`,
		`"x-note":"kept"`,
		`"n":1.50e3,"big":12345678901234567890`,
		`"x-trace":"t1"`, `"x-turn":true`, `"x-run":7`,
		`"q":"<refund>"`, `"item":"a&b"`,
		`"duration_ms":12.5`,
	} {
		if !strings.Contains(compact.String(), want) {
			t.Errorf("the written cassette lacks %s:\n%s", want, data)
		}
	}
	if !strings.HasSuffix(string(data), "}\n") || !strings.HasPrefix(string(data), "{\n  \"mcptest_cassette\": 1,\n  \"agent\": \"support-bot\",") {
		t.Errorf("not indented in the format's key order:\n%s", data)
	}
}

// TestFileNew: a new cassette writes the keys the format requires, in its
// order, and an empty run list as [].
func TestFileNew(t *testing.T) {
	data, err := (&File{Version: Version}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "{\n  \"mcptest_cassette\": 1,\n  \"runs\": []\n}\n" {
		t.Errorf("got %q", data)
	}
	data, _ = (&File{Version: Version, Runs: []FileRun{{Turns: []FileTurn{{Calls: []FileCall{}}}}}}).Encode()
	if _, err := Read("new.json", data); err != nil {
		t.Errorf("%v\n%s", err, data)
	}
}

// FuzzDecodeFile: every v1 cassette Read accepts is read back by
// DecodeFile, and encoded again it is still accepted, with as many runs.
func FuzzDecodeFile(f *testing.F) {
	f.Add([]byte(extended))
	for _, file := range corpus(f, "ok") {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read("fuzz.json", data)
		if err != nil || c.Format != FormatV1 {
			return
		}
		file, err := DecodeFile("fuzz.json", data)
		if err != nil {
			t.Fatalf("a cassette Read accepts is not read back: %v", err)
		}
		out, err := file.Encode()
		if err != nil {
			t.Fatal(err)
		}
		again, err := Read("again.json", out)
		if err != nil {
			t.Fatalf("written again it is refused: %v\n%s", err, out)
		}
		if len(again.Runs) != len(c.Runs) {
			t.Fatalf("%d runs, then %d", len(c.Runs), len(again.Runs))
		}
	})
}
