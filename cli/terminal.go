package cli

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// IsTerminal reports whether w is a terminal, seeing through a writer
// that wraps another and says so with Unwrap() io.Writer (the mask every
// command's output passes).
func IsTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// IsTerminalInput reports whether r is a terminal: input someone types,
// not a program's.
func IsTerminalInput(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Color reports whether output to w may be coloured with --color auto
// (UseColor).
func Color(getenv func(string) string, w io.Writer) bool {
	return UseColor(ColorAuto, getenv, w)
}

// ColorMode is the value of a --color flag: auto, always or never.
type ColorMode string

// The colour modes.
const (
	ColorAuto   ColorMode = "auto"
	ColorAlways ColorMode = "always"
	ColorNever  ColorMode = "never"
)

// String implements flag.Value.
func (m *ColorMode) String() string {
	if m == nil || *m == "" {
		return string(ColorAuto)
	}
	return string(*m)
}

// Set implements flag.Value.
func (m *ColorMode) Set(s string) error {
	switch ColorMode(s) {
	case ColorAuto, ColorAlways, ColorNever:
		*m = ColorMode(s)
		return nil
	}
	return fmt.Errorf("expected auto, always or never")
}

// UseColor reports whether output to w is coloured, as gh decides it:
// NO_COLOR set (https://no-color.org) wins over everything, --color
// always and never come next; with auto, CLICOLOR_FORCE set (and not 0)
// forces colour, CLICOLOR=0 turns it off, a GitHub Actions log
// (GITHUB_ACTIONS=true), which renders ANSI colour, counts as a colour
// terminal, and otherwise w must be a terminal.
func UseColor(mode ColorMode, getenv func(string) string, w io.Writer) bool {
	switch {
	case getenv("NO_COLOR") != "":
		return false
	case mode == ColorAlways:
		return true
	case mode == ColorNever:
		return false
	case getenv("CLICOLOR_FORCE") != "" && getenv("CLICOLOR_FORCE") != "0":
		return true
	case getenv("CLICOLOR") == "0":
		return false
	case getenv("GITHUB_ACTIONS") == "true":
		return true
	}
	return IsTerminal(w)
}
