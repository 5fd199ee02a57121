package cli

import (
	"bytes"
	"testing"
	"time"
)

// TestProgress: the line is silent off a terminal; on one it is rewritten
// at most every 100 ms, always at the end, and cleared only when shown.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	off := NewProgress(&b, "%d/%d")
	off.Update(1, 1)
	off.Clear()
	if b.Len() != 0 {
		t.Errorf("off a terminal: %q", b.String())
	}
	p := &Progress{w: &b, format: "%d/%d read", last: time.Now()}
	p.Clear()
	p.Update(1, 3)
	if b.Len() != 0 {
		t.Errorf("within 100 ms: %q", b.String())
	}
	p.Update(3, 3)
	p.Clear()
	if b.String() != "\r3/3 read\r\x1b[K" {
		t.Errorf("progress line %q", b.String())
	}
}

// TestColor: never with NO_COLOR set, never off a terminal.
func TestColor(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	if Color(env(""), &bytes.Buffer{}) || Color(env("1"), &bytes.Buffer{}) {
		t.Error("colour off a terminal")
	}
}
