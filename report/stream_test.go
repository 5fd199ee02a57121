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
	"unicode"

	"github.com/mcptest/mcptest/internal/diag"
)

// drawJSON writes a value for a Go type t drawn from r, as a JSON text an
// envelope may hold: mostly of the type (every field of a struct in a
// drawn order, some with their names in another case, some given twice,
// some unknown), sometimes of another type or null, with strings that
// hold escapes, control characters, invalid UTF-8 and non-ASCII text and
// numbers that are fractional, exponents or out of range. It is driven by
// the type alone, so a field added to CaseResult is drawn too.
func drawJSON(r *rand.Rand, b *bytes.Buffer, t reflect.Type, depth int, strict bool) {
	if !strict && (depth > 6 || r.IntN(40) == 0) {
		drawAny(r, b, depth+1, strict)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if r.IntN(6) == 0 || depth > 6 {
			b.WriteString("null")
			return
		}
		drawJSON(r, b, t.Elem(), depth, strict)
	case reflect.Struct:
		b.WriteByte('{')
		n := 0
		member := func(name string, ft reflect.Type) {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			space(r, b)
			drawString(r, b, name, strict)
			space(r, b)
			b.WriteByte(':')
			space(r, b)
			drawJSON(r, b, ft, depth+1, strict)
		}
		for _, i := range r.Perm(t.NumField()) {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() || r.IntN(5) == 0 {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if r.IntN(12) == 0 {
				name = strings.ToUpper(name[:1]) + name[1:]
			}
			if r.IntN(30) == 0 {
				name = strings.ToUpper(name)
			}
			member(name, f.Type)
			if r.IntN(25) == 0 {
				member(name, f.Type) // given twice: the last wins
			}
		}
		if r.IntN(8) == 0 {
			member("unknown_"+fmt.Sprint(r.IntN(3)), reflect.TypeFor[struct{}]())
		}
		space(r, b)
		b.WriteByte('}')
	case reflect.Slice:
		if r.IntN(10) == 0 {
			b.WriteString("null")
			return
		}
		b.WriteByte('[')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			space(r, b)
			drawJSON(r, b, t.Elem(), depth+1, strict)
		}
		b.WriteByte(']')
	case reflect.Map:
		if r.IntN(10) == 0 {
			b.WriteString("null")
			return
		}
		b.WriteByte('{')
		keys := []string{"reliability.class", "reliability.runs", "reliability.passed_runs", "tool_selection.f1", "a", "A", "é", "x\ny"}
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			drawString(r, b, keys[r.IntN(len(keys))], strict)
			b.WriteByte(':')
			drawJSON(r, b, t.Elem(), depth+1, strict)
		}
		b.WriteByte('}')
	case reflect.String:
		words := []string{"pass", "fail", "inconclusive", "agent", "scenario", "stable_pass", "flaky", "replay", "suite.yml", "search"}
		if r.IntN(2) == 0 {
			drawString(r, b, words[r.IntN(len(words))], strict)
		} else {
			drawString(r, b, drawText(r), strict)
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		nums := []string{"0", "1", "2", "-1", "-0", "7", "9223372036854775807", "2147483648", "1.0", "1e2", "1.5", "9223372036854775808", "99999999999999999999"}
		if strict {
			nums = nums[:8]
		}
		b.WriteString(nums[r.IntN(len(nums))])
	case reflect.Float64:
		nums := []string{"0", "1", "0.5", "-2.25", "1e2", "1E-3", "67", "-0", "100", "1e400"}
		if strict {
			nums = nums[:9]
		}
		b.WriteString(nums[r.IntN(len(nums))])
	case reflect.Bool:
		b.WriteString([]string{"true", "false"}[r.IntN(2)])
	default:
		drawAny(r, b, depth+1, strict)
	}
}

func space(r *rand.Rand, b *bytes.Buffer) {
	if r.IntN(3) == 0 {
		b.WriteString([]string{" ", "\n  ", "\t", "\r\n", ""}[r.IntN(5)])
	}
}

// drawAny is a JSON value of any type.
func drawAny(r *rand.Rand, b *bytes.Buffer, depth int, strict bool) {
	switch k := r.IntN(8); {
	case k == 0 || depth > 8:
		lits := []string{"null", "true", "false", "0", "-1.5e3", "12345678901234567890", "1e400"}
		if strict {
			lits = lits[:6]
		}
		b.WriteString(lits[r.IntN(len(lits))])
	case k == 1:
		drawString(r, b, drawText(r), strict)
	case k == 2:
		b.WriteString("[")
		for i := range r.IntN(3) {
			if i > 0 {
				b.WriteByte(',')
			}
			drawAny(r, b, depth+1, strict)
		}
		b.WriteString("]")
	case k == 3:
		b.WriteString("{")
		for i := range r.IntN(3) {
			if i > 0 {
				b.WriteByte(',')
			}
			drawString(r, b, drawText(r), strict)
			b.WriteByte(':')
			drawAny(r, b, depth+1, strict)
		}
		b.WriteString("}")
	default:
		b.WriteString(fmt.Sprint(r.IntN(100)))
	}
}

// drawText is a string's text, raw: ASCII, non-ASCII, control
// characters, invalid UTF-8.
func drawText(r *rand.Rand) string {
	parts := []string{"case", " ", "é", "日本", "\u2028", "\u202e", "\x7f", "\t", "\x01", "\xff", "\xc3", "\\", "\"", "/", "<b>", "K"}
	var s strings.Builder
	for range r.IntN(6) {
		s.WriteString(parts[r.IntN(len(parts))])
	}
	return s.String()
}

// drawString writes s as a JSON string, escaped in one of several ways:
// encoding/json's, \u escapes for some characters, or raw (a raw control
// character is invalid JSON, invalid UTF-8 is taken as U+FFFD).
func drawString(r *rand.Rand, b *bytes.Buffer, s string, strict bool) {
	switch r.IntN(6) {
	case 0:
		b.WriteByte('"')
		for _, c := range []byte(s) {
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < 0x20 && (strict || r.IntN(8) > 0):
				fmt.Fprintf(b, `\u%04x`, c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
	case 1:
		b.WriteByte('"')
		for _, c := range s {
			if c == unicode.ReplacementChar || c < 0x80 && c != '"' && c != '\\' && c >= 0x20 {
				b.WriteRune(c)
				continue
			}
			fmt.Fprintf(b, `\u%04x`, c)
		}
		b.WriteByte('"')
	default:
		data, _ := json.Marshal(s)
		b.Write(data)
	}
}

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
			drawJSON(r, &cases, reflect.TypeFor[CaseResult](), 0, r.IntN(3) > 0)
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

// mutate changes data at a drawn place: cut, a byte dropped, replaced or
// added.
func mutate(r *rand.Rand, data []byte) []byte {
	if len(data) == 0 {
		return data
	}
	i := r.IntN(len(data))
	out := bytes.Clone(data)
	switch r.IntN(4) {
	case 0:
		return out[:i]
	case 1:
		return append(out[:i], data[i+1:]...)
	case 2:
		out[i] = `{}[],:" \x0a0-e.tn\`[r.IntN(17)]
		return out
	default:
		return append(append(out[:i:i], `{}[],:"`[r.IntN(7)]), data[i:]...)
	}
}

// readStream reads an envelope as the streamed commands do: every case,
// then the head.
func readStream(data []byte) (*Envelope, error) {
	cr, err := NewCaseReader(bytes.NewReader(data), "e.json")
	if err != nil {
		return nil, err
	}
	var cases []*CaseResult
	for {
		c, err := cr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	env, err := cr.Envelope()
	if err != nil {
		return nil, err
	}
	out := *env
	out.Cases = cases
	return &out, nil
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
			data = mutate(r, data)
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
	} {
		_, err := readStream([]byte(tc.data))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.data, err, tc.want)
		}
	}
}

// FuzzDecodeCase holds DecodeCase to encoding/json's Unmarshal: it
// refuses what Unmarshal refuses, and decodes what Unmarshal decodes to
// the same value.
func FuzzDecodeCase(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 40 {
		var b bytes.Buffer
		drawJSON(r, &b, reflect.TypeFor[CaseResult](), 0, r.IntN(2) == 0)
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"targets":{"a":1},"targets":{"b":2},"cassettes":{"files":1},"cassettes":{"sha256":"x"}}`))
	f.Add([]byte(`{"NAME":"x","Name":"y","runs":-0,"assertions":[{"matcher":{"x":1e400}}]}`))
	f.Add([]byte("{\"name\":\"a\xffb\\ud800\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var want CaseResult
		werr := json.Unmarshal(data, &want)
		got, gerr := DecodeCase(data)
		switch {
		case werr != nil && gerr == nil:
			t.Fatalf("DecodeCase decoded what Unmarshal refuses (%v): %q", werr, data)
		case werr == nil && gerr != nil:
			t.Fatalf("DecodeCase refused what Unmarshal decodes: %v: %q", gerr, data)
		case werr == nil && got != nil && !reflect.DeepEqual(*got, want):
			t.Fatalf("DecodeCase decoded\n%+v\nUnmarshal\n%+v\nfrom %q", *got, want, data)
		case werr == nil && got == nil && !bytes.Equal(bytes.TrimSpace(data), []byte("null")):
			t.Fatalf("DecodeCase gave no case for %q", data)
		}
	})
}

// TestDecodeCaseIsUnmarshal runs FuzzDecodeCase's property over drawn
// cases and their mutations on every test run.
func TestDecodeCaseIsUnmarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	decoded := 0
	for round := range 6000 {
		var b bytes.Buffer
		drawJSON(r, &b, reflect.TypeFor[CaseResult](), 0, round%4 < 2)
		data := b.Bytes()
		if round%2 == 1 {
			data = mutate(r, data)
		}
		var want CaseResult
		werr := json.Unmarshal(data, &want)
		got, gerr := DecodeCase(data)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("round %d: Unmarshal %v, DecodeCase %v: %q", round, werr, gerr, data)
		}
		if werr == nil && got != nil && !reflect.DeepEqual(*got, want) {
			t.Fatalf("round %d: DecodeCase decoded\n%+v\nUnmarshal\n%+v\nfrom %q", round, *got, want, data)
		}
		if werr == nil {
			decoded++
		}
	}
	if decoded < 1000 {
		t.Fatalf("only %d of 6,000 drawn cases decoded: the draw is lopsided", decoded)
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

// BenchmarkDecodeCase: DecodeCase against encoding/json's Unmarshal on a
// case of the generator corpus (docs/architecture.md, "Library or copy").
func BenchmarkDecodeCase(b *testing.B) {
	raw := benchCase()
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var c CaseResult
			if err := json.Unmarshal(raw, &c); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeCase", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := DecodeCase(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
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
