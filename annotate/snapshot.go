package annotate

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"

	"github.com/mcptest/mcptest/report"
)

//go:embed html/snapshot.tmpl
var snapshotTemplate string

//go:embed html/snapshot.js
var snapshotJS string

// snapshotScript is the viewer page's one script: the report's own
// (report.js: the filter, the keys, packed cases, the allow-list import)
// and the loader that reads the address (snapshot.js).
var snapshotScript = htmlJS + snapshotJS

// SnapshotPage is the run snapshot viewer: one static, self-contained page
// that shows the run carried in its own address (#z=, see
// SnapshotFragment). The address holds the run's report page as the HTML
// reporter renders it, from the same view model with the same templates,
// so the viewer shows what the report shows; the page only decodes it and
// imports it through the report script's allow-list of the elements and
// attributes those templates write, copying every string as text. It holds
// no run itself, so one copy serves every snapshot, and it loads nothing
// from any host (a Content-Security-Policy of default-src 'none' with its
// script pinned by hash).
func SnapshotPage() []byte {
	sum := sha256.Sum256([]byte(snapshotScript))
	csp := "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"
	var buf bytes.Buffer
	t := template.Must(template.New("snapshot").Parse(snapshotTemplate))
	if err := t.Execute(&buf, struct {
		CSP string
		CSS template.CSS
		JS  template.JS
	}{csp, template.CSS(htmlCSS), template.JS(snapshotScript)}); err != nil {
		panic("snapshot page: " + err.Error()) // a static template: cannot fail
	}
	return buf.Bytes()
}

// snapshot is what a snapshot address carries: the run envelope, so the
// address is the whole record, and the report page's title, verdict and
// body (everything between <body> and the script) rendered for it.
type snapshot struct {
	Title    string          `json:"title"`
	Verdict  string          `json:"verdict"`
	Page     string          `json:"page"`
	Envelope json.RawMessage `json:"envelope"`
}

// SnapshotFragment returns the address fragment ("z=...") that carries env
// to SnapshotPage: a JSON document holding env's canonical JSON and its
// report page's body (snapshot), raw-deflate compressed at the best level,
// in unpadded base64url. The body is the HTML report's, with what only a
// file or `mcptest view` has left out: the viewer's links and the snapshot
// link.
func SnapshotFragment(env *report.Envelope, rec Recorded) (string, error) {
	var js bytes.Buffer
	if err := (JSON{}).Report(&js, env); err != nil {
		return "", err
	}
	d, err := HTML{Recorded: rec}.model(env)
	if err != nil {
		return "", err
	}
	d.InSnapshot = true
	page, err := renderPart("body", d)
	if err != nil {
		return "", err
	}
	var doc bytes.Buffer
	enc := json.NewEncoder(&doc)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(snapshot{Title: d.Title, Verdict: d.Verdict, Page: page, Envelope: js.Bytes()}); err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(w, &doc); err != nil {
		return "", fmt.Errorf("compress snapshot: %w", err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("compress snapshot: %w", err)
	}
	return "z=" + base64.RawURLEncoding.EncodeToString(z.Bytes()), nil
}

// maxSnapshot bounds the decompressed document a snapshot address may
// carry, as report.Read bounds an envelope.
const maxSnapshot = 256 << 20

// ReadSnapshotFragment decodes a fragment SnapshotFragment wrote (with or
// without its leading "#") back to the envelope, reading at most 256 MiB.
// An address of an earlier mcptest, which carried the bare envelope,
// reads too.
func ReadSnapshotFragment(fragment string) (*report.Envelope, error) {
	s := fragment
	if len(s) > 0 && s[0] == '#' {
		s = s[1:]
	}
	if len(s) < 2 || s[:2] != "z=" {
		return nil, fmt.Errorf("not a run snapshot: the fragment does not start with z=")
	}
	raw, err := base64.RawURLEncoding.DecodeString(s[2:])
	if err != nil {
		return nil, fmt.Errorf("not a run snapshot: %w", err)
	}
	doc, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), maxSnapshot+1))
	if err != nil {
		return nil, fmt.Errorf("not a run snapshot: %w", err)
	}
	if len(doc) > maxSnapshot {
		return nil, fmt.Errorf("not a run snapshot: over %d bytes decompressed", maxSnapshot)
	}
	var snap snapshot
	if err := json.Unmarshal(doc, &snap); err != nil {
		return nil, fmt.Errorf("not a run snapshot: %w", err)
	}
	if len(snap.Envelope) == 0 {
		return report.Read(bytes.NewReader(doc), "snapshot")
	}
	return report.Read(bytes.NewReader(snap.Envelope), "snapshot")
}
