package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxStreamBytes bounds an envelope read as a stream (CaseReader): memory
// does not grow with it, only the time the read takes.
const MaxStreamBytes = 16 << 30

// CaseReader reads a run envelope as a stream: its cases one at a time,
// each decoded and checked as Read checks it, and the rest of the envelope
// (its head: every field but cases, wherever it stands in the document)
// once the cases are read. It holds one case and the head, never the
// cases, so reading an envelope of any number of cases takes the same
// memory. The head is decoded as Read decodes it (encoding/json's rules:
// keys matched without regard to case, the last of a key given twice
// wins), refused for another schema_version and checked as
// Envelope.Check checks a head.
type CaseReader struct {
	name string
	dec  *json.Decoder
	// head is the head's fields read so far, as a JSON object's members.
	head bytes.Buffer
	// inCases is set while the cases array is being read; done once the
	// document's closing brace was read.
	inCases, done, sawCases bool
	n                       int
	env                     *Envelope
	// seen holds the head's member names read so far, lower-cased.
	seen map[string]bool
	// badCases says cases is neither an array nor null.
	badCases error
}

// skip reads past the rest of a value whose first token was tok.
func (cr *CaseReader) skip(tok json.Token) error {
	depth := 0
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		depth = 1
	}
	for depth > 0 {
		t, err := cr.dec.Token()
		if err != nil {
			return cr.wrap(err)
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
	}
	return nil
}

// NewCaseReader starts reading the envelope r holds, named name in errors,
// and reads its members up to its cases.
func NewCaseReader(r io.Reader, name string) (*CaseReader, error) {
	cr := &CaseReader{name: name, dec: json.NewDecoder(bufio.NewReaderSize(io.LimitReader(r, MaxStreamBytes), 64<<10))}
	tok, err := cr.dec.Token()
	if err != nil {
		return nil, cr.wrap(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s: not a run envelope: want a JSON object", name)
	}
	if err := cr.members(); err != nil {
		return nil, err
	}
	return cr, nil
}

func (cr *CaseReader) wrap(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%s: not a run envelope: %w", cr.name, err)
}

// members reads the object's members into the head until the cases array
// opens (inCases) or the object closes (done).
func (cr *CaseReader) members() error {
	for cr.dec.More() {
		tok, err := cr.dec.Token()
		if err != nil {
			return cr.wrap(err)
		}
		key, ok := tok.(string)
		if !ok {
			return cr.wrap(fmt.Errorf("want a member name, got %v", tok))
		}
		if strings.EqualFold(key, "cases") {
			if cr.sawCases {
				return fmt.Errorf("%s: not a run envelope: cases is given twice", cr.name)
			}
			cr.sawCases = true
			tok, err := cr.dec.Token()
			if err != nil {
				return cr.wrap(err)
			}
			switch tok {
			case nil: // "cases": null holds no case
				continue
			case json.Delim('['):
				cr.inCases = true
				return nil
			}
			// Not an array: an envelope of this schema_version is refused
			// for it (Envelope); a baseline of another one is read for its
			// head alone, as baseline.ReadBaseline reads it.
			cr.badCases = fmt.Errorf("%s: not a run envelope: cases: want an array, got %v", cr.name, tok)
			if err := cr.skip(tok); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		if err := cr.dec.Decode(&raw); err != nil {
			return cr.wrap(err)
		}
		if cr.head.Len() > 0 {
			cr.head.WriteByte(',')
		}
		if cr.seen == nil {
			cr.seen = map[string]bool{}
		}
		cr.seen[strings.ToLower(key)] = true
		k, _ := json.Marshal(key)
		cr.head.Write(k)
		cr.head.WriteByte(':')
		cr.head.Write(raw)
	}
	if _, err := cr.dec.Token(); err != nil { // the closing brace
		return cr.wrap(err)
	}
	cr.done = true
	if _, err := cr.dec.Token(); err != io.EOF {
		return fmt.Errorf("%s: not a run envelope: data after the envelope's closing brace", cr.name)
	}
	return nil
}

// NextRaw returns the next case's JSON, undecoded, and io.EOF after the
// last one; the head is then read (Envelope).
func (cr *CaseReader) NextRaw() (json.RawMessage, error) {
	if !cr.inCases {
		return nil, io.EOF
	}
	if !cr.dec.More() {
		if _, err := cr.dec.Token(); err != nil { // the closing bracket
			return nil, cr.wrap(err)
		}
		cr.inCases = false
		if err := cr.members(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	var raw json.RawMessage
	if err := cr.dec.Decode(&raw); err != nil {
		return nil, cr.wrap(err)
	}
	cr.n++
	return raw, nil
}

// Next returns the next case, decoded and checked (CaseResult.Check), and
// io.EOF after the last one.
func (cr *CaseReader) Next() (*CaseResult, error) {
	raw, err := cr.NextRaw()
	if err != nil {
		return nil, err
	}
	return cr.Decode(cr.n-1, raw)
}

// Decode decodes and checks the i-th case of the envelope from its JSON
// (NextRaw), as Next does: it may run on other goroutines than the reader.
func (cr *CaseReader) Decode(i int, raw json.RawMessage) (*CaseResult, error) {
	at := fmt.Sprintf("cases[%d]", i)
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, fmt.Errorf("%s: not a run envelope: %s is null: every case is an object", cr.name, at)
	}
	var c CaseResult
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%s: not a run envelope: %s: %w", cr.name, at, err)
	}
	if err := c.Check(at); err != nil {
		return nil, fmt.Errorf("%s: not a run envelope: %w", cr.name, err)
	}
	return &c, nil
}

// Seen reports whether the head's members read so far include key
// (matched without regard to case, as the decoder matches it): before the
// cases, whether the document puts it ahead of them.
func (cr *CaseReader) Seen(key string) bool { return cr.seen[strings.ToLower(key)] }

// Name is the name the reader gives the envelope in errors.
func (cr *CaseReader) Name() string { return cr.name }

// Cases counts the cases read so far.
func (cr *CaseReader) Cases() int { return cr.n }

// Envelope returns the head of the envelope, its Cases nil, once every
// case was read (Next returned io.EOF): decoded, checked, of this
// package's schema_version.
func (cr *CaseReader) Envelope() (*Envelope, error) {
	if cr.env != nil {
		return cr.env, nil
	}
	if !cr.done {
		return nil, fmt.Errorf("%s: the envelope's head is asked for before its cases were read", cr.name)
	}
	env, err := cr.Head()
	if err != nil {
		return nil, err
	}
	if env.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: run envelope schema_version %d, this mcptest reads %d", cr.name, env.SchemaVersion, SchemaVersion)
	}
	if cr.badCases != nil {
		return nil, cr.badCases
	}
	if err := env.checkHead(); err != nil {
		return nil, fmt.Errorf("%s: not a run envelope: %w", cr.name, err)
	}
	cr.env = env
	return env, nil
}

// Head decodes the head's members read so far, unchecked: before the
// cases, what the document puts first (an envelope this package writes
// puts schema_version, tool, run, source, suite, verdict and totals
// there).
func (cr *CaseReader) Head() (*Envelope, error) {
	var env Envelope
	doc := make([]byte, 0, cr.head.Len()+2)
	doc = append(append(append(doc, '{'), cr.head.Bytes()...), '}')
	if err := json.Unmarshal(doc, &env); err != nil {
		return nil, fmt.Errorf("%s: not a run envelope: %w", cr.name, err)
	}
	env.Cases = nil
	return &env, nil
}
