package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/gate/quality"
	"github.com/mcptest/mcptest/gate/security"
	"github.com/mcptest/mcptest/live"
)

// The CLI's renderings of what its live commands read (tools, doctor,
// security): format "json" is the document as indented JSON, "text" one
// terminal-safe line per entry (annotate.Clean on everything the server
// said).

// WriteJSON writes v as indented JSON and a newline.
func WriteJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// WriteCatalog prints one list of cat (tools, resources, prompts or
// capabilities) as `mcptest tools|resources|prompts|capabilities` does:
// the document live.Document gives, or a line per entry with its name and
// the first line of its description, then the count. In text, the tools'
// description-poisoning warnings go to warn.
func WriteCatalog(w, warn io.Writer, what, format string, cat *live.Catalog) error {
	type row struct{ name, desc string }
	var rows []row
	switch {
	case format == "json" || what == "capabilities":
		return WriteJSON(w, live.Document(what, cat))
	case what == "tools":
		WriteWarnings(warn, cat.DescriptionWarnings())
		for _, t := range cat.Tools {
			rows = append(rows, row{t.Name, t.Description})
		}
	case what == "resources":
		for _, r := range cat.Resources {
			rows = append(rows, row{r.URI, r.Description})
		}
		for _, r := range cat.ResourceTemplates {
			rows = append(rows, row{r.URITemplate, r.Description})
		}
	case what == "prompts":
		for _, p := range cat.Prompts {
			rows = append(rows, row{p.Name, p.Description})
		}
	}
	width := 0
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(annotate.Clean(r.name)))
	}
	for _, r := range rows {
		desc, _, _ := strings.Cut(strings.TrimSpace(r.desc), "\n")
		name := annotate.Clean(r.name)
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(name))
		fmt.Fprintf(w, "%s%s  %s\n", name, pad, annotate.Clean(clipChars(desc, 100)))
	}
	fmt.Fprintf(w, "%d %s\n", len(rows), plural(len(rows), strings.TrimSuffix(what, "s"), what))
	return nil
}

// clipChars is s cut to at most n characters, the last three of a cut one
// "...": it cuts between characters, never inside a UTF-8 sequence.
func clipChars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-3]) + "..."
}

// WriteWarnings prints the description-poisoning warnings of a catalog's
// tools, one "warning: SEC-NNN tool: summary" line each.
func WriteWarnings(w io.Writer, warnings []security.Finding) {
	for _, f := range warnings {
		fmt.Fprintf(w, "warning: %s %s: %s\n", f.Rule, annotate.Clean(f.Tool), annotate.Clean(f.Summary))
	}
}

// WriteLint prints the DESC-NNN description lint of cat's tools (`mcptest
// doctor --lint-descriptions`): per tool its score, findings and
// suggestions, then the totals.
func WriteLint(w io.Writer, format string, cat *live.Catalog) error {
	doc := quality.LintTools(cat.RawTools())
	if format == "json" {
		return WriteJSON(w, doc)
	}
	for _, tr := range doc.Tools {
		fmt.Fprintf(w, "%s  (score %.2f)\n", annotate.Clean(tr.Name), tr.Score)
		for _, f := range tr.Findings {
			fmt.Fprintf(w, "  %-8s  %s  %s\n", strings.ToUpper(string(f.Severity)), f.Rule, annotate.Clean(f.Message))
			if f.Suggestion != "" {
				fmt.Fprintf(w, "  %-8s  %s  suggestion: %s\n", "", strings.Repeat(" ", len(f.Rule)), annotate.Clean(f.Suggestion))
			}
		}
	}
	s := doc.Summary
	fmt.Fprintf(w, "\n%d %s: %d critical, %d warning, %d pass; TDQS mean %.2f, min %.2f\n", s.Tools, plural(s.Tools, "tool", "tools"), s.Critical, s.Warning, s.Pass, s.MeanScore, s.MinScore)
	return nil
}

// WriteLayers prints the layers cat passed through on its way from t
// (`mcptest doctor TARGET`), live.Layers.
func WriteLayers(w io.Writer, format string, t live.Target, cat *live.Catalog) error {
	rep := live.Layers(t, cat)
	if format == "json" {
		return WriteJSON(w, rep)
	}
	for _, l := range rep.Layers {
		writeLayer(w, l.Layer, l.Status, l.Detail)
	}
	return nil
}

func writeLayer(w io.Writer, layer, status, detail string) {
	fmt.Fprintf(w, "%-10s  %-4s  %s\n", layer, status, annotate.Clean(detail))
}

// WriteAuthFailure prints, when err is a *live.AuthError, the layers a
// URL target got through before its auth failed and the one that failed;
// the error's own message says what to do.
func WriteAuthFailure(w io.Writer, t live.Target, err error) {
	var ae *live.AuthError
	if errors.As(err, &ae) {
		writeLayer(w, "target", "ok", "streamable HTTP: "+t.URL)
		writeLayer(w, "auth", "FAIL", fmt.Sprintf("HTTP %d; see the message below", ae.Status))
	}
}

// WriteSecurity prints the SEC-NNN findings on cat's tool definitions
// (`mcptest security`) and returns how many there are.
func WriteSecurity(w io.Writer, format string, cat *live.Catalog) (int, error) {
	rep := security.ScanReport{Tools: len(cat.Tools), Findings: cat.SecurityScan()}
	if rep.Findings == nil {
		rep.Findings = []security.Finding{}
	}
	if format == "json" {
		return len(rep.Findings), WriteJSON(w, rep)
	}
	for _, f := range rep.Findings {
		fmt.Fprintf(w, "%s  %s  %s\n", f.Rule, annotate.Clean(f.Tool), annotate.Clean(f.Summary))
	}
	_, err := fmt.Fprintf(w, "%d %s scanned, %d %s\n", rep.Tools, plural(rep.Tools, "tool", "tools"), len(rep.Findings), plural(len(rep.Findings), "finding", "findings"))
	return len(rep.Findings), err
}
