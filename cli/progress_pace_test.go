package cli

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// logLines runs a ProgressLog of total cases, one every step, with the
// given interval, and returns the Done of each line it printed.
func logLines(t *testing.T, every, step time.Duration, total int) []int {
	t.Helper()
	p, b, c := fakeProgress(ProgressLog, every)
	var done []int
	lines := 0
	for i := 1; i <= total; i++ {
		c.t = c.t.Add(step)
		p.Update(Status{Done: i, Total: total, Fraction: float64(i) / float64(total)})
		if n := strings.Count(b.String(), "\n"); n > lines {
			lines = n
			done = append(done, i)
		}
	}
	return done
}

// TestProgressLogPace: the CI lines of three runs, case by case: the first
// when the interval has passed (at it exactly, too), then one at each
// tenth of the work a second or more after the last line (a second
// exactly, too), and one each interval (exactly, too) when no tenth is
// passed.
func TestProgressLogPace(t *testing.T) {
	for _, tc := range []struct {
		name        string
		every, step time.Duration
		total       int
		want        []int
	}{
		// Tenths every 2 cases, 2 s apart: the first line at 10 s, then
		// each tenth.
		{"tenths", 10 * time.Second, 2 * time.Second, 20, []int{5, 6, 8, 10, 12, 14, 16, 18, 20}},
		// A tenth each second: a line each, a second after the last.
		{"a tenth a second", 5 * time.Second, time.Second, 10, []int{5, 6, 7, 8, 9, 10}},
		// No tenth for 100 s: a line each interval, at 10 s, 20 s, ...
		{"intervals", 10 * time.Second, time.Second, 1000, nil},
	} {
		got := logLines(t, tc.every, tc.step, tc.total)
		want := tc.want
		if want == nil {
			for i := 10; i <= 1000; i += 10 {
				want = append(want, i)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: lines after cases %v, want %v", tc.name, got, want)
		}
	}
}

// TestProgressLiveEdges: a line 100 ms after the last is shown; a terminal
// one column wide cuts nothing (and does not fail); a line exactly as wide
// as the terminal is cut, so the cursor never wraps; no ETA before any
// work is done.
func TestProgressLiveEdges(t *testing.T) {
	p, b, c := fakeProgress(ProgressLive, 0)
	c.t = c.t.Add(time.Second)
	p.Update(Status{Done: 1, Total: 3, Fraction: 0.3})
	c.t = c.t.Add(100 * time.Millisecond)
	p.Update(Status{Done: 2, Total: 3, Fraction: 0.6})
	if n := strings.Count(b.String(), "\r"); n != 2 {
		t.Errorf("a status 100 ms after the last line: %d lines, want 2: %q", n, b.String())
	}

	p, b, c = fakeProgress(ProgressLive, 0)
	p.width = 1
	c.t = c.t.Add(2 * time.Second)
	p.Update(Status{Done: 1, Total: 2, Fraction: 0.5})
	if !strings.Contains(b.String(), "mcptest: 1/2 cases, 0 failed, 2.0s elapsed, ETA 2.0s") {
		t.Errorf("a one-column terminal: %q", b.String())
	}

	line := "mcptest: 1/2 cases, 0 failed, 2.0s elapsed, ETA 2.0s"
	p, b, c = fakeProgress(ProgressLive, 0)
	p.width = len(line)
	c.t = c.t.Add(2 * time.Second)
	p.Update(Status{Done: 1, Total: 2, Fraction: 0.5})
	if got := strings.TrimSuffix(strings.TrimPrefix(b.String(), "\r"), "\x1b[K"); got != line[:len(line)-2]+"…" {
		t.Errorf("a line as wide as the terminal: %q", got)
	}

	p, b, c = fakeProgress(ProgressLive, 0)
	c.t = c.t.Add(2 * time.Second)
	p.Update(Status{Done: 0, Total: 2, Fraction: 0})
	if strings.Contains(b.String(), "ETA") || !strings.Contains(b.String(), "0/2 cases") {
		t.Errorf("no work done: %q", b.String())
	}
}

// TestNewProgressDefaults: ProgressOff is the zero Progress, whatever the
// writer (it starts nothing on Update); an interval of 0 or less is
// ProgressEvery, a positive one is kept.
func TestNewProgressDefaults(t *testing.T) {
	var b bytes.Buffer
	off := NewProgress(&b, ProgressOff, time.Second)
	off.Update(Status{Done: 1, Total: 2, Fraction: 0.5})
	if off.w != nil || off.stop != nil || off.tick != 0 {
		t.Errorf("ProgressOff: writer %v, repeating %v", off.w, off.stop != nil)
	}
	off.Clear()
	for every, want := range map[time.Duration]time.Duration{0: ProgressEvery, -time.Second: ProgressEvery, time.Nanosecond: time.Nanosecond, 3 * time.Second: 3 * time.Second} {
		if got := NewProgress(&b, ProgressLog, every).every; got != want {
			t.Errorf("every %v: %v, want %v", every, got, want)
		}
	}
}

// TestProgressRepeatsDuringALongCase: with the real clock, a status is
// shown again about every 250 ms while no update comes (the elapsed time
// moves during a long case), and no more after Clear.
func TestProgressRepeatsDuringALongCase(t *testing.T) {
	var b syncBuffer
	p := NewProgress(&b, ProgressLog, time.Nanosecond)
	p.Update(Status{Done: 0, Total: 1, Case: "slow"})
	time.Sleep(700 * time.Millisecond)
	p.Clear()
	n := strings.Count(b.String(), "\n")
	if n < 2 || n > 4 {
		t.Errorf("%d lines in 700 ms of one status (want 2 to 4, one every 250 ms): %q", n, b.String())
	}
	time.Sleep(300 * time.Millisecond)
	if m := strings.Count(b.String(), "\n"); m != n {
		t.Errorf("%d lines after Clear", m-n)
	}
}

// syncBuffer is a bytes.Buffer the repeating goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
