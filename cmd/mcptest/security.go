package main

import (
	"fmt"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/gate/security"
	"github.com/mcptest/mcptest/live"
)

// security scans a catalog's tool definitions with the SEC-NNN rules; a
// finding exits 1.
func (c *Command) security(args []string) error {
	fs := c.newFlags("security", "mcptest security [--format text|json] "+targetSynopsis)
	tf := addTargetFlags(fs, true)
	format := fs.String("format", "text", "text or json")
	if err := tf.parse(args); err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return inputErr("--format %q: expected text or json", *format)
	}
	t, err := tf.target()
	if err != nil {
		return err
	}
	cat, err := c.loadCatalog(t, live.ListTools)
	if err != nil {
		return err
	}
	findings := security.Scan(cat.RawTools())
	if *format == "json" {
		if findings == nil {
			findings = []security.Finding{}
		}
		err = writeJSON(c.Stdout, struct {
			Tools    int                `json:"tools"`
			Findings []security.Finding `json:"findings"`
		}{len(cat.Tools), findings})
	} else {
		for _, f := range findings {
			fmt.Fprintf(c.Stdout, "%s  %s  %s\n", f.Rule, annotate.Clean(f.Tool), annotate.Clean(f.Summary))
		}
		fmt.Fprintf(c.Stdout, "%d tools scanned, %d findings\n", len(cat.Tools), len(findings))
	}
	if err != nil {
		return err
	}
	if len(findings) > 0 {
		return errFailed
	}
	return nil
}
