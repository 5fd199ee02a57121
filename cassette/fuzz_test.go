package cassette

import (
	"bytes"
	"encoding/json"
	"math/big"
	"os"
	"reflect"
	"testing"
)

// FuzzRead feeds arbitrary bytes to Read. It must never panic; a cassette
// it accepts has only calls that name their tool; an error is a list of
// positioned diag errors; two reads agree; on a v1 cassette the reader
// and the published schema give the same verdict; and a JSON Lines file
// reads as its lines do one by one.
//
//	go test ./cassette -run '^$' -fuzz FuzzRead -fuzztime 60s
func FuzzRead(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read("fuzz.json", data)
		checkRead(t, c, err)
		if err == nil && c.Format == FormatV1 && json.Valid(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
			sameAsEncodingJSON(t, data, c)
		}
		_, again := Read("fuzz.json", data)
		if (err == nil) != (again == nil) || err != nil && err.Error() != again.Error() {
			t.Fatalf("two reads disagree:\n%v\n---\n%v", err, again)
		}
		if valid, ok, serr := schemaVerdict(t, data); ok && exactNumbers(data) && valid != (err == nil) {
			t.Fatalf("the schema says valid=%v (%v), the reader says %v", valid, serr, err)
		}
		if err == nil && c.Format != FormatClaudeCode && c.Format != FormatOTel && c.Format != FormatAgentsTrace && c.Format != FormatLlamaIndexEvents && !isZip(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) {
			sameAsLines(t, data, c)
		}
	})
}

// fuzzSeeds are the corpus files (the agent frameworks' own outputs among
// them), the inline cases and the recordings that lost their calls, the generated runs in
// every format, files that are no recording and repeated keys.
func fuzzSeeds(f testing.TB) [][]byte {
	var seeds [][]byte
	for _, dir := range []string{"ok", "err"} {
		for _, file := range corpus(f, dir) {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			seeds = append(seeds, data)
		}
	}
	for _, tt := range append(errorCases, agreeCases...) {
		seeds = append(seeds, []byte(tt.json))
	}
	for _, tt := range lostCases {
		seeds = append(seeds, []byte(tt.json))
	}
	_, formats := recordingFormats(f)
	for _, data := range formats {
		seeds = append(seeds, data)
	}
	return append(seeds,
		[]byte("root:$6$Zk3salt$9hGfQhash:20228:0:99999:7:::\n"),
		[]byte("\x00\x01secret"),
		[]byte(`{"type": "service_account", "private_key": "k", "private_key": "l"}`),
		[]byte(`{"mcptest_cassette": 1, "runs": [{"turns": [{"final_response": "a", "final_response": "b"}]}]}`),
		[]byte("{\"role\": \"assistant\", \"content\": \"a\"}\n{\"role\": \"assistant\", \"content\": \"b\"}\n"),
	)
}

// checkRead checks the shape of what Read returned: a positioned error,
// or a cassette whose calls all name their tool.
func checkRead(t *testing.T, c *Cassette, err error) {
	t.Helper()
	if err != nil {
		if c != nil {
			t.Fatal("a cassette and an error")
		}
		for _, e := range diagErrors(t, err) {
			if e.Kind != "cassette" || e.Pos.File != "fuzz.json" || e.Pos.Line < 1 || e.Pos.Col < 1 || e.Message == "" {
				t.Fatalf("badly formed error %#v", e)
			}
		}
		return
	}
	if c.Format == "" || c.Path != "fuzz.json" {
		t.Fatalf("badly formed cassette %+v", c)
	}
	for _, r := range c.Runs {
		for _, call := range r.callList() {
			if call.Tool == "" {
				t.Fatalf("a call without a tool: %+v", call)
			}
		}
	}
}

// sameAsLines checks that an accepted JSON Lines file of recordings has
// the runs of its lines, each read alone, in order.
func sameAsLines(t *testing.T, data []byte, c *Cassette) {
	t.Helper()
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if json.Valid(data) {
		return
	}
	var runs []Run
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		one, err := Read("fuzz.json", line)
		if err != nil {
			t.Fatalf("the file is accepted, its line %q is not: %v", line, err)
		}
		runs = append(runs, one.Runs...)
	}
	if !reflect.DeepEqual(runs, c.Runs) {
		t.Fatalf("the runs of the lines read one by one differ from the file's")
	}
}

// sameAsEncodingJSON checks the runs the reader decoded against
// encoding/json's decoding of the same accepted v1 cassette: the decoder
// reads strings, numbers and nested values exactly as encoding/json does.
func sameAsEncodingJSON(t *testing.T, data []byte, c *Cassette) {
	t.Helper()
	var doc struct {
		Agent, Model, Prompt string
		Runs                 []struct {
			Turns []struct {
				Calls []struct {
					Server, Tool, Agent string
					Arguments, Result   any
					IsError             bool     `json:"is_error"`
					DurationMS          *float64 `json:"duration_ms"`
				}
				FinalResponse string `json:"final_response"`
			}
			CostMicros *float64 `json:"cost_micros"`
		}
	}
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &doc); err != nil {
		t.Fatalf("encoding/json refuses what the reader accepted: %v", err)
	}
	if doc.Agent != c.Agent || doc.Model != c.Model || doc.Prompt != c.Prompt || len(doc.Runs) != len(c.Runs) {
		t.Fatalf("provenance or runs differ: %+v", c)
	}
	for i, r := range doc.Runs {
		got := c.Runs[i]
		if len(r.Turns) != len(got.Turns) || (r.CostMicros == nil) != (got.CostMicros == nil) {
			t.Fatalf("run %d differs", i)
		}
		for j, tu := range r.Turns {
			if tu.FinalResponse != got.Turns[j].FinalResponse || len(tu.Calls) != len(got.Turns[j].Calls) {
				t.Fatalf("run %d turn %d differs", i, j)
			}
			for k, want := range tu.Calls {
				g := got.Turns[j].Calls[k]
				if want.Server != g.Server || want.Tool != g.Tool || want.Agent != g.Agent || want.IsError != g.IsError ||
					!reflect.DeepEqual(want.Arguments, g.Arguments.Value()) || !reflect.DeepEqual(want.Result, g.ResultValue()) ||
					!reflect.DeepEqual(want.DurationMS, g.DurationMS) {
					t.Fatalf("run %d turn %d call %d: reader %+v, encoding/json %+v", i, j, k, g, want)
				}
			}
		}
	}
}

// exactNumbers reports whether every number of data is exactly a float64:
// the reader decodes numbers as float64 and the schema library as exact
// decimals, so they may judge 1.0000000000000000001 or 2^53+1 differently.
func exactNumbers(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		n, ok := tok.(json.Number)
		if !ok {
			continue
		}
		exact, ok := new(big.Rat).SetString(string(n))
		if !ok {
			return false
		}
		f, err := n.Float64()
		if err != nil {
			return false
		}
		if exact.Cmp(new(big.Rat).SetFloat64(f)) != 0 {
			return false
		}
	}
}
