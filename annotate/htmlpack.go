package annotate

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"

	"github.com/mcptest/mcptest/report"
)

// A page keeps its first 512 KiB of case details and Review-first
// problem lists as HTML; the rest it holds packed: rendered by the same
// templates, gathered in chunks, each a JSON array of the pieces' HTML,
// gzip-compressed and base64-encoded in a <template> at the end of the
// page, which the page's script decodes (DecompressionStream) when a
// reader opens a case or a problem list. Rendered HTML of thousands of
// cases is very repetitive, so a chunk compresses about twentyfold, and
// a run of 2,000 failing cases stays a few megabytes, its first screen as
// light as a small run's. The pieces are HTML the templates escaped;
// the script still imports them through its allow-list of the elements
// and attributes the templates write (report.js), so a damaged or forged
// pack can add no markup of its own.
const (
	htmlInlineBudget = 512 << 10
	packItems        = 64
	packBytes        = 256 << 10
)

// inlineBudget is htmlInlineBudget; tests lower it.
var inlineBudget = htmlInlineBudget

// htmlPack is one chunk of packed pieces: base64url (whose alphabet
// html/template leaves as it is) of the gzip of a JSON
// array of HTML strings.
type htmlPack struct {
	ID   int
	Data string
}

// packer decides which pieces stay inline and packs the others.
type packer struct {
	left   int
	packs  []htmlPack
	cur    []string
	curLen int
}

// place returns "" when s stays inline (the budget still holds it), else
// the reference "chunk.item" of s in the packs.
func (p *packer) place(s string) (string, error) {
	if len(s) <= p.left {
		p.left -= len(s)
		return "", nil
	}
	if len(p.cur) == packItems || p.curLen+len(s) > packBytes && len(p.cur) > 0 {
		if err := p.flush(); err != nil {
			return "", err
		}
	}
	p.cur = append(p.cur, s)
	p.curLen += len(s)
	return fmt.Sprintf("%d.%d", len(p.packs), len(p.cur)-1), nil
}

// flush compresses the current chunk into a pack.
func (p *packer) flush() error {
	if len(p.cur) == 0 {
		return nil
	}
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p.cur); err != nil {
		return fmt.Errorf("pack html: %w", err)
	}
	var z bytes.Buffer
	w, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("pack html: %w", err)
	}
	if _, err := w.Write(js.Bytes()); err != nil {
		return fmt.Errorf("pack html: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("pack html: %w", err)
	}
	p.packs = append(p.packs, htmlPack{ID: len(p.packs), Data: base64.URLEncoding.EncodeToString(z.Bytes())})
	p.cur, p.curLen = nil, 0
	return nil
}

// packPage renders the problem lists of the Review-first cases (review,
// indexes into d.Cases, in order) and every case's detail, failing and
// inconclusive cases first, and keeps each inline while the page's budget
// lasts, packing the others.
func packPage(d *htmlData, review []int) error {
	p := &packer{left: inlineBudget}
	for _, i := range review {
		c := &d.Cases[i]
		s, err := renderPart("problems", c)
		if err != nil {
			return err
		}
		if c.ProblemsPack, err = p.place(s); err != nil {
			return err
		}
		if c.ProblemsPack == "" {
			c.ProblemsHTML = template.HTML(s)
		}
	}
	for _, i := range detailOrder(d.Cases) {
		c := &d.Cases[i]
		s, err := renderPart("detail", c)
		if err != nil {
			return err
		}
		if c.Pack, err = p.place(s); err != nil {
			return err
		}
		if c.Pack == "" {
			c.Detail = template.HTML(s)
		}
	}
	if err := p.flush(); err != nil {
		return err
	}
	d.Packs = p.packs
	return nil
}

// detailOrder is the order in which cases' details claim the inline
// budget: failing and inconclusive cases first, then passing ones, each
// in suite order.
func detailOrder(cases []htmlCase) []int {
	var first, rest []int
	for i, c := range cases {
		if c.Verdict != string(report.Pass) {
			first = append(first, i)
		} else {
			rest = append(rest, i)
		}
	}
	return append(first, rest...)
}

// renderPart renders one named template of the page to a string.
func renderPart(name string, data any) (string, error) {
	var buf bytes.Buffer
	if err := htmlPage().ExecuteTemplate(&buf, name, data); err != nil {
		return "", fmt.Errorf("render html report: %w", err)
	}
	return buf.String(), nil
}
