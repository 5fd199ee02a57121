package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcptest/mcptest/annotate"
	"github.com/mcptest/mcptest/gate/quality"
	"github.com/mcptest/mcptest/gate/tokens"
	"github.com/mcptest/mcptest/live"
)

// lintDoc is the document `mcptest doctor --lint-descriptions --format
// json` prints.
type lintDoc struct {
	Tools   []quality.ToolReport `json:"tools"`
	Summary lintSummary          `json:"summary"`
}

type lintSummary struct {
	Tools     int     `json:"tools"`
	Critical  int     `json:"critical"`
	Warning   int     `json:"warning"`
	Pass      int     `json:"pass"`
	MeanScore float64 `json:"mean_score"`
	MinScore  float64 `json:"min_score"`
}

// doctor reads a target's catalog and reports on it: the connection layers
// by default, the DESC-NNN description lint with --lint-descriptions.
func (c *Command) doctor(args []string) error {
	fs := c.newFlags("doctor", "mcptest doctor [--format text|json] [--server NAME]\n       mcptest doctor [--lint-descriptions] [--format text|json] "+targetSynopsis+"\n  With no target, doctor lists the servers of the workspace's and the user's MCP configs (.mcp.json, ~/.claude.json,\n  .cursor/mcp.json, .vscode/mcp.json, Claude Desktop's) and diagnoses each; --server NAME picks one.")
	tf := addTargetFlags(fs, true)
	lint := fs.Bool("lint-descriptions", false, "run the thirteen DESC-NNN description rules over the catalog's tools")
	format := fs.String("format", "text", "text or json")
	if err := tf.parse(args); err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return inputErr("--format %q: expected text or json", *format)
	}
	if *tf.url == "" && *tf.catalog == "" && len(tf.command) == 0 && (*tf.server == "" || !flagSet(fs, "config")) && !*lint {
		return c.doctorWalk(".", *tf.server, *format, time.Duration(tf.timeout))
	}
	t, err := tf.target()
	if err != nil {
		return err
	}
	lists := live.AllLists
	if *lint {
		lists = live.ListTools
	} else {
		// The tool-surface count needs the cl100k_base tables, a few
		// hundred ms to load: load them while the server starts.
		go tokens.Count("")
	}
	cat, err := c.loadCatalog(t, lists)
	var ae *live.AuthError
	var ee *exitError
	if errors.As(err, &ee) {
		errors.As(ee.err, &ae)
	}
	if ae != nil && !*lint && *format == "text" {
		// The layers that were reached, then the one that failed.
		fmt.Fprintf(c.Stdout, "%-10s  %-4s  %s\n", "target", "ok", "streamable HTTP: "+annotate.Clean(t.URL))
		fmt.Fprintf(c.Stdout, "%-10s  %-4s  HTTP %d; see the message below\n", "auth", "FAIL", ae.Status)
	}
	if err != nil {
		return err
	}
	if !*lint {
		return c.doctorLayers(t, cat, *format)
	}
	var tools []quality.Tool
	for _, raw := range cat.RawTools() {
		tools = append(tools, quality.FromRaw(raw))
	}
	rep := quality.Assess(tools)
	doc := lintDoc{Tools: rep.Tools, Summary: lintSummary{Tools: len(rep.Tools), Critical: rep.CriticalCount, Warning: rep.WarningCount, MeanScore: rep.MeanScore, MinScore: rep.MinScore}}
	for _, tr := range rep.Tools {
		for _, f := range tr.Findings {
			if f.Severity == quality.Pass {
				doc.Summary.Pass++
			}
		}
	}
	if *format == "json" {
		return writeJSON(c.Stdout, doc)
	}
	writeLint(c.Stdout, doc)
	return nil
}

func writeLint(w io.Writer, doc lintDoc) {
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
	fmt.Fprintf(w, "\n%d tools: %d critical, %d warning, %d pass; TDQS mean %.2f, min %.2f\n", s.Tools, s.Critical, s.Warning, s.Pass, s.MeanScore, s.MinScore)
}

// doctorLayers reports each layer a catalog passed through: the target,
// the initialize handshake and the three lists, with the tool surface's
// token cost.
func (c *Command) doctorLayers(t live.Target, cat *live.Catalog, format string) error {
	surface := cat.SurfaceTokens()
	kind := "stdio"
	switch {
	case t.Catalog != "":
		kind = "catalog file"
	case t.URL != "":
		kind = "streamable HTTP"
	}
	type layer struct {
		Layer  string `json:"layer"`
		Status string `json:"status"`
		Detail string `json:"detail"`
	}
	where := t.String()
	if t.Catalog != "" {
		where = t.Catalog
	}
	layers := []layer{{"target", "ok", kind + ": " + where}}
	if t.URL != "" {
		auth := "no bearer token configured; the server did not ask for one"
		if t.BearerTokenEnv != "" {
			auth = "bearer token from env var " + t.BearerTokenEnv + " accepted"
		}
		layers = append(layers, layer{"auth", "ok", auth})
	}
	if t.Catalog == "" {
		info := "server did not name itself"
		if cat.ServerInfo != nil {
			info = fmt.Sprintf("server %s %s", cat.ServerInfo.Name, cat.ServerInfo.Version)
		}
		layers = append(layers, layer{"initialize", "ok", fmt.Sprintf("protocol %s, %s", cat.ProtocolVersion, info)})
	}
	layers = append(layers,
		layer{"tools", "ok", fmt.Sprintf("%d tools, %d tool-surface tokens (%s over name, description and inputSchema JSON)", len(cat.Tools), surface, tokens.Encoding)},
		layer{"resources", "ok", fmt.Sprintf("%d resources, %d resource templates", len(cat.Resources), len(cat.ResourceTemplates))},
		layer{"prompts", "ok", fmt.Sprintf("%d prompts", len(cat.Prompts))},
	)
	if format == "json" {
		return writeJSON(c.Stdout, struct {
			Layers            []layer `json:"layers"`
			ToolSurfaceTokens int     `json:"tool_surface_tokens"`
		}{layers, surface})
	}
	for _, l := range layers {
		fmt.Fprintf(c.Stdout, "%-10s  %-4s  %s\n", l.Layer, l.Status, annotate.Clean(l.Detail))
	}
	return nil
}
