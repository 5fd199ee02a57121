package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcptest/mcptest/engine"
	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/diag"
)

// validationDoc is the document `mcptest validate --format json` prints:
// the same triples the mcp-server's validate_suite verb returns.
type validationDoc struct {
	Valid  bool              `json:"valid"`
	Errors []validationError `json:"errors"`
}

type validationError struct {
	Path    string  `json:"path"`
	Message string  `json:"message"`
	Hint    *string `json:"hint"`
}

func (c *Command) validate(args []string) error {
	fs := c.newFlags("validate", "mcptest validate [--format text|json] [--config suite.yml | FILE...]")
	config := fs.String("config", "", "the suite `FILE` (default: mcptest.yml, else suite.yml, here or in a parent up to the repository root)")
	format := fs.String("format", "text", "text or json")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return inputErr("--format %q: expected text or json", *format)
	}
	if len(files) == 0 {
		f, err := c.suiteFile(*config)
		if err != nil {
			return err
		}
		files = []string{f}
	}
	var all diag.List
	for _, f := range files {
		l, err := validateFile(f)
		if err != nil {
			return err
		}
		all = append(all, l...)
	}
	if *format == "json" {
		doc := validationDocument(all)
		b, _ := json.MarshalIndent(doc, "", "  ")
		fmt.Fprintf(c.Stdout, "%s\n", b)
		if !doc.Valid {
			return silentExit(ExitInput)
		}
		return nil
	}
	if len(all) > 0 {
		return all
	}
	for _, f := range files {
		fmt.Fprintf(c.Stdout, "%s: valid\n", f)
	}
	return nil
}

// validationDocument is the one renderer of the validation document: the
// CLI's `validate --format json` and the mcp-server's validate_suite verb.
func validationDocument(all diag.List) validationDoc {
	doc := validationDoc{Valid: len(all) == 0, Errors: []validationError{}}
	for _, e := range all {
		ve := validationError{Path: e.Pointer, Message: e.Message}
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

// validateFile checks one file: a cassette when it holds JSON, else a suite.
// It is read within the limit of what it is named as (a .json or .jsonl
// file as a cassette, anything else as a suite), and a path that is not a
// regular file is refused before it is read.
func validateFile(path string) (diag.List, error) {
	var data []byte
	var err error
	if cassetteName(path) {
		data, err = cassette.Load(path, path)
	} else {
		data, err = engine.ReadSuiteFile(path)
	}
	var l diag.List
	var d *diag.Error
	switch {
	case errors.Is(err, os.ErrNotExist):
		return diag.List{{Pos: diag.Pos{File: path}, Kind: "suite", Message: "no such file"}}, nil
	case errors.As(err, &l):
		return l, nil
	case errors.As(err, &d):
		return diag.List{d}, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return validateData(path, data)
}

// cassetteName reports whether path is named as a cassette: a .json file,
// or a .jsonl file of recordings one per line.
func cassetteName(path string) bool {
	return strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".jsonl")
}

// validateData checks the content of one file named path.
func validateData(path string, data []byte) (diag.List, error) {
	var err error
	if t := bytes.TrimSpace(data); cassetteName(path) && len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		_, err = cassette.Stream(path, data, nil) // checked, not kept
	} else {
		_, err = engine.ParseSuite(path, data)
	}
	if err == nil {
		return nil, nil
	}
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
