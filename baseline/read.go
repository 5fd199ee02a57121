package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcptest/mcptest/report"
)

// MaxEnvelopeBytes bounds the size of an envelope read from a file.
const MaxEnvelopeBytes = 256 << 20

// ReadBaseline decodes a baseline envelope. Unlike a run to render, a
// baseline of another schema_version is not refused: it comes back with
// only its schema_version and tool, and Compare reports every case as not
// comparable. A document that is not a run envelope at all is an error (a
// text that is not JSON, report.Placed's).
func ReadBaseline(r io.Reader, name string) (*report.Envelope, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxEnvelopeBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > MaxEnvelopeBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB, which no run envelope is", name, MaxEnvelopeBytes>>20)
	}
	if err := report.PlaceBudget(name, data); err != nil {
		return nil, err
	}
	var head struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, report.Placed(fmt.Errorf("%s: not a run envelope: %w", name, err), bytes.NewReader(data), name)
	}
	if head.SchemaVersion == nil {
		return nil, fmt.Errorf("%s: not a run envelope: no schema_version", name)
	}
	if *head.SchemaVersion != report.SchemaVersion {
		env := &report.Envelope{SchemaVersion: *head.SchemaVersion}
		var tool struct {
			Tool report.ToolInfo `json:"tool"`
		}
		if json.Unmarshal(data, &tool) == nil {
			env.Tool = tool.Tool
		}
		if err := env.Check(); err != nil {
			return nil, fmt.Errorf("%s: not a run envelope: %w", name, err)
		}
		return env, nil
	}
	var env report.Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, report.Placed(fmt.Errorf("%s: not a run envelope: %w", name, err), bytes.NewReader(data), name)
	}
	if err := env.Check(); err != nil {
		return nil, fmt.Errorf("%s: not a run envelope: %w", name, err)
	}
	return &env, nil
}
