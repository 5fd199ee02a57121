package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateSuiteRecordings: validating a suite reads its agent tests'
// recordings that exist, says what each gave, and refuses the suite when
// one holds calls where no reader takes them (a chat row that nests the
// AI SDK's messages); a test not recorded yet is passed over.
func TestValidateSuiteRecordings(t *testing.T) {
	dir := t.TempDir()
	lost, err := os.ReadFile("../cassette/testdata/err/ai_sdk_ui_chat_row.json")
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("../examples/quickstart/cassettes/weather.json")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("weather.json", good)
	write("sdk.json", lost)
	suite := "tests:\n" +
		"  - {name: weather, type: agent, cassette: weather.json, expect: [{tokens.total: {\"<=\": 5000}}]}\n" +
		"  - {name: unrecorded, type: agent, expect: [{tokens.total: {\"<=\": 5000}}]}\n"
	write("suite.yml", []byte(suite))
	l, recs, err := ValidateFileRead(filepath.Join(dir, "suite.yml"))
	if err != nil || len(l) != 0 || len(recs) != 1 {
		t.Fatalf("errors %v, %v; recordings %+v", err, l, recs)
	}
	r := recs[0]
	if r.File != filepath.Join(dir, "weather.json") || r.Reader != "mcptest-v1" || r.Runs != 1 || r.Calls != 1 || r.Results != 1 ||
		r.Tokens == nil || r.Tokens.Total != 1520 || r.Answers != 1 {
		t.Errorf("read %+v", r)
	}
	if want := `read as mcptest-v1: 1 run, 1 call, 1 result, tokens in 1/1 runs (1520 in all), model "claude-sonnet-4-5-20250929", an answer in 1/1 runs, no agents`; r.Text() != want {
		t.Errorf("text %q\nwant %q", r.Text(), want)
	}

	write("suite.yml", []byte(strings.Replace(suite, "weather.json", "sdk.json", 1)))
	l, recs, err = ValidateFileRead(filepath.Join(dir, "suite.yml"))
	if err != nil || len(l) != 1 || len(recs) != 0 || !strings.Contains(l[0].Error(), `sdk.json:23:6: chat.messages[1].parts[1]: unrecognized recording: it holds a "dynamic-tool" part naming the tool "get-sum"`) {
		t.Fatalf("errors %v, %v; recordings %+v", err, l, recs)
	}
}

// TestValidateRecordingLabelsCut: validating a recording whose model and
// agent are 100,000 characters reports each cut to its first 256, as a
// case keeps them, whatever the number of runs that name them.
func TestValidateRecordingLabelsCut(t *testing.T) {
	good, err := os.ReadFile("../examples/quickstart/cassettes/research.json")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("m", 100000)
	data := strings.Replace(string(good), `"model": "claude-sonnet-4-5-20250929"`, `"model": "`+long+`"`, 1)
	data = strings.Replace(data, `"agent": "researcher"`, `"agent": "`+long+`"`, 1)
	if data == string(good) {
		t.Fatal("the recording's model and agent were not replaced")
	}
	r, l, err := readRecording("research.json", []byte(data))
	if err != nil || len(l) != 0 {
		t.Fatalf("errors %v, %v", err, l)
	}
	want := long[:256] + "…"
	if len(r.Models) != 1 || r.Models[0] != want || len(r.Agents) != 1 || r.Agents[0] != want {
		t.Errorf("models %d %.20q…, agents %d: want one each, cut to 256 characters", len(r.Models), r.Models, len(r.Agents))
	}
	if text := r.Text(); len(text) > 2000 {
		t.Errorf("the recording's report is %d bytes", len(text))
	}
}
