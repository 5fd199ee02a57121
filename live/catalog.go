package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/internal/diag"
	"github.com/mcptest/mcptest/internal/safefile"
	"github.com/mcptest/mcptest/internal/yamlpos"
)

// Catalog is everything a server advertises: the initialize result and its
// tools, resources, resource templates and prompts, in the server's order.
type Catalog struct {
	ProtocolVersion   string                  `json:"protocolVersion,omitempty"`
	ServerInfo        *mcp.Implementation     `json:"serverInfo,omitempty"`
	Capabilities      *mcp.ServerCapabilities `json:"capabilities,omitempty"`
	Instructions      string                  `json:"instructions,omitempty"`
	Tools             []*mcp.Tool             `json:"tools"`
	Resources         []*mcp.Resource         `json:"resources,omitempty"`
	ResourceTemplates []*mcp.ResourceTemplate `json:"resourceTemplates,omitempty"`
	Prompts           []*mcp.Prompt           `json:"prompts,omitempty"`
	// PromptValues are values the server itself offers for the required
	// arguments of its prompts (completion/complete, when it advertises
	// completions), by prompt and argument name, so a scaffolded test
	// gets an argument the prompt accepts; not part of a catalog file.
	PromptValues map[string]map[string]string `json:"-"`

	// raw holds the tools of a catalog file as written, so a rule can see
	// what the typed Tools cannot hold (a non-boolean annotation hint).
	raw []map[string]any
}

// RawTools returns the tools as decoded JSON objects, one for each of
// Tools: as the catalog file or the live server wrote them (a hint that is
// not a boolean kept, a hint left out absent), as the SDK holds them for a
// catalog built in code.
func (c *Catalog) RawTools() []map[string]any {
	if c.raw != nil && len(c.raw) == len(c.Tools) {
		return c.raw
	}
	out := make([]map[string]any, 0, len(c.Tools))
	for _, t := range c.Tools {
		out = append(out, toolObject(t))
	}
	return out
}

// toolObject is a typed tool as a JSON object.
func toolObject(t *mcp.Tool) map[string]any {
	var m map[string]any
	if b, err := json.Marshal(t); err == nil && json.Unmarshal(b, &m) == nil {
		return m
	}
	return map[string]any{"name": t.Name}
}

// alignRaw pairs the typed tools of a live list with the tools as the
// server wrote them (the SDK leaves out some it cannot use): for each typed
// tool the next written one of its name, else the typed one as an object.
func alignRaw(tools []*mcp.Tool, raw []map[string]any) []map[string]any {
	out := make([]map[string]any, len(tools))
	j := 0
	for i, t := range tools {
		k := j
		for k < len(raw) && raw[k]["name"] != t.Name {
			k++
		}
		if k < len(raw) {
			out[i], j = raw[k], k+1
		} else {
			out[i] = toolObject(t)
		}
	}
	return out
}

// Lists selects the lists a live catalog is read from: a command that
// prints the tools does not page through ten thousand resources first.
type Lists uint8

// The lists of a catalog; AllLists is every one.
const (
	ListTools Lists = 1 << iota
	// ListResources is resources/list and resources/templates/list.
	ListResources
	ListPrompts
	AllLists = ListTools | ListResources | ListPrompts
)

// Load reads a target's catalog: a saved file, or a live server's lists.
func Load(ctx context.Context, t Target, getenv func(string) string) (*Catalog, error) {
	return LoadLists(ctx, t, getenv, AllLists)
}

// LoadLists is Load reading only the selected lists of a live server (the
// initialize result always); a catalog file is read whole.
func LoadLists(ctx context.Context, t Target, getenv func(string) string, lists Lists) (*Catalog, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if t.Catalog != "" {
		return ReadFile(t.Catalog)
	}
	ctx, cancel := context.WithTimeout(ctx, t.Limit())
	defer cancel()
	s, err := Connect(ctx, t, getenv)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.CatalogLists(ctx, lists)
}

// Catalog lists everything the server advertises, following cursors. A
// list the server's capabilities do not offer is left empty. The lists
// together take at most the target's timeout.
func (s *Session) Catalog(ctx context.Context) (*Catalog, error) {
	return s.CatalogLists(ctx, AllLists)
}

// CatalogLists is Catalog reading only the selected lists.
func (s *Session) CatalogLists(ctx context.Context, lists Lists) (*Catalog, error) {
	ctx, cancel := context.WithTimeout(ctx, s.target.Limit())
	defer cancel()
	c, err := s.catalog(ctx, lists)
	if err != nil {
		return nil, timedOut(ctx, s.target, err)
	}
	return c, nil
}

func (s *Session) catalog(ctx context.Context, lists Lists) (*Catalog, error) {
	init := s.InitializeResult()
	c := &Catalog{Tools: []*mcp.Tool{}}
	caps := &mcp.ServerCapabilities{}
	if init != nil {
		c.ProtocolVersion, c.ServerInfo, c.Instructions = init.ProtocolVersion, init.ServerInfo, init.Instructions
		if init.Capabilities != nil {
			caps = init.Capabilities
		}
	}
	c.Capabilities = caps
	// The lists are independent requests on the one session: they are
	// sent together, each following its own cursors, and the catalog
	// waits for the slowest rather than for their sum. An error is the
	// first list's in this order, whichever failed first.
	var fetches []func() error
	if caps.Tools != nil && lists&ListTools != 0 {
		fetches = append(fetches, func() (err error) {
			if s.tap != nil {
				s.tap.start()
			}
			c.Tools, err = collect(c.Tools, s.Tools(ctx, nil), "tools/list")
			if s.tap != nil {
				c.raw = alignRaw(c.Tools, s.tap.take())
			}
			return err
		})
	}
	if caps.Resources != nil && lists&ListResources != 0 {
		fetches = append(fetches, func() (err error) {
			c.Resources, err = collect(c.Resources, s.Resources(ctx, nil), "resources/list")
			return err
		}, func() (err error) {
			c.ResourceTemplates, err = collect(c.ResourceTemplates, s.ResourceTemplates(ctx, nil), "resources/templates/list")
			return err
		})
	}
	if caps.Prompts != nil && lists&ListPrompts != 0 {
		fetches = append(fetches, func() (err error) {
			c.Prompts, err = collect(c.Prompts, s.Prompts(ctx, nil), "prompts/list")
			return err
		})
	}
	if err := all(fetches); err != nil {
		return nil, err
	}
	if caps.Completions != nil {
		c.PromptValues = s.promptValues(ctx, c.Prompts)
	}
	return c, nil
}

// completionPrefixes are the values promptValues asks the server to
// complete, in turn, until it offers one: nothing typed yet, then a digit
// and a few common first letters, for a server that completes only what
// it can check (an id from its first digit).
var completionPrefixes = []string{"", "1", "a", "e", "s", "t"}

// promptValues asks the server to complete each required argument of each
// prompt (from completionPrefixes), in order, each with the values already
// chosen as its context, and keeps the first value it offers. An argument
// the server offers nothing for, or a request that fails, is left out.
func (s *Session) promptValues(ctx context.Context, prompts []*mcp.Prompt) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, p := range prompts {
		if p == nil {
			continue
		}
		chosen := map[string]string{}
		for _, a := range p.Arguments {
			if a == nil || !a.Required {
				continue
			}
			for _, prefix := range completionPrefixes {
				res, err := s.Complete(ctx, &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: p.Name},
					Argument: mcp.CompleteParamsArgument{Name: a.Name, Value: prefix},
					Context:  &mcp.CompleteContext{Arguments: maps.Clone(chosen)},
				})
				if err != nil {
					break
				}
				if res != nil && len(res.Completion.Values) > 0 {
					chosen[a.Name] = res.Completion.Values[0]
					break
				}
			}
		}
		if len(chosen) > 0 {
			out[p.Name] = chosen
		}
	}
	return out
}

// collect appends every item of a paged list to into; the error names the
// method.
func collect[T any](into []T, items iter.Seq2[T, error], method string) ([]T, error) {
	for item, err := range items {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		into = append(into, item)
	}
	return into, nil
}

// all runs the functions at once and returns the first error in their
// order, nil when every one succeeded.
func all(fns []func() error) error {
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// MaxCatalogBytes bounds a catalog file: catalogs are untrusted input.
const MaxCatalogBytes = 16 << 20

// ReadFile reads a saved catalog: a tools/list result ({"tools": [...]},
// optionally with resources, resourceTemplates, prompts and serverInfo) or
// a bare array of tools, as JSON or YAML.
func ReadFile(path string) (*Catalog, error) {
	data, err := safefile.ReadFile(path, MaxCatalogBytes)
	if err != nil {
		return nil, readError(path, err)
	}
	if errs := checkCatalog(path, data); len(errs) > 0 {
		return nil, errs
	}
	c, err := ParseCatalog(data)
	if err != nil {
		return nil, fmt.Errorf("catalog %q: %w", path, err)
	}
	return c, nil
}

// readError is the error for a catalog file that could not be read: a
// positioned error for a path that is not a regular file or a file over
// MaxCatalogBytes (both refused from the stat, before a byte is read), the
// os error otherwise.
func readError(path string, err error) error {
	var nr *safefile.NotRegularError
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &nr):
		return diag.List{{Pos: diag.Pos{File: path}, Kind: "catalog", Message: nr.Reason()}}
	case errors.As(err, &tl):
		return diag.List{{Pos: diag.Pos{File: path}, Kind: "catalog",
			Message: fmt.Sprintf("the file is %s, over the %s limit for a catalog", safefile.Size(tl.Size), safefile.Size(MaxCatalogBytes))}}
	}
	return fmt.Errorf("read catalog: %w", err)
}

// decodeCatalog decodes a catalog document: a JSON document with
// encoding/json (which reads surrogate-pair escapes and keeps a raw U+2028
// inside a string), anything else with the shared YAML reader (yamlpos),
// its values as yaml.v3 types them.
func decodeCatalog(data []byte) (any, error) {
	var doc any
	if isJSON(data) {
		err := json.Unmarshal(data, &doc)
		return doc, err
	}
	root, errs := yamlpos.Parse("", data, catalogYAML)
	if len(errs) > 0 {
		return nil, fmt.Errorf("line %d: %s", errs[0].Pos.Line, errs[0].Message)
	}
	err := root.Decode(&doc)
	return doc, err
}

// dropNulls removes from a tool the members that are null where the MCP
// schema allows them to be absent ("annotations": null, as 483 of the 527
// LiveMCPBench tools have it, or "title": null): null is absent. The name
// and inputSchema are required, so a null there stays to be refused.
func dropNulls(tool map[string]any) {
	for k, v := range tool {
		if v == nil && k != "name" && k != "inputSchema" {
			delete(tool, k)
		}
	}
}

// ParseCatalog parses a catalog document (see ReadFile).
func ParseCatalog(data []byte) (*Catalog, error) {
	doc, err := decodeCatalog(data)
	if err != nil {
		return nil, err
	}
	if arr, ok := doc.([]any); ok {
		doc = map[string]any{"tools": arr}
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`expected a tools/list result {"tools": [...]} or an array of tools`)
	}
	if _, ok := m["tools"].([]any); !ok {
		return nil, fmt.Errorf(`expected a "tools" array: the tools/list result lists the server's tools`)
	}
	js, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("not representable as JSON: %w", err)
	}
	var raw struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	// The typed tools drop annotations the SDK cannot decode (a hint that
	// is not a boolean); RawTools keeps them for the lint.
	typed := make([]any, len(raw.Tools))
	for i, t := range raw.Tools {
		if t == nil {
			return nil, fmt.Errorf("tools[%d] is not an object", i)
		}
		if name, _ := t["name"].(string); name == "" {
			return nil, fmt.Errorf("tools[%d] has no name", i)
		}
		typed[i] = typedTool(t)
	}
	m["tools"] = typed
	if js, err = json.Marshal(m); err != nil {
		return nil, fmt.Errorf("not representable as JSON: %w", err)
	}
	var c Catalog
	if err := json.Unmarshal(js, &c); err != nil {
		return nil, err
	}
	c.raw = raw.Tools
	c.Capabilities = &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	if len(c.Resources)+len(c.ResourceTemplates) > 0 {
		c.Capabilities.Resources = &mcp.ResourceCapabilities{}
	}
	if len(c.Prompts) > 0 {
		c.Capabilities.Prompts = &mcp.PromptCapabilities{}
	}
	return &c, nil
}
