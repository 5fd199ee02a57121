package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunProgressEnv: the interval variable is a positive duration; off
// when quiet, on CI a log.
func TestRunProgressEnv(t *testing.T) {
	var b bytes.Buffer
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == ProgressEnv {
				return v
			}
			return ""
		}
	}
	for _, v := range []string{"0s", "-1s", "soon"} {
		if _, err := RunProgress(&b, env(v), false, false, true); err == nil || !strings.Contains(err.Error(), ProgressEnv) {
			t.Errorf("%q: %v", v, err)
		}
	}
	p, err := RunProgress(&b, env("1s"), false, false, true)
	if err != nil || p.mode != ProgressLog {
		t.Errorf("CI: %+v, %v", p, err)
	}
	if p, err = RunProgress(&b, env(""), true, false, true); err != nil || p.mode != ProgressOff {
		t.Errorf("quiet: %+v, %v", p, err)
	}
}
