package cassette

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
)

// v1Line is a one-line mcptest cassette of model and provider with one
// run of one call.
func v1Line(model, provider string) string {
	return fmt.Sprintf(`{"mcptest_cassette": 1, "model": %q, "provider": %q, "runs": [{"turns": [{"calls": [{"tool": "t", "arguments": {}}], "final_response": "ok"}]}]}`, model, provider)
}

// TestIsLines: a file that is not one JSON document is JSON Lines when
// its first line that is not blank is a JSON value and something other
// than white space follows it; a value followed only by white space JSON
// does not allow (a vertical tab, a form feed) is not, and is refused as
// invalid JSON.
func TestIsLines(t *testing.T) {
	one := v1Line("m", "p")
	for _, tc := range []struct {
		name, data string
		lines      bool
		refused    string // the error of a file that is not JSON Lines
	}{
		{"two values", one + "\n" + one, true, ""},
		{"blank lines first", "\n \n" + one + "\n" + one, true, ""},
		{"a value and a broken line", one + "\n{", true, ""},
		{"a value, then a vertical tab", one + "\n\v", false, "f.jsonl:2:1: invalid JSON: invalid character '\\v' after top-level value"},
		{"a value, then a form feed and a blank line", one + "\n\f\n \n", false, "f.jsonl:2:1: invalid JSON: invalid character '\\f' after top-level value"},
		{"a value broken over two lines", `{"mcptest_cassette":` + "\n" + `1}` + "\n{", false, "f.jsonl:3:1: invalid JSON: invalid character '{' after top-level value"},
		{"nothing but white space", "\v\n\f", false, "f.jsonl:1:1: the file is empty"},
	} {
		if got := isLines([]byte(tc.data)); got != tc.lines {
			t.Errorf("%s: JSON Lines %v, want %v", tc.name, got, tc.lines)
		}
		if _, err := Read("f.jsonl", []byte(tc.data)); !tc.lines && (err == nil || !strings.HasPrefix(err.Error(), tc.refused)) {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.refused)
		}
	}
}

// TestLinesAdd: an error of the line numbered no is moved to its line of
// the file (its line 2 of the file's line 5 is line 6); an error placed
// nowhere (line 0) stays so, and an error without a position is placed at
// the start of its line.
func TestLinesAdd(t *testing.T) {
	at := func(line int) *diag.Error { return &diag.Error{Pos: diag.Pos{File: "f", Line: line, Col: 3}} }
	for _, tc := range []struct {
		name string
		err  error
		no   int
		want []int
	}{
		{"line 1 of line 1", at(1), 1, []int{1}},
		{"line 2 of line 5", at(2), 5, []int{6}},
		{"placed nowhere", at(0), 5, []int{0}},
		{"a list", diag.List{at(1), at(0), at(3)}, 4, []int{4, 0, 6}},
		{"no position, line 1", errors.New("bad"), 1, []int{1}},
		{"no position, line 3", errors.New("bad"), 3, []int{3}},
		{"no error", nil, 3, nil},
	} {
		ls := &lines{path: "f"}
		ls.add(tc.err, tc.no)
		var got []int
		for _, e := range ls.errs {
			got = append(got, e.Pos.Line)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: lines %v, want %v", tc.name, got, tc.want)
		}
	}
}

// claudeRun is a whole Claude Code session, one run of one call, as
// lines.
func claudeRun(session string) string {
	return strings.Join([]string{
		`{"type":"system","subtype":"init","session_id":"` + session + `","tools":[]}`,
		`{"type":"assistant","session_id":"` + session + `","message":{"role":"assistant","content":[{"type":"tool_use","id":"u1","name":"mcp__srv__t","input":{}}]}}`,
		`{"type":"result","subtype":"success","session_id":"` + session + `","result":"done"}`,
	}, "\n")
}

// TestLinesStreamUntilProblem: each is handed the runs of a JSON Lines
// file only while the file has shown no problem, a recording spread over
// lines (a Claude Code session) or one recording per line alike: a broken
// line stops it, the runs after it are not handed out, and the file is
// refused. each may be nil.
func TestLinesStreamUntilProblem(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		runs       int
		ok         bool
	}{
		{"sessions", claudeRun("a") + "\n" + claudeRun("b"), 2, true},
		{"a broken line between sessions", claudeRun("a") + "\n{\n" + claudeRun("b"), 1, false},
		{"a wrong event between sessions", claudeRun("a") + "\n[1]\n" + claudeRun("b"), 1, false},
		{"a broken line first in a session", claudeRun("a") + "\n" + strings.Replace(claudeRun("b"), "\n", "\n{\n", 1), 1, false},
		{"recordings", v1Line("m", "p") + "\n" + v1Line("m", "p"), 2, true},
		{"a broken line between recordings", v1Line("m", "p") + "\n{\n" + v1Line("m", "p"), 1, false},
		{"a wrong recording between recordings", v1Line("m", "p") + "\n{\"mcptest_cassette\": 1}\n" + v1Line("m", "p"), 1, false},
	} {
		runs := 0
		_, err := Stream("f.jsonl", []byte(tc.data), func(*Cassette, *Run) { runs++ })
		if (err == nil) != tc.ok || runs != tc.runs {
			t.Errorf("%s: %d runs handed out (%v), want %d (read %v)", tc.name, runs, err, tc.runs, tc.ok)
		}
		_, err = Stream("f.jsonl", []byte(tc.data), nil)
		if (err == nil) != tc.ok {
			t.Errorf("%s without each: %v, want read %v", tc.name, err, tc.ok)
		}
	}
}

// TestLinesLostCalls: a recording spread over lines read with runs and
// no calls is refused at the first line holding call-shaped data; one
// with a call, or with no call-shaped data, is read; a file already
// refused for a broken line is refused for that alone.
func TestLinesLostCalls(t *testing.T) {
	initLine := `{"type":"system","subtype":"init","session_id":"s","tools":[]}`
	say := `{"type":"assistant","session_id":"s","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}`
	lost := `{"type":"assistant","session_id":"s","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},"x-log":{"type":"tool_use","name":"t"}}`
	result := `{"type":"result","subtype":"success","session_id":"s","result":"done"}`
	for _, tc := range []struct {
		name  string
		lines []string
		want  string // "" to read the file
	}{
		{"no calls, nothing call-shaped", []string{initLine, say, result}, ""},
		{"no calls, call-shaped data", []string{initLine, lost, result}, `f.jsonl:2:`},
		{"a call, call-shaped data", []string{initLine, lost, claudeToolUse("u1", "mcp__srv__t", ""), result}, ""},
		{"no calls, call-shaped data, a broken line", []string{initLine, lost, "{", result}, `f.jsonl:3:`},
	} {
		_, err := Read("f.jsonl", []byte(strings.Join(tc.lines, "\n")))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want read", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error at %s", tc.name, err, tc.want)
		case tc.want != "" && strings.Count(err.Error(), "f.jsonl:") != 1:
			t.Errorf("%s: %v, want one error", tc.name, err)
		}
	}
}

// TestLineSyntaxMessages: a line of a JSON Lines file cut short is
// reported as ending before its value is complete; any other syntax
// error keeps encoding/json's message.
func TestLineSyntaxMessages(t *testing.T) {
	for _, tc := range []struct {
		line, want string
	}{
		{`{"a": 1`, "f.jsonl:2:8: invalid JSON: the line ends before the JSON value is complete (a JSON Lines file holds one value per line)"},
		{`{"a": tru`, "f.jsonl:2:10: invalid JSON: the line ends before the JSON value is complete (a JSON Lines file holds one value per line)"},
		{`{"a": x}`, "f.jsonl:2:7: invalid JSON: invalid character 'x' looking for beginning of value"},
		{`{"a": 1}}`, "f.jsonl:2:9: invalid JSON: invalid character '}' after top-level value"},
	} {
		_, err := Read("f.jsonl", []byte(v1Line("m", "p")+"\n"+tc.line+"\n"))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", tc.line, err, tc.want)
		}
	}
}

// TestLinesOwnModel: each run of a file of recordings, one per line, is
// handed the file's cassette with its own line's model and provider: the
// file's cassette itself when both are the first line's, a copy with the
// line's when either differs.
func TestLinesOwnModel(t *testing.T) {
	data := strings.Join([]string{
		v1Line("m1", "p1"), v1Line("m1", "p1"), v1Line("m2", "p1"), v1Line("m1", "p2"), v1Line("m2", "p2"),
	}, "\n")
	var got []string
	var first *Cassette
	c, err := Stream("f.jsonl", []byte(data), func(c *Cassette, _ *Run) {
		if first == nil {
			first = c
		}
		got = append(got, fmt.Sprintf("%s/%s %v", c.Model, c.Provider, c == first))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "m1/p1 true, m1/p1 true, m2/p1 false, m1/p2 false, m2/p2 false"
	if strings.Join(got, ", ") != want || c != first || c.Model != "m1" || c.Provider != "p1" {
		t.Errorf("runs see %q, want %q; the file is %s/%s", strings.Join(got, ", "), want, c.Model, c.Provider)
	}
}
