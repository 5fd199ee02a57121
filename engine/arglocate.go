package engine

import (
	"strconv"
	"strings"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/jsonpos"
)

// argLocator places the violations of one cassette's calls as
// cassette.Locate places them, reading the file's bytes about once, not
// once a violation: it keeps where the run it found last starts and the
// line and column of the offset it placed last, and goes on from there
// when the next violation lies further on, as the violations of a file
// come in file order. Located from the file's start each time, the 200
// violations of a cassette whose 65 MB catalog comes before its runs took
// two thirds of a 10 s run, skipping the catalog and counting its lines
// once a violation.
type argLocator struct {
	data []byte
	// run and runOff are the index and offset of the run found last; run
	// is -1 for none.
	run, runOff int
	// off is the offset placed last, at line and col.
	off, line, col int
}

// reset takes data, the cassette's bytes, forgetting what was found in
// other bytes.
func (l *argLocator) reset(data []byte) {
	*l = argLocator{data: data, run: -1, line: 1, col: 1}
}

// holds reports whether data is the bytes the locator reads.
func (l *argLocator) holds(data []byte) bool {
	return len(data) == len(l.data) && (len(data) == 0 || &data[0] == &l.data[0])
}

// locate returns cassette.Locate(file, data, "/runs/<ri>"+ptr).
func (l *argLocator) locate(file string, ri int, ptr string) (diag.Pos, bool) {
	runOff := l.runAt(ri)
	if runOff < 0 {
		return cassette.Locate(file, l.data, "/runs/"+strconv.Itoa(ri)+ptr)
	}
	path := jsonpos.LocatePath(l.data[runOff:], ptr)
	for k := len(path) - 1; k >= 0; k-- {
		if off := path[k].Val; off >= 0 && runOff+off < len(l.data) {
			line, col := l.lineCol(runOff + off)
			return diag.Pos{File: file, Line: line, Col: col}, true
		}
	}
	return diag.Pos{File: file}, false
}

// runAt returns the offset of run ri of the document, -1 when the
// document is not an object whose runs hold it (the caller then asks
// cassette.Locate, which says so).
func (l *argLocator) runAt(ri int) int {
	if l.run == ri {
		return l.runOff
	}
	if l.run < 0 || ri < l.run {
		if !strings.HasPrefix(strings.TrimLeft(string(l.data[:min(len(l.data), 64)]), " \t\r\n"), "{") {
			return -1
		}
		path := jsonpos.LocatePath(l.data, "/runs/"+strconv.Itoa(ri))
		if path[2].Val < 0 {
			return -1
		}
		l.run, l.runOff = ri, path[2].Val
		return l.runOff
	}
	i := l.runOff
	for n := l.run; n < ri; n++ {
		i = jsonpos.Space(l.data, jsonpos.Skip(l.data, i))
		if i >= len(l.data) || l.data[i] != ',' {
			l.run = -1
			return -1
		}
		i = jsonpos.Space(l.data, i+1)
	}
	if i >= len(l.data) || l.data[i] == ']' {
		l.run = -1
		return -1
	}
	l.run, l.runOff = ri, i
	return i
}

// lineCol is diag.LineCol(data, off), counted on from the offset placed
// last when off lies after it.
func (l *argLocator) lineCol(off int) (int, int) {
	if off < l.off {
		l.off, l.line, l.col = 0, 1, 1
	}
	for _, r := range string(l.data[l.off:off]) {
		if r == '\n' {
			l.line++
			l.col = 1
			continue
		}
		l.col++
	}
	l.off = off
	return l.line, l.col
}
