package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"
)

// ProgressMode is how a run shows its progress on stderr.
type ProgressMode int

// The progress modes.
const (
	// ProgressOff shows nothing: --quiet, a machine format on stdout, or
	// no terminal and no CI.
	ProgressOff ProgressMode = iota
	// ProgressLive rewrites one line of a terminal, once the run has
	// taken ProgressAfter, at most every 100 ms.
	ProgressLive
	// ProgressLog prints a line to a log (CI) every interval, and at each
	// tenth of the work once the first line is out (at most one a second).
	ProgressLog
)

// ProgressAfter is how long a run goes before the live line shows: a run
// shorter than that prints nothing but its report.
const ProgressAfter = time.Second

// ProgressEvery is how often a CI log gets a progress line by default.
const ProgressEvery = 10 * time.Second

// Status is how far a run has come, as the progress line shows it.
type Status struct {
	// Done of Total cases are finished; Failed of them failed.
	Done, Total, Failed int
	// Fraction is the part of the run's work done, 0 to 1, the ETA's base.
	Fraction float64
	// Case and Server are the live case in flight and its server; "" for
	// none.
	Case, Server string
}

// Progress shows a run's Status on stderr as its mode says. The zero
// value, and a Progress of mode ProgressOff, show nothing.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	mode  ProgressMode
	every time.Duration
	now   func() time.Time
	start time.Time
	last  time.Time // when the line was last written
	tenth int       // ProgressLog: the tenth of the work the last line showed
	shown bool
	width int // the terminal's columns, 0 when unknown
	// tick is how often the last status is shown again while nothing
	// changes (a live case that takes its time), 0 for never; stop ends
	// the goroutine that does it.
	tick   time.Duration
	stop   chan struct{}
	status Status
}

// NewProgress returns the progress of a run that starts now, on w in
// mode; every is ProgressLog's interval (ProgressEvery when 0).
func NewProgress(w io.Writer, mode ProgressMode, every time.Duration) *Progress {
	if mode == ProgressOff || w == nil {
		return &Progress{}
	}
	if every <= 0 {
		every = ProgressEvery
	}
	p := &Progress{w: w, mode: mode, every: every, now: time.Now, tick: 250 * time.Millisecond}
	p.start = p.now()
	if f, ok := w.(*os.File); ok && mode == ProgressLive {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			p.width = cols
		}
	}
	return p
}

// ChooseProgress picks the mode of a run's progress on stderr: off when
// quiet or when the report on stdout is for a machine, the live line when
// stderr is a terminal, log lines on CI, else off.
func ChooseProgress(quiet, machineStdout bool, stderr io.Writer, onCI bool) ProgressMode {
	switch {
	case quiet || machineStdout:
		return ProgressOff
	case IsTerminal(stderr):
		return ProgressLive
	case onCI:
		return ProgressLog
	}
	return ProgressOff
}

// Update shows s when the mode's pace allows; the last case finished is
// always shown on a line that is already out. Until Clear, s is shown
// again at the mode's pace while no update comes, so the elapsed time and
// the live case in flight show during a long case too.
func (p *Progress) Update(s Status) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status = s
	if p.tick > 0 && p.stop == nil {
		p.stop = make(chan struct{})
		go p.repeat(p.stop, p.tick) // read here, under the lock: Clear zeroes it
	}
	p.show(s)
}

// repeat shows the last status every tick until stop is closed.
func (p *Progress) repeat(stop <-chan struct{}, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			select {
			case <-stop:
			default:
				p.show(p.status)
			}
			p.mu.Unlock()
		}
	}
}

// show writes s when the mode's pace allows.
func (p *Progress) show(s Status) {
	now := p.now()
	elapsed := now.Sub(p.start)
	switch p.mode {
	case ProgressLive:
		if elapsed < ProgressAfter || (now.Sub(p.last) < 100*time.Millisecond && !(p.shown && s.Done == s.Total)) {
			return
		}
		line := p.line(s, elapsed)
		if p.width > 1 && utf8.RuneCountInString(line) >= p.width {
			line = string([]rune(line)[:p.width-2]) + "…"
		}
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	case ProgressLog:
		tenth := int(s.Fraction * 10)
		due := now.Sub(p.last) >= p.every
		if p.last.IsZero() {
			due = elapsed >= p.every
		}
		if !due && !(p.shown && tenth > p.tenth && now.Sub(p.last) >= time.Second) {
			return
		}
		p.tenth = tenth
		fmt.Fprintln(p.w, p.line(s, elapsed))
	}
	p.last, p.shown = now, true
}

// line is the progress line of s after elapsed.
func (p *Progress) line(s Status, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcptest: %d/%d cases, %d failed, %s elapsed", s.Done, s.Total, s.Failed, short(elapsed))
	if s.Fraction > 0 && s.Fraction < 1 {
		eta := time.Duration(float64(elapsed) * (1 - s.Fraction) / s.Fraction)
		fmt.Fprintf(&b, ", ETA %s", short(eta))
	}
	if s.Case != "" {
		fmt.Fprintf(&b, ", running %q", s.Case)
		if s.Server != "" {
			fmt.Fprintf(&b, " on %s", strings.Map(graphic, s.Server))
		}
	}
	return b.String()
}

// graphic drops the runes that would move the cursor or colour the line.
func graphic(r rune) rune {
	if unicode.IsGraphic(r) {
		return r
	}
	return -1
}

// short is d as a person reads it on a progress line: 0.4s, 12s, 3m05s.
func short(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// Clear stops the progress and erases the live line, if it was shown,
// before the report.
func (p *Progress) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
		p.tick = 0
	}
	if p.shown && p.mode == ProgressLive {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
