package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxCommandLines bounds the non-blank lines of cmd/mcptest's non-test Go:
// the package is flag parsing and wiring, and each command's logic lives
// in the package it belongs to (docs/architecture.md).
const maxCommandLines = 1500

// nonBlankLines counts the lines of data that hold more than white space.
func nonBlankLines(data []byte) int {
	n := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}

// TestCommandPackageSize holds cmd/mcptest under maxCommandLines non-blank
// lines of non-test Go, naming the largest files when it is over.
func TestCommandPackageSize(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	total, sizes := 0, []string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := nonBlankLines(data)
		total += n
		sizes = append(sizes, f+" "+strings.Repeat("#", n/10))
	}
	if len(sizes) < 10 {
		t.Fatalf("found %d non-test files in cmd/mcptest: is the test running in its package directory?", len(sizes))
	}
	if total >= maxCommandLines {
		t.Errorf("cmd/mcptest has %d non-blank lines of non-test Go, not under %d: move a command's logic into its package (docs/architecture.md)\n%s",
			total, maxCommandLines, strings.Join(sizes, "\n"))
	}
}

// TestNonBlankLines: the count skips blank and white-space-only lines,
// counts a last line without a newline, and agrees with grep -cv '^\s*$'.
func TestNonBlankLines(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"", 0}, {"\n\n", 0}, {"a", 1}, {"a\n", 1}, {"a\n\n \t\nb", 2}, {"\t}\n// c\n", 2}, {"\r\n", 0},
	} {
		if got := nonBlankLines([]byte(tt.in)); got != tt.want {
			t.Errorf("nonBlankLines(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
