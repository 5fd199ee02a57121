package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/mcptest/mcptest/report/casedraw"
)

// readAll reads every case of cr and the error that ends them (io.EOF
// at the cases' end), with where each case ends.
func readAll(cr *CaseReader) (raws [][]byte, ends []int64, err error) {
	for {
		raw, err := cr.NextRaw()
		if err != nil {
			return raws, ends, err
		}
		raws = append(raws, raw)
		ends = append(ends, cr.Offset())
	}
}

// TestResumeIsReadFromStart holds a read of an envelope's cases in two
// parts (the first from the start, the second from the comma after one
// of its cases: CasesFrom, then Resume) to the read from the start alone,
// over drawn envelopes (report's drawEnvelope, its line breaks kept or
// made spaces, some with a byte dropped, replaced or added, some with a
// byte that does not belong just after the cases' closing bracket): the same
// cases, the same count, the same head or the same error, placed at the
// same line and column; a second part that fails is one where the read
// from the start fails too; and Resume refuses a part that does not start
// where the first part's read stands.
func TestResumeIsReadFromStart(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 55))
	resumed := 0
	for round := range 3000 {
		data := drawEnvelope(r)
		if round%2 == 1 {
			data = bytes.ReplaceAll(data, []byte("\n"), []byte(" "))
		}
		if round%3 == 2 {
			data = casedraw.Mutate(r, data)
		}
		if round%5 == 4 {
			data = afterCases(data, " x")
		}
		cr, err := NewCaseReader(bytes.NewReader(data), "e.json")
		if err != nil {
			continue
		}
		want, ends, werr := readAll(cr)
		wantEnv, wantEnvErr := cr.Envelope()
		var at []int
		for k, end := range ends {
			if end < int64(len(data)) && data[end] == ',' {
				at = append(at, k)
			}
		}
		if len(at) == 0 {
			continue
		}
		k := at[r.IntN(len(at))]
		from := ends[k]
		cr2, err := NewCaseReader(bytes.NewReader(data), "e.json")
		if err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		for range k + 1 {
			raw, err := cr2.NextRaw()
			if err != nil {
				t.Fatalf("round %d: case %d: %v", round, len(got), err)
			}
			got = append(got, raw)
		}
		part := CasesFrom(bytes.NewReader(data[from:]), "e.json", from)
		rest, _, perr := readAll(part)
		what := fmt.Sprintf("round %d, split after case %d at %d", round, k, from)
		if !errors.Is(perr, io.EOF) {
			if errors.Is(werr, io.EOF) {
				t.Fatalf("%s: the second part fails (%v), the read from the start does not", what, perr)
			}
			continue
		}
		if err := cr2.Resume(part, from+1); err == nil || errors.Is(err, io.EOF) {
			t.Fatalf("%s: Resume from a place the read does not stand at: %v", what, err)
		}
		gerr := cr2.Resume(part, from)
		got = append(got, rest...)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) || cr2.Cases() != cr.Cases() {
			t.Fatalf("%s: %d cases (%d counted) then %v; from the start %d (%d) then %v", what, len(got), cr2.Cases(), gerr, len(want), cr.Cases(), werr)
		}
		if !errors.Is(gerr, io.EOF) {
			continue
		}
		env, envErr := cr2.Envelope()
		if fmt.Sprint(envErr) != fmt.Sprint(wantEnvErr) || !reflect.DeepEqual(env, wantEnv) {
			t.Fatalf("%s: head %+v, %v; from the start %+v, %v", what, env, envErr, wantEnv, wantEnvErr)
		}
		resumed++
	}
	if resumed < 500 {
		t.Fatalf("only %d reads resumed", resumed)
	}
	t.Logf("%d reads resumed", resumed)
}

// afterCases is data with bad written just after the closing bracket of
// its cases, where a read finds one.
func afterCases(data []byte, bad string) []byte {
	cr, err := NewCaseReader(bytes.NewReader(data), "e.json")
	if err != nil {
		return data
	}
	_, ends, _ := readAll(cr)
	if len(ends) == 0 {
		return data
	}
	j := int(ends[len(ends)-1])
	for j < len(data) && (data[j] == ' ' || data[j] == '\n') {
		j++
	}
	if j >= len(data) || data[j] != ']' {
		return data
	}
	return append(data[:j+1:j+1], append([]byte(bad), data[j+1:]...)...)
}
