package engine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcptest/mcptest/cassette"
	"github.com/mcptest/mcptest/internal/diag"
)

// ValidationDoc is the validation document: what `mcptest validate
// --format json` prints and the mcp-server's validate_suite verb answers.
// Recordings, what each recording read gave (validate only), is left out
// when there is none.
type ValidationDoc struct {
	Valid      bool              `json:"valid"`
	Errors     []ValidationError `json:"errors"`
	Recordings []Recording       `json:"recordings,omitempty"`
}

// ValidationError is one error of a ValidationDoc: the JSON Pointer of
// the value, the message (with its file:line:col, 1-based, when known)
// and the hint, null when there is none.
type ValidationError struct {
	Path    string  `json:"path"`
	Message string  `json:"message"`
	Hint    *string `json:"hint"`
}

// ValidationDocument is the one renderer of the validation document.
func ValidationDocument(all diag.List) ValidationDoc {
	doc := ValidationDoc{Valid: len(all) == 0, Errors: []ValidationError{}}
	for _, e := range all {
		ve := ValidationError{Path: e.Pointer, Message: e.Message}
		if e.Pos.Line > 0 {
			ve.Message = fmt.Sprintf("%s (at %s)", e.Message, e.Pos)
		}
		if e.Hint != "" {
			h := e.Hint
			ve.Hint = &h
		}
		doc.Errors = append(doc.Errors, ve)
	}
	return doc
}

// ValidateFile checks one file: a cassette when it holds JSON (or is an
// Inspect .eval archive), else a suite. It is read within the limit of
// what it is named as (a .json, .jsonl or .eval file as a cassette,
// anything else as a suite), and a path that is
// not a regular file is refused before it is read. The list holds what is wrong
// with the file; the error is an operational failure.
func ValidateFile(path string) (diag.List, error) {
	l, _, err := ValidateFileRead(path)
	return l, err
}

// ValidateFileRead is ValidateFile that also returns what was read of the
// recordings it checked: the file itself when it is a recording, the
// recordings of its agent tests when it is a suite (those that exist;
// each one checked as well).
func ValidateFileRead(path string) (diag.List, []Recording, error) {
	var data []byte
	var err error
	if cassetteName(path) {
		data, err = cassette.Load(path, path)
	} else {
		data, err = ReadSuiteFile(path)
	}
	if errors.Is(err, os.ErrNotExist) {
		return diag.List{{Pos: diag.Pos{File: path}, Kind: "suite", Message: "no such file"}}, nil, nil
	}
	if err != nil {
		l, err := diagList(err)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path, err)
		}
		return l, nil, nil
	}
	return validateData(path, data, true)
}

// diagList is err as a list of positioned errors, or err itself when it
// is not a diag error.
func diagList(err error) (diag.List, error) {
	var l diag.List
	if errors.As(err, &l) {
		return l, nil
	}
	var d *diag.Error
	if errors.As(err, &d) {
		return diag.List{d}, nil
	}
	return nil, err
}

// cassetteName reports whether path is named as a cassette: a .json file,
// a .jsonl file of recordings one per line, or an Inspect AI .eval log.
func cassetteName(path string) bool {
	return strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".eval")
}

// ValidateData checks the content of one file named path: a cassette when
// it is named as one and the content is a JSON object or array, else a
// suite.
func ValidateData(path string, data []byte) (diag.List, error) {
	l, _, err := validateData(path, data, false)
	return l, err
}

// validateData is ValidateData, with what was read of the recording it
// is; with recordings, a suite's recordings are read and checked too.
func validateData(path string, data []byte, recordings bool) (diag.List, []Recording, error) {
	if t := bytes.TrimSpace(data); cassetteName(path) && (len(t) > 0 && (t[0] == '{' || t[0] == '[') || strings.HasSuffix(path, ".eval")) {
		rec, l, err := readRecording(path, data)
		if err != nil || l != nil {
			return l, nil, err
		}
		return nil, []Recording{rec}, nil
	}
	// validate reports no case's definition digest nor the suite's: the
	// suite is read without them (a third of building a test), and its
	// text kept unpacked (validateItems).
	s, err := parseSuiteWith(path, data, loadMode{noDigest: true}, validateItems)
	if err != nil {
		l, err := diagList(err)
		return l, nil, err
	}
	if !recordings {
		return nil, nil, nil
	}
	// The suite's text is let go while the recordings are read (it was a
	// twentieth of validate's peak resident set); suiteRecordings reads
	// it again for the line under an error of the suite, if one is found.
	s.source = nil
	return suiteRecordings(s, func() []byte {
		text, _ := ReadSuiteFile(path)
		return text
	})
}

// ValidateFiles checks each of paths with ValidateFile and returns every
// problem found, in the order of paths.
func ValidateFiles(paths []string) (diag.List, error) {
	var all diag.List
	for _, p := range paths {
		l, err := ValidateFile(p)
		if err != nil {
			return nil, err
		}
		all = append(all, l...)
	}
	return all, nil
}

// Validation is what `mcptest validate` found in its files: every error,
// and what was read of each file's recordings.
type Validation struct {
	Files  []string
	Errors diag.List
	Read   map[string][]Recording
}

// ValidateRead checks each file (ValidateFileRead); a directory names
// its suite (SuiteIn).
func ValidateRead(files []string) (*Validation, error) {
	v := &Validation{Read: map[string][]Recording{}}
	for _, f := range files {
		f = SuiteIn(f)
		l, r, err := ValidateFileRead(f)
		if err != nil {
			return nil, err
		}
		v.Files, v.Errors, v.Read[f] = append(v.Files, f), append(v.Errors, l...), r
	}
	return v, nil
}

// Document is the validation document of every file, with the recordings
// read.
func (v *Validation) Document() ValidationDoc {
	doc := ValidationDocument(v.Errors)
	for _, f := range v.Files {
		doc.Recordings = append(doc.Recordings, v.Read[f]...)
	}
	return doc
}

// WriteText writes, for files without errors, each file's status and what
// was read of its recordings, with their warnings.
func (v *Validation) WriteText(w io.Writer) {
	// A line a recording: buffered, one write for many of them.
	b := bufio.NewWriter(w)
	defer b.Flush()
	w = b
	for _, f := range v.Files {
		status := "valid"
		for _, r := range v.Read[f] {
			if r.NoCalls() {
				status = "warning: a recording holds runs without a tool call (below)"
				break
			}
		}
		fmt.Fprintf(w, "%s: %s\n", f, status)
		for _, r := range v.Read[f] {
			prefix := "  "
			if r.File != f {
				prefix = "  " + r.File + ": "
			}
			fmt.Fprintf(w, "%s%s\n", prefix, r.Text())
			for _, warn := range r.Warnings {
				fmt.Fprintf(w, "%swarning: %s\n", prefix, warn)
			}
		}
	}
}
