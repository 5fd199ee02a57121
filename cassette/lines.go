package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcptest/mcptest/internal/diag"
)

// lineReader reads a recording whose JSON values are spread over the
// lines of a file (a Claude Code stream-json session, OTLP export requests
// written one per line) or held in one document (one event, one export
// request, or an array of them).
type lineReader interface {
	// cassette is the cassette being read, filled as lines are read.
	cassette() *Cassette
	// line reads one decoded value, the one at the walker's path, and
	// returns the runs it completes.
	line(w *walker, v any) []Run
	// finish returns the runs still open at the end of the file.
	finish() []Run
}

// newLineReader returns the reader of a recording spread over lines.
func newLineReader(f Format) lineReader {
	switch f {
	case FormatOTel:
		return newOTelReader()
	case FormatAgentsTrace:
		return newAgentsReader()
	case FormatLlamaIndexEvents:
		return newLlamaEventsReader()
	}
	return newClaudeReader()
}

// readDoc reads a whole document with r: an array is read element by
// element, anything else as one line.
func readDoc(r lineReader, w *walker, v any) []Run {
	a, ok := v.([]any)
	if !ok {
		return r.line(w, v)
	}
	var runs []Run
	for i, e := range a {
		w.pushIdx(i)
		runs = append(runs, r.line(w, e)...)
		w.pop()
	}
	return runs
}

// isLines reports whether data, which is not one JSON document, is JSON
// Lines: its first line that is not blank is a JSON value on its own and
// more follows it.
func isLines(data []byte) bool {
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return validJSON(line) && len(bytes.TrimSpace(rest)) > 0
	}
	return false
}

// lines collects the errors of a JSON Lines file, each placed in the file.
type lines struct {
	path string
	errs diag.List
	// dropped counts the errors past maxProblems, not kept.
	dropped int
}

// add records err, found in the line numbered no (1-based), whose
// positions count from that line.
func (ls *lines) add(err error, no int) {
	if err == nil {
		return
	}
	var l diag.List
	var e *diag.Error
	switch {
	case errors.As(err, &l):
	case errors.As(err, &e):
		l = diag.List{e}
	default:
		l = diag.List{&diag.Error{Pos: diag.Pos{File: ls.path, Line: 1, Col: 1}, Kind: kind, Message: err.Error()}}
	}
	for _, e := range l {
		if len(ls.errs) >= maxProblems {
			ls.dropped++
			continue
		}
		if e.Pos.Line > 0 {
			e.Pos.Line += no - 1
		}
		ls.errs = append(ls.errs, e)
	}
}

func (ls *lines) err() error {
	if len(ls.errs) == 0 {
		return nil
	}
	list := ls.errs.Sorted()
	if ls.dropped > 0 {
		list = append(list, &diag.Error{Pos: diag.Pos{File: ls.path, Line: 1, Col: 1}, Kind: kind,
			Message: fmt.Sprintf("%d more problems not shown: the file has %d, these are the first %d", ls.dropped, ls.dropped+len(list), len(list))})
	}
	return asError(list)
}

// streamLines reads a JSON Lines file. A file whose first line is a
// Claude Code stream-json event or an OTLP export request is one
// recording spread over its lines; any other holds one recording per line,
// each read as a file of its own would be, and its runs are the file's
// runs, in line order. The provenance and the catalog are the first
// line's, but each run is streamed with its own line's model and provider;
// every line is in the first line's format.
func streamLines(path string, data []byte, each func(*Cassette, *Run)) (*Cassette, error) {
	ls := &lines{path: path}
	all := data
	var file *Cassette
	var multi lineReader
	clean := func() bool { return len(ls.errs) == 0 && ls.dropped == 0 }
	nruns := 0
	a := &audit{}
	emit := func(runs []Run) {
		a.read(runs)
		nruns += len(runs)
		for i := range runs {
			if clean() && each != nil {
				each(file, &runs[i])
			}
		}
	}
	no, decided := 0, false
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		no++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !validJSON(line) {
			ls.add(lineSyntaxError(path, line), no)
			continue
		}
		if !decided {
			decided = true
			if multi = spread(line); multi != nil {
				file = multi.cassette()
			}
		}
		if multi != nil {
			runs, err := readLine(path, line, multi, a)
			ls.add(err, no)
			emit(runs)
			continue
		}
		file = ls.recordingLine(path, line, no, file, each, clean)
	}
	if multi != nil {
		emit(multi.finish())
		if ls.err() == nil {
			lostInLines(ls, all, file, a, nruns)
		}
	}
	if err := ls.err(); err != nil {
		return nil, err
	}
	if file == nil {
		return nil, errorAt(path, nil, 0, "", "the file is empty: expected a cassette, a JSON object")
	}
	file.Path = path
	return file, nil
}

// lineSyntaxError positions the syntax error of one line of a JSON Lines
// file, which holds one JSON value per line.
func lineSyntaxError(path string, line []byte) error {
	e := syntaxError(path, line, json.Unmarshal(line, new(struct{})))
	if de, ok := e.(*diag.Error); ok && strings.HasPrefix(de.Message, "invalid JSON: the file ends") {
		de.Message = "invalid JSON: the line ends before the JSON value is complete (a JSON Lines file holds one value per line)"
	}
	return e
}

// spread returns the reader of a recording spread over lines when line,
// the first of a file, starts one, else nil.
func spread(line []byte) lineReader {
	var v any
	if json.Unmarshal(line, &v) != nil {
		return nil
	}
	m, ok := v.(map[string]any)
	switch {
	case !ok:
		return nil
	case isClaudeEvent(m):
		return newClaudeReader()
	case isOTLP(m):
		return newOTelReader()
	case isAgentsTrace(m):
		return newAgentsReader()
	case isLlamaEvents([]any{m}):
		return newLlamaEventsReader()
	}
	return nil
}

// readLine decodes one line, valid JSON, and reads it with r.
func readLine(path string, line []byte, r lineReader, a *audit) ([]Run, error) {
	w := &walker{}
	d := newDecoder(line, w)
	v, _ := d.value(d.space(0))
	runs := r.line(w, v)
	if err := d.err(path); err != nil {
		return nil, err
	}
	a.walk(v)
	for name := range w.spent {
		if a.spent == nil {
			a.spent = map[string]bool{}
		}
		a.spent[name] = true
	}
	return runs, nil
}

// recordingLine reads one line holding a whole recording and returns the
// file's cassette: the first line's.
func (ls *lines) recordingLine(path string, line []byte, no int, file *Cassette,
	each func(*Cassette, *Run), clean func() bool) *Cassette {
	c, err := streamDoc(path, line, func(c *Cassette, r *Run) {
		if file == nil {
			file = c
		}
		if clean() && each != nil {
			each(ownModel(file, c), r)
		}
	}, false, false)
	if err != nil {
		ls.add(err, no)
		return file
	}
	if file == nil {
		return c
	}
	if c.Format != file.Format {
		ls.add(errorAt(path, line, 0, "", fmt.Sprintf("this line's format is %s, the first line's is %s: "+
			"the lines of a JSON Lines file are recordings in one format", c.Format, file.Format)), no)
	}
	return file
}

// ownModel is the file's cassette as a line's runs see it: with the line's
// own model and provider, so a file of responses from several models
// prices (and asserts on) each run at its own model, not the first line's.
func ownModel(file, line *Cassette) *Cassette {
	if line.Model == file.Model && line.Provider == file.Provider {
		return file
	}
	c := *file
	c.Model, c.Provider = line.Model, line.Provider
	return &c
}
