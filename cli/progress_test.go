package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// clock is a Progress's clock that a test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func fakeProgress(mode ProgressMode, every time.Duration) (*Progress, *bytes.Buffer, *clock) {
	var b bytes.Buffer
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	p := NewProgress(&b, mode, every)
	p.now, p.start, p.tick = c.now, c.t, 0
	return p, &b, c
}

// TestProgressOff: the zero value and ProgressOff write nothing.
func TestProgressOff(t *testing.T) {
	var b bytes.Buffer
	for _, p := range []*Progress{{}, NewProgress(&b, ProgressOff, 0)} {
		p.Update(Status{Done: 1, Total: 1, Fraction: 1})
		p.Clear()
	}
	if b.Len() != 0 {
		t.Errorf("off: %q", b.String())
	}
}

// TestProgressLive: nothing in the first second; then one line rewritten
// in place at most every 100 ms with the cases, failures, elapsed time,
// ETA and the live case in flight; the last case always shown; cleared.
func TestProgressLive(t *testing.T) {
	p, b, c := fakeProgress(ProgressLive, 0)
	p.Update(Status{Done: 1, Total: 4, Fraction: 0.25})
	c.t = c.t.Add(900 * time.Millisecond)
	p.Update(Status{Done: 1, Total: 4, Fraction: 0.25})
	if b.Len() != 0 {
		t.Fatalf("within the first second: %q", b.String())
	}
	c.t = c.t.Add(100 * time.Millisecond)
	p.Update(Status{Done: 2, Total: 4, Failed: 1, Fraction: 0.5, Case: "echo \x1b[31m", Server: "every\x1bthing"})
	c.t = c.t.Add(50 * time.Millisecond)
	p.Update(Status{Done: 3, Total: 4, Failed: 1, Fraction: 0.75}) // under 100 ms: skipped
	p.Update(Status{Done: 4, Total: 4, Failed: 1, Fraction: 1})    // the last: shown
	p.Clear()
	want := "\rmcptest: 2/4 cases, 1 failed, 1.0s elapsed, ETA 1.0s, running \"echo \\x1b[31m\" on everything\x1b[K" +
		"\rmcptest: 4/4 cases, 1 failed, 1.1s elapsed\x1b[K\r\x1b[K"
	if b.String() != want {
		t.Errorf("live line\n%q\nwant\n%q", b.String(), want)
	}
	p, b, c = fakeProgress(ProgressLive, 0)
	p.width = 20
	c.t = c.t.Add(2 * time.Second)
	p.Update(Status{Done: 1, Total: 2, Fraction: 0.5})
	if got := strings.TrimSuffix(strings.TrimPrefix(b.String(), "\r"), "\x1b[K"); got != "mcptest: 1/2 cases…" {
		t.Errorf("a line wider than the terminal: %q", got)
	}
}

// TestProgressLog is a generator test: for runs of every length and pace,
// the CI lines come no sooner than the interval, then every interval or
// every tenth of the work (at most one a second); each is a whole line.
func TestProgressLog(t *testing.T) {
	for _, total := range []int{1, 7, 100, 6000} {
		for _, step := range []time.Duration{time.Millisecond, 300 * time.Millisecond, 3 * time.Second} {
			p, b, c := fakeProgress(ProgressLog, 10*time.Second)
			var at []time.Duration
			lines := 0
			for i := 1; i <= total; i++ {
				c.t = c.t.Add(step)
				p.Update(Status{Done: i, Total: total, Fraction: float64(i) / float64(total)})
				if n := strings.Count(b.String(), "\n"); n > lines {
					lines = n
					at = append(at, c.t.Sub(p.start))
				}
			}
			p.Clear()
			name := fmt.Sprintf("%d cases every %s", total, step)
			run := time.Duration(total) * step
			if run < 10*time.Second && b.Len() != 0 {
				t.Errorf("%s: a run of %s printed %q", name, run, b.String())
			}
			if run >= 12*time.Second && lines == 0 {
				t.Errorf("%s: a run of %s printed nothing", name, run)
			}
			for i, d := range at {
				if i == 0 && d < 10*time.Second || i > 0 && d-at[i-1] < time.Second {
					t.Errorf("%s: lines at %v", name, at)
					break
				}
			}
			if lines > 0 && (!strings.HasSuffix(b.String(), "\n") || strings.Contains(b.String(), "\r")) {
				t.Errorf("%s: not whole lines: %q", name, b.String())
			}
			if max := int(run/(10*time.Second)) + 11; lines > max {
				t.Errorf("%s: %d lines, more than %d", name, lines, max)
			}
		}
	}
}

// TestChooseProgress: quiet and a machine format on stdout turn it off; a
// buffer is no terminal, so CI gets the log lines and else nothing.
func TestChooseProgress(t *testing.T) {
	var b bytes.Buffer
	for _, tc := range []struct {
		quiet, machine, ci bool
		want               ProgressMode
	}{
		{false, false, false, ProgressOff},
		{false, false, true, ProgressLog},
		{true, false, true, ProgressOff},
		{false, true, true, ProgressOff},
	} {
		if got := ChooseProgress(tc.quiet, tc.machine, &b, tc.ci); got != tc.want {
			t.Errorf("%+v: mode %d, want %d", tc, got, tc.want)
		}
	}
}

// TestShort: durations as the line prints them.
func TestShort(t *testing.T) {
	for d, want := range map[time.Duration]string{
		400 * time.Millisecond: "0.4s", 12 * time.Second: "12s", 185 * time.Second: "3m05s",
	} {
		if got := short(d); got != want {
			t.Errorf("short(%v) = %q, want %q", d, got, want)
		}
	}
}
