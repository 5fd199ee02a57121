package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/report/casedraw"
)

// drawEnvelope is the JSON text of an envelope of drawn cases, its head
// members around them in a drawn order.
func drawEnvelope(r *rand.Rand) []byte {
	var b bytes.Buffer
	head := []string{`"schema_version": 1`, `"tool": {"name": "mcptest", "version": "t"}`, `"run": {"id": "r", "mode": "replay", "started_at": "x"}`,
		`"suite": {"path": "suite.yml", "sha256": "abc"}`, `"verdict": "pass"`, `"totals": {"total": 1}`}
	if r.IntN(10) == 0 {
		head = append(head, `"verdict": "fail"`, `"Schema_Version": 1`)
	}
	if r.IntN(20) == 0 {
		head = append(head, `"run": {"mode": "sideways"}`)
	}
	var cases bytes.Buffer
	cases.WriteString(`"cases": [`)
	if r.IntN(15) == 0 {
		cases.Reset()
		cases.WriteString(`"cases": null`)
	} else {
		for i := range r.IntN(6) {
			if i > 0 {
				cases.WriteByte(',')
			}
			cases.WriteString("\n    ")
			if r.IntN(30) == 0 {
				cases.WriteString("null")
				continue
			}
			casedraw.JSON(r, &cases, reflect.TypeFor[CaseResult](), 0, r.IntN(3) > 0)
		}
		cases.WriteString("\n  ]")
	}
	members := append(head, cases.String())
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	b.WriteString("{\n")
	for i, m := range members {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  " + m)
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

// readStream reads an envelope as the streamed commands do: every case,
// then the head.
func readStream(data []byte) (*Envelope, error) {
	return readStreamFrom(bytes.NewReader(data))
}

// TestCaseReaderIsRead holds the streamed read to Read over drawn
// envelopes (cases of every field CaseResult has, drawn by its type; head
// members before, around and after the cases; names in other cases and
// given twice) and over the same texts cut or with a byte dropped,
// replaced or added: the stream refuses what Read refuses, and what Read
// accepts it reads to the same cases and head, or refuses for cases given
// twice (which Read takes the last of) or for data after the envelope
// (which Read does not read).
func TestCaseReaderIsRead(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 4))
	accepted, refused := 0, 0
	for round := range 4000 {
		data := drawEnvelope(r)
		if round%2 == 1 {
			data = casedraw.Mutate(r, data)
		}
		want, werr := Read(bytes.NewReader(data), "e.json")
		got, gerr := readStream(data)
		switch {
		case werr != nil && gerr == nil:
			t.Fatalf("round %d: the stream read what Read refuses (%v):\n%s", round, werr, data)
		case werr == nil && gerr != nil && !strings.Contains(gerr.Error(), "cases is given twice") && !strings.Contains(gerr.Error(), "data after the envelope's closing brace"):
			t.Fatalf("round %d: the stream refused what Read reads: %v\n%s", round, gerr, data)
		case werr == nil && gerr == nil:
			if len(want.Cases) == 0 {
				want.Cases = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d: the stream read\n%+v\nRead read\n%+v\nfrom\n%s", round, got, want, data)
			}
			accepted++
		default:
			refused++
		}
	}
	t.Logf("%d envelopes read alike, %d refused alike", accepted, refused)
	if accepted < 400 || refused < 400 {
		t.Fatalf("the draw is lopsided: %d accepted, %d refused", accepted, refused)
	}
}

// TestCaseReaderPlacesErrors: a misplaced character of the envelope's
// structure is named by its line and column, and what was expected.
func TestCaseReaderPlacesErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"{\n  \"cases\": [\n    {}\n    {}\n  ]\n}", `e.json:4:5: not a run envelope: want ',' or ']' after a case, got '{'`},
		{"{\"schema_version\": 1 \"cases\": []}", `e.json:1:22: not a run envelope: want ',' or '}' after a member, got '"'`},
		{"{\"cases\": [{\"name\": \"a\"}", `e.json:1:25: not a run envelope: want ',' or ']' after a case, got the end of the file`},
		{"{\"cases\": []} x", `e.json:1:15: not a run envelope: data after the envelope's closing brace`},
		{"{\"schema_version\" 1}", `e.json:1:19: not a run envelope: want ':' after a member name, got '1'`},
		{"{\"cases\": [{}, }", `e.json:1:16: not a run envelope: want a value, got '}'`},
		{"{\"cases\": [], \"verdict\":", `e.json:1:25: not a run envelope: want a value, got the end of the file`},
		{"{\"cases\": [], \"verdict\": \n", `e.json:2:1: not a run envelope: want a value, got the end of the file`},
		{"{\"cases\": [], \"verdict\": 1", `e.json:1:27: not a run envelope: want ',' or '}' after a member, got the end of the file`},
		{"{\"cases\": [{\"a\": 1", `e.json:1:19: not a run envelope: want the rest of the value, got the end of the file`},
	} {
		_, err := readStream([]byte(tc.data))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.data, err, tc.want)
		}
	}
}

// benchCase is a passing case as the generator corpus's lean envelope
// holds it, in the JSON reporter's layout (one line of compact JSON).
func benchCase() []byte {
	c := CaseResult{Name: "generated case 0012345", Kind: KindAgent, Verdict: Pass, Position: diag.Pos{File: "suite.yml", Line: 49383, Col: 5},
		DefinitionSHA256: strings.Repeat("ab", 32), Runs: 2,
		Cassettes: &CassetteSet{Files: 1, SHA256: strings.Repeat("cd", 32), Paths: []string{"cassettes/cassette-0012345.json"}},
		Targets:   map[string]float64{"reliability.pass_rate": 100, "tool_selection.f1": 67},
		Counts:    map[string]int64{"reliability.passed_runs": 2, "reliability.runs": 2, "tool_selection.fp": 0, "tool_selection.tp": 3},
		Assertions: []AssertionResult{{Target: "tool_selection.f1", Matcher: map[string]any{">=": 50.0}, Actual: 67.0, Passed: true,
			Message: "assertion #0 (`tool_selection.f1`)", Position: diag.Pos{File: "suite.yml", Line: 49385, Col: 11}}},
		Floors: []Floor{}, Findings: []Finding{}, Labels: map[string]string{"reliability.class": "stable_pass"}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as the JSON reporter writes it
	if err := enc.Encode(c); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// BenchmarkCaseReader: the reader's own scan of an envelope's cases
// against encoding/json's Decoder, which it replaced, reading each case's
// bytes (json.RawMessage) from an envelope of 2,000 cases.
func BenchmarkCaseReader(b *testing.B) {
	var env bytes.Buffer
	env.WriteString("{\n  \"schema_version\": 1,\n  \"cases\": [")
	for i := range 2000 {
		if i > 0 {
			env.WriteByte(',')
		}
		env.WriteString("\n    ")
		env.Write(benchCase())
	}
	env.WriteString("\n  ]\n}\n")
	data := env.Bytes()
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			dec := json.NewDecoder(bytes.NewReader(data))
			for range 4 {
				if _, err := dec.Token(); err != nil {
					b.Fatal(err)
				}
			}
			for dec.More() {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("CaseReader", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			cr, err := NewCaseReader(bytes.NewReader(data), "e.json")
			if err != nil {
				b.Fatal(err)
			}
			for {
				if _, err := cr.NextRaw(); err != nil {
					break
				}
			}
		}
	})
}

// TestAppendRawIsNextRaw: over drawn envelopes, a third mutated, reading
// the cases with AppendRaw into one buffer, kept a batch of a drawn size
// and then reused from its start, gives each case's bytes as NextRaw
// does, and the same error at the same case; a batch's earlier cases
// keep their bytes while the later ones are appended.
func TestAppendRawIsNextRaw(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 44))
	cases, failed := 0, 0
	for round := range 2000 {
		data := drawEnvelope(r)
		if round%3 == 2 {
			data = casedraw.Mutate(r, data)
		}
		var want [][]byte
		var werr error
		if cr, err := NewCaseReader(bytes.NewReader(data), "e.json"); err != nil {
			continue
		} else {
			for {
				raw, err := cr.NextRaw()
				if err != nil {
					werr = err
					break
				}
				want = append(want, raw)
			}
		}
		cr, err := NewCaseReader(bytes.NewReader(data), "e.json")
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		batch := 1 + r.IntN(4)
		buf := make([]byte, 0, r.IntN(64))
		var got, held [][]byte
		var gerr error
		for {
			if len(held) == batch {
				buf, held = buf[:0], nil
			}
			start := len(buf)
			next, err := cr.AppendRaw(buf)
			if err != nil {
				gerr = err
				break
			}
			buf = next
			raw := buf[start:len(buf):len(buf)]
			got = append(got, bytes.Clone(raw))
			held = append(held, raw)
			for k, h := range held {
				if !bytes.Equal(h, got[len(got)-len(held)+k]) {
					t.Fatalf("round %d: case %d's bytes changed as the next was appended", round, len(got)-len(held)+k)
				}
			}
		}
		if len(got) != len(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("round %d: AppendRaw read %d cases then %v, NextRaw %d then %v", round, len(got), gerr, len(want), werr)
		}
		for k := range want {
			if !bytes.Equal(got[k], want[k]) {
				t.Fatalf("round %d: case %d: AppendRaw %q, NextRaw %q", round, k, got[k], want[k])
			}
		}
		cases += len(want)
		if !errors.Is(werr, io.EOF) {
			failed++
		}
	}
	t.Logf("%d cases read alike, %d envelopes refused alike", cases, failed)
	if cases < 2000 || failed < 100 {
		t.Fatalf("the draw is lopsided: %d cases, %d refused", cases, failed)
	}
}
