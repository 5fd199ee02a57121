package cassette

import (
	"strconv"
	"strings"
	"testing"
)

// TestV1CountBounds: a v1 token count or cost is an integer from 0 to
// 2^53 (both read), -1, 0.5 and 2^53+2 are refused; a duration is any
// number from 0, -0.001 refused.
func TestV1CountBounds(t *testing.T) {
	for _, tc := range []struct {
		field, value string
		ok           bool
	}{
		{`"tokens": {"input": %s}`, "0", true},
		{`"tokens": {"input": %s}`, "9007199254740992", true},
		{`"tokens": {"input": %s}`, "9007199254740994", false},
		{`"tokens": {"input": %s}`, "-1", false},
		{`"tokens": {"output": %s}`, "0.5", false},
		{`"cost_micros": %s`, "0", true},
		{`"cost_micros": %s`, "-1", false},
		{`"turns": [{"calls": [{"tool": "t", "duration_ms": %s}]}]`, "0", true},
		{`"turns": [{"calls": [{"tool": "t", "duration_ms": %s}]}]`, "0.25", true},
		{`"turns": [{"calls": [{"tool": "t", "duration_ms": %s}]}]`, "-0.001", false},
	} {
		doc := `{"mcptest_cassette": 1, "runs": [{` + strings.Replace(tc.field, "%s", tc.value, 1) + `}]}`
		c, err := Read("f.json", []byte(doc))
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v, want read %v", doc, err, tc.ok)
			continue
		}
		if err != nil {
			continue
		}
		r := c.Runs[0]
		switch {
		case r.Tokens != nil && strings.Contains(tc.field, "input") && r.Tokens.Input != int64(parseFloat(t, tc.value)):
			t.Errorf("%s: input %d", doc, r.Tokens.Input)
		case strings.Contains(tc.field, "duration") && (len(r.Calls()) != 1 || r.Calls()[0].DurationMS == nil || *r.Calls()[0].DurationMS != parseFloat(t, tc.value)):
			t.Errorf("%s: calls %+v", doc, r.Calls())
		}
	}
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
