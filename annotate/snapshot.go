package annotate

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"

	"github.com/mcptest/mcptest/engine/report"
)

//go:embed html/snapshot.tmpl
var snapshotTemplate string

//go:embed html/snapshot.js
var snapshotJS string

// SnapshotPage is the run snapshot viewer: one static, self-contained page
// that renders the run envelope carried in its own address (#z= and the
// envelope's JSON, raw-deflate compressed, base64url without padding) in
// the browser, with the same blocks as the HTML report. It holds no run
// itself, so one copy serves every snapshot; it loads nothing from any
// host (a Content-Security-Policy of default-src 'none' with its script
// pinned by hash) and builds the page with text nodes only, so recorded
// text cannot become markup.
func SnapshotPage() []byte {
	sum := sha256.Sum256([]byte(snapshotJS))
	csp := "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"
	var buf bytes.Buffer
	t := template.Must(template.New("snapshot").Parse(snapshotTemplate))
	if err := t.Execute(&buf, struct {
		CSP string
		CSS template.CSS
		JS  template.JS
	}{csp, template.CSS(htmlCSS), template.JS(snapshotJS)}); err != nil {
		panic("snapshot page: " + err.Error()) // a static template: cannot fail
	}
	return buf.Bytes()
}

// SnapshotFragment returns the address fragment ("z=...") that carries env
// to SnapshotPage: its canonical JSON, raw-deflate compressed at the best
// level, in unpadded base64url.
func SnapshotFragment(env *report.Envelope) (string, error) {
	var js bytes.Buffer
	if err := (JSON{}).Report(&js, env); err != nil {
		return "", err
	}
	var z bytes.Buffer
	w, err := flate.NewWriter(&z, flate.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(w, &js); err != nil {
		return "", fmt.Errorf("compress snapshot: %w", err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("compress snapshot: %w", err)
	}
	return "z=" + base64.RawURLEncoding.EncodeToString(z.Bytes()), nil
}

// ReadSnapshotFragment decodes a fragment SnapshotFragment wrote (with or
// without its leading "#") back to the envelope, reading at most 256 MiB
// of JSON.
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
	return report.Read(flate.NewReader(bytes.NewReader(raw)), "snapshot")
}
