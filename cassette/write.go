package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// File is a v1 cassette as mcptest writes it (`mcptest record`, the
// generator in cassette/gen): the keys in the order the format
// lists them. Encode writes it; DecodeFile reads one back to add runs to
// (record --append), keeping what it does not model.
type File struct {
	Version    int                   `json:"mcptest_cassette"`
	Agent      string                `json:"agent,omitempty"`
	Model      string                `json:"model,omitempty"`
	Provider   string                `json:"provider,omitempty"`
	RecordedAt string                `json:"recorded_at,omitempty"`
	Prompt     string                `json:"prompt,omitempty"`
	Catalog    map[string]FileServer `json:"catalog,omitempty"`
	Runs       []FileRun             `json:"runs"`
	// Extensions are the x- keys of a cassette read back, written again
	// after the others, sorted, as they were read.
	Extensions map[string]json.RawMessage `json:"-"`
}

// FileServer is one server's tools/list result in the catalog. A server
// entry read back is written again as it was read (Recorded).
type FileServer struct {
	// Tools are the tool entries as the server listed them: decoded JSON
	// or json.RawMessage.
	Tools []any `json:"tools"`
	// Recorded holds an entry read back from a cassette; when set it is
	// written instead of Tools.
	Recorded json.RawMessage `json:"-"`
}

// FileRun is one run of the prompt. A run read back is written again as
// it was read (Recorded), its extensions and numbers unchanged.
type FileRun struct {
	Turns       []FileTurn       `json:"turns"`
	Delegations []FileDelegation `json:"delegations,omitempty"`
	Tokens      *FileTokens      `json:"tokens,omitempty"`
	CostMicros  *int64           `json:"cost_micros,omitempty"`
	// Recorded holds a run read back from a cassette; when set it is
	// written instead of the fields above.
	Recorded json.RawMessage `json:"-"`
}

// FileTurn is one user turn: the calls made, then the final response.
type FileTurn struct {
	Calls         []FileCall `json:"calls"`
	FinalResponse string     `json:"final_response,omitempty"`
}

// FileCall is one tool call as recorded. Arguments and Result are any
// JSON value (Result a CallToolResult object); DurationMS is in
// milliseconds.
type FileCall struct {
	Server     string  `json:"server,omitempty"`
	Tool       string  `json:"tool"`
	Arguments  any     `json:"arguments"`
	IsError    bool    `json:"is_error"`
	Result     any     `json:"result,omitempty"`
	DurationMS float64 `json:"duration_ms"`
	Agent      string  `json:"agent,omitempty"`
}

// FileDelegation is an agent-to-agent hand-off.
type FileDelegation struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// FileTokens is a run's token usage.
type FileTokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Total  int64 `json:"total"`
}

// MarshalJSON writes the server entry, or the one read back.
func (s FileServer) MarshalJSON() ([]byte, error) {
	if s.Recorded != nil {
		return s.Recorded, nil
	}
	type plain FileServer
	return marshal(plain(s))
}

// MarshalJSON writes the run, or the one read back.
func (r FileRun) MarshalJSON() ([]byte, error) {
	if r.Recorded != nil {
		return r.Recorded, nil
	}
	type plain FileRun
	return marshal(plain(r))
}

// MarshalJSON writes the cassette's keys in the format's order (no runs
// as []), then its extensions.
func (f File) MarshalJSON() ([]byte, error) {
	if f.Runs == nil {
		f.Runs = []FileRun{}
	}
	type plain File
	b, err := marshal(plain(f))
	if err != nil || len(f.Extensions) == 0 {
		return b, err
	}
	keys := make([]string, 0, len(f.Extensions))
	for k := range f.Extensions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, k := range keys {
		kb, _ := marshal(k)
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(f.Extensions[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping, as Encode writes.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Encode is the cassette's file: indented with two spaces, HTML
// characters unescaped, ending in a newline.
func (f *File) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeFile reads back a v1 cassette that Read accepted, to add runs to
// it: its provenance, its catalog entries and runs kept as they were read
// (Recorded), its x- keys as Extensions.
func DecodeFile(name string, data []byte) (*File, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var doc struct {
		Agent      string                     `json:"agent"`
		Model      string                     `json:"model"`
		Provider   string                     `json:"provider"`
		RecordedAt string                     `json:"recorded_at"`
		Prompt     string                     `json:"prompt"`
		Catalog    map[string]json.RawMessage `json:"catalog"`
		Runs       []json.RawMessage          `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// Read accepted the version: it is 1, however it was written (1.0).
	f := &File{Version: Version, Agent: doc.Agent, Model: doc.Model, Provider: doc.Provider,
		RecordedAt: doc.RecordedAt, Prompt: doc.Prompt, Runs: []FileRun{}}
	if doc.Catalog != nil {
		f.Catalog = map[string]FileServer{}
		for k, v := range doc.Catalog {
			f.Catalog[k] = FileServer{Recorded: v}
		}
	}
	for _, r := range doc.Runs {
		f.Runs = append(f.Runs, FileRun{Recorded: r})
	}
	for k, v := range top {
		if strings.HasPrefix(k, "x-") {
			if f.Extensions == nil {
				f.Extensions = map[string]json.RawMessage{}
			}
			f.Extensions[k] = v
		}
	}
	return f, nil
}
