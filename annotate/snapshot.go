package annotate

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/mcptest/mcptest/report"
)

//go:embed html/snapshot.tmpl
var snapshotTemplate string

//go:embed html/snapshot.js
var snapshotJS string

// snapshotScript is the viewer page's one script: the report's own
// (report.js: the filter, the keys, packed cases, the allow-list import)
// and the loader that reads the address (snapshot.js). Built on first
// use: 200 KB a process made before main, and only a snapshot reads it.
var snapshotScript = sync.OnceValue(func() string { return htmlJS + snapshotDictJS() + snapshotJS })

// snapshotDictJS declares the viewer's preset dictionary and its id for
// the loader, as JSON (which escapes <, > and &, so the dictionary's
// markup cannot end the script element).
func snapshotDictJS() string {
	b, err := json.Marshal(struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}{snapshotDictID(), snapshotDict})
	if err != nil {
		panic("snapshot dictionary: " + err.Error()) // two strings: cannot fail
	}
	return "var mcptestSnapshotDict = " + string(b) + ";\n"
}

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
	sum := sha256.Sum256([]byte(snapshotScript()))
	csp := "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"
	var buf bytes.Buffer
	t := template.Must(template.New("snapshot").Parse(snapshotTemplate))
	if err := t.Execute(&buf, struct {
		CSP string
		CSS template.CSS
		JS  template.JS
	}{csp, template.CSS(htmlCSS), template.JS(snapshotScript())}); err != nil {
		panic("snapshot page: " + err.Error()) // a static template: cannot fail
	}
	return buf.Bytes()
}

// What a snapshot address keeps of a run's evidence, so that the address
// stays a few kilobytes however long the recordings are: one run a case
// (its first failing run, else its first), each argument, result and
// final response clipped at snapshotText characters with no "full"
// toggle, and timelines within snapshotEvidenceBudget bytes over the
// whole page (failing cases first, as the report spends its own budget).
// The rest is in the envelope the address names and in `mcptest view`.
const (
	snapshotRuns           = 1
	snapshotText           = 100
	snapshotEvidenceBudget = 4 << 10
)

// The documented bound of a snapshot address (the fragment after "#", in
// bytes): SnapshotBase (the page's frame and the snapshot's share of
// timelines), and SnapshotPerPassing for each passing case and
// SnapshotPerOther for each failing or inconclusive one (its problems,
// listed twice, compress to a few hundred bytes); a one-case passing run
// within SnapshotOneCase. The evidence share is bounded by construction
// (snapshotEvidenceBudget); what a case lists besides (its figures,
// assertions, floors and findings) is not clipped, so the bound is held
// over generated runs of the generator corpus (TestSnapshotAddressBound),
// not over every run there could be.
const (
	SnapshotBase       = 7 << 9
	SnapshotPerPassing = 320
	SnapshotPerOther   = 1 << 10
	SnapshotOneCase    = 2 << 10
)

// SnapshotBound is the documented bound of a snapshot address for a run of
// passing and other cases.
func SnapshotBound(passing, other int) int {
	if passing == 1 && other == 0 {
		return SnapshotOneCase
	}
	return SnapshotBase + SnapshotPerPassing*passing + SnapshotPerOther*other
}

// snapshotEvidence returns env with each case's evidence cut to the
// snapshot's share (snapshotRuns runs, texts of snapshotText
// characters), recorded doing the same to what it reads again, and the
// snapshot's evidence budget. env itself is not changed.
func snapshotEvidence(env *report.Envelope, recorded Recorded) (*report.Envelope, Recorded, int) {
	cut := *env
	cut.Cases = make([]*report.CaseResult, len(env.Cases))
	for i, c := range env.Cases {
		cc := *c
		cc.Evidence = snapshotRunsOf(c, c.Evidence)
		cut.Cases[i] = &cc
	}
	if recorded != nil {
		inner := recorded
		recorded = func(suitePath string, c *report.CaseResult) ([]report.RunEvidence, string) {
			ev, note := inner(suitePath, c)
			return snapshotRunsOf(c, ev), note
		}
	}
	return &cut, recorded, snapshotEvidenceBudget
}

// snapshotRunsOf is the snapshot's share of runs, runs of case c: the
// ones pickRuns chooses first, each text clipped.
func snapshotRunsOf(c *report.CaseResult, runs []report.RunEvidence) []report.RunEvidence {
	if len(runs) == 0 {
		return runs
	}
	withRuns := *c
	withRuns.Evidence = runs
	picked := pickRuns(&withRuns, snapshotRuns)
	out := make([]report.RunEvidence, len(picked))
	for i, r := range picked {
		turns := make([]report.TurnEvidence, len(r.Turns))
		for ti, t := range r.Turns {
			t.FinalResponse = clip(t.FinalResponse, snapshotText)
			calls := make([]report.CallEvidence, len(t.Calls))
			for ci, call := range t.Calls {
				call.Arguments, call.Result = clip(call.Arguments, snapshotText), clip(call.Result, snapshotText)
				calls[ci] = call
			}
			t.Calls = calls
			turns[ti] = t
		}
		r.Turns = turns
		out[i] = r
	}
	return out
}

// snapshot is what a snapshot address carries: the run's report page,
// its title and verdict, and the run it renders, named by id and by the
// sha256 of its canonical envelope (the bytes `mcptest run --format json`
// writes), which `mcptest view` serves whole. An address of an earlier
// mcptest carried the envelope itself (Envelope).
// The record is under "record", not "run": an earlier address's bare
// envelope has a "run" of its own.
type snapshot struct {
	Title    string          `json:"title"`
	Verdict  string          `json:"verdict"`
	Page     string          `json:"page"`
	Run      *snapshotRun    `json:"record,omitempty"`
	Envelope json.RawMessage `json:"envelope,omitempty"`
}

type snapshotRun struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256"`
	Cases  int    `json:"cases"`
}

// Snapshot is what a snapshot address holds (ReadSnapshotFragment).
type Snapshot struct {
	// Title, Verdict and Page are the report page the address carries.
	Title, Verdict, Page string
	// RunID and EnvelopeSHA256 name the run the page renders: its id and
	// the sha256 of its canonical envelope (hex); Cases counts its cases.
	RunID, EnvelopeSHA256 string
	Cases                 int
	// Envelope is the run itself, which an address of an earlier mcptest
	// carried; nil for an address of this one.
	Envelope *report.Envelope
}

//go:embed html/snapshot.dict
var snapshotDict string

// snapshotDictID names the dictionary an address was compressed with (the
// first 8 hex digits of its sha256): the address's key is "d" and this
// id, so a viewer with another dictionary says so instead of misreading
// it. Computed on first use.
var snapshotDictID = sync.OnceValue(func() string {
	sum := sha256.Sum256([]byte(snapshotDict))
	return hex.EncodeToString(sum[:4])
})

// SnapshotFragment returns the address fragment ("dID=...") that carries
// env's report page to SnapshotPage: a JSON document (snapshot) holding
// the report page's body, with what only a file or `mcptest view` has
// left out (the viewer's links, the snapshot link) and within the
// snapshot's evidence limits (snapshotEvidence), and the run's id and
// envelope sha256; raw-deflate compressed at the best level against the
// viewer's preset dictionary (html/snapshot.dict: the markup every report
// page repeats), in unpadded base64url.
func SnapshotFragment(env *report.Envelope, rec Recorded) (string, error) {
	doc, err := snapshotDoc(env, rec)
	if err != nil {
		return "", err
	}
	return PackSnapshot(doc)
}

// PackSnapshot compresses a snapshot document (the JSON object of title,
// verdict, page and record SnapshotFragment writes) into an address
// fragment, "dID=" and the raw-deflate stream against the viewer's
// dictionary in unpadded base64url. The tests forge addresses with it: the
// viewer trusts nothing in a document.
func PackSnapshot(doc []byte) (string, error) {
	var z bytes.Buffer
	w, err := flate.NewWriterDict(&z, flate.BestCompression, []byte(snapshotDict))
	if err != nil {
		return "", err
	}
	if _, err := w.Write(doc); err != nil {
		return "", fmt.Errorf("compress snapshot: %w", err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("compress snapshot: %w", err)
	}
	return "d" + snapshotDictID() + "=" + base64.RawURLEncoding.EncodeToString(z.Bytes()), nil
}

// snapshotDoc is the JSON document a snapshot address carries for env,
// before compression.
func snapshotDoc(env *report.Envelope, rec Recorded) ([]byte, error) {
	var js bytes.Buffer
	if err := (JSON{}).Report(&js, env); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(js.Bytes())
	d, err := HTML{Recorded: rec, snapshot: true}.model(env)
	if err != nil {
		return nil, err
	}
	d.InSnapshot = true
	d.Footer.EnvelopeSHA256 = hex.EncodeToString(sum[:])
	page, err := renderPart("body", d)
	if err != nil {
		return nil, err
	}
	var doc bytes.Buffer
	enc := json.NewEncoder(&doc)
	enc.SetEscapeHTML(false)
	run := &snapshotRun{ID: env.Run.ID, SHA256: d.Footer.EnvelopeSHA256, Cases: len(env.Cases)}
	if err := enc.Encode(snapshot{Title: d.Title, Verdict: d.Verdict, Page: page, Run: run}); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return doc.Bytes(), nil
}

// maxSnapshot bounds the decompressed document a snapshot address may
// carry, as report.Read bounds an envelope.
const maxSnapshot = 256 << 20

// ReadSnapshotFragment decodes a fragment SnapshotFragment wrote (with or
// without its leading "#"), reading at most 256 MiB. An address of an
// earlier mcptest ("z=": the envelope and its page, or the bare envelope)
// reads too, its Envelope set; an address compressed against another
// dictionary than this mcptest's is refused, naming both.
func ReadSnapshotFragment(fragment string) (*Snapshot, error) {
	s := strings.TrimPrefix(fragment, "#")
	key, data, ok := strings.Cut(s, "=")
	var dict []byte
	switch {
	case !ok:
		return nil, fmt.Errorf("not a run snapshot: the fragment does not start with d%s= or z=", snapshotDictID())
	case key == "z":
	case key == "d"+snapshotDictID():
		dict = []byte(snapshotDict)
	case len(key) == 9 && key[0] == 'd':
		return nil, fmt.Errorf("not a snapshot of this mcptest: the address was compressed with dictionary %s, this mcptest's is %s; open it with the viewer the mcptest that wrote it writes", key[1:], snapshotDictID())
	default:
		return nil, fmt.Errorf("not a run snapshot: the fragment does not start with d%s= or z=", snapshotDictID())
	}
	raw, err := base64.RawURLEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("not a run snapshot: %w", err)
	}
	doc, err := io.ReadAll(io.LimitReader(flate.NewReaderDict(bytes.NewReader(raw), dict), maxSnapshot+1))
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
	out := &Snapshot{Title: snap.Title, Verdict: snap.Verdict, Page: snap.Page}
	switch {
	case snap.Run != nil:
		out.RunID, out.EnvelopeSHA256, out.Cases = snap.Run.ID, snap.Run.SHA256, snap.Run.Cases
		if snap.Page == "" {
			return nil, fmt.Errorf("not a run snapshot: no page in it")
		}
		return out, nil
	case key != "z":
		return nil, fmt.Errorf("not a run snapshot: it names no run")
	case len(snap.Envelope) == 0:
		// The earliest addresses: the bare envelope.
		out.Envelope, err = report.Read(bytes.NewReader(doc), "snapshot")
	default:
		out.Envelope, err = report.Read(bytes.NewReader(snap.Envelope), "snapshot")
	}
	if err != nil {
		return nil, err
	}
	out.RunID, out.Cases = out.Envelope.Run.ID, len(out.Envelope.Cases)
	return out, nil
}
