package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gopkg.in/yaml.v3"

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

	// raw holds the tools of a live server as written, so a rule can see
	// what the typed Tools cannot hold (a non-boolean annotation hint);
	// rawText holds those of a catalog file as compact JSON text (see
	// catalogtext.go).
	raw     []map[string]any
	rawText [][]byte
}

// RawTools returns the tools as decoded JSON objects, one for each of
// Tools: as the catalog file or the live server wrote them (a hint that is
// not a boolean kept, a hint left out absent), as the SDK holds them for a
// catalog built in code. A catalog file's tools are decoded from their
// text on each call, into maps the caller owns.
func (c *Catalog) RawTools() []map[string]any {
	if c.rawText != nil && len(c.rawText) == len(c.Tools) {
		return decodeTexts(c.rawText, c.Tools)
	}
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
	defer paceRead()()
	data, err := safefile.ReadFile(path, MaxCatalogBytes)
	if err != nil {
		return nil, readError(path, err)
	}
	if !isJSON(data) {
		if c, ok := readYAMLTools(path, data); ok {
			return c, nil
		}
		return readYAMLWhole(path, data)
	}
	if errs := checkJSON(path, data); len(errs) > 0 {
		return nil, errs
	}
	c, err := catalogFromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("catalog %q: %w", path, err)
	}
	return c, nil
}

// readYAMLWhole reads a YAML catalog into a tree once, checks it, and
// decodes it from the tree, which goes before the tools are decoded: the
// reader of a YAML catalog that readYAMLTools does not read, and the one
// that words every error.
func readYAMLWhole(path string, data []byte) (*Catalog, error) {
	root, errs := yamlpos.Parse(path, data, catalogYAML)
	if root == nil || len(errs) > 0 {
		return nil, errs
	}
	if errs := checkYAML(path, data, root); len(errs) > 0 {
		return nil, errs
	}
	js, err := treeAsJSON(root)
	if err != nil {
		return nil, fmt.Errorf("catalog %q: %w", path, err)
	}
	c, err := catalogFromJSON(js)
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

// yamlAsJSON is a YAML catalog document as JSON, for decodeJSON: read
// with the shared YAML reader (yamlpos), its values as yaml.v3 types them.
func yamlAsJSON(data []byte) ([]byte, error) {
	root, errs := yamlpos.Parse("", data, catalogYAML)
	if len(errs) > 0 {
		return nil, fmt.Errorf("line %d: %s", errs[0].Pos.Line, errs[0].Message)
	}
	return treeAsJSON(root)
}

// treeAsJSON is the YAML document root holds as JSON.
func treeAsJSON(root *yaml.Node) ([]byte, error) {
	var doc any
	if err := root.Decode(&doc); err != nil {
		return nil, err
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("not representable as JSON: %w", err)
	}
	return js, nil
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

// toolFromRaw is the n-th tool of a catalog file, typed, from the tool as
// written (its nulls dropped, on raw itself): the typed tool shares raw's
// values (its schemas and _meta are raw's maps; a catalog file's tool
// then holds its schemas as text, see catalogtext.go), and leaves out
// annotations the SDK cannot decode (a hint that is not a boolean), which
// RawTools keeps for the lint.
func toolFromRaw(n int, raw map[string]any) (*mcp.Tool, error) {
	dropNulls(raw)
	t := &mcp.Tool{InputSchema: raw["inputSchema"], OutputSchema: raw["outputSchema"]}
	for _, f := range []struct {
		key  string
		into *string
	}{{"name", &t.Name}, {"title", &t.Title}, {"description", &t.Description}} {
		key, into := f.key, f.into
		v, has := raw[key]
		s, ok := v.(string)
		if has && !ok {
			return nil, fmt.Errorf("tools[%d].%s: expected a string", n, key)
		}
		*into = s
	}
	if t.Name == "" {
		return nil, fmt.Errorf("tools[%d] has no name", n)
	}
	if v, has := raw["_meta"]; has {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("tools[%d]._meta: expected an object", n)
		}
		t.Meta = m
	}
	if v, has := raw["annotations"]; has {
		t.Annotations = annotations(v)
	}
	if v, has := raw["icons"]; has {
		b, err := json.Marshal(v)
		if err == nil {
			err = json.Unmarshal(b, &t.Icons)
		}
		if err != nil {
			return nil, fmt.Errorf("tools[%d].icons: %w", n, err)
		}
	}
	return t, nil
}

// annotations are a tool's annotations as the SDK decodes them, nil when
// it cannot (a hint that is not a boolean). An object of the hints' own
// names is read as it is; any other goes through encoding/json (which
// matches names regardless of case, the last in the document winning).
func annotations(v any) *mcp.ToolAnnotations {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var ann mcp.ToolAnnotations
	for k, v := range m {
		b, isBool := v.(bool)
		switch {
		case !slices.Contains(hintNames, k):
			if slices.ContainsFunc(hintNames, func(h string) bool { return strings.EqualFold(h, k) }) {
				return annotationsJSON(m)
			}
		case v == nil:
			// null leaves a field as it is, as encoding/json does.
		case k == "title":
			s, isString := v.(string)
			if !isString {
				return nil
			}
			ann.Title = s
		case !isBool:
			return nil
		case k == "destructiveHint":
			ann.DestructiveHint = &b
		case k == "openWorldHint":
			ann.OpenWorldHint = &b
		case k == "idempotentHint":
			ann.IdempotentHint = b
		case k == "readOnlyHint":
			ann.ReadOnlyHint = b
		}
	}
	return &ann
}

// hintNames are the members of a tool's annotations.
var hintNames = []string{"destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint", "title"}

// annotationsJSON is annotations through encoding/json.
func annotationsJSON(v any) *mcp.ToolAnnotations {
	var ann mcp.ToolAnnotations
	if b, err := json.Marshal(v); err == nil && json.Unmarshal(b, &ann) == nil {
		return &ann
	}
	return nil
}

// ParseCatalog parses a catalog document (see ReadFile).
func ParseCatalog(data []byte) (*Catalog, error) {
	defer paceRead()()
	if !isJSON(data) {
		if c, ok := readYAMLTools("", data); ok {
			return c, nil
		}
		js, err := yamlAsJSON(data)
		if err != nil {
			return nil, err
		}
		data = js
	}
	return catalogFromJSON(data)
}

// catalogFromJSON decodes a catalog document written as JSON; its
// capabilities are the lists it holds.
func catalogFromJSON(data []byte) (*Catalog, error) {
	c, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	withCapabilities(c)
	return c, nil
}

// withCapabilities sets a catalog file's capabilities: the lists it holds.
func withCapabilities(c *Catalog) {
	c.Capabilities = &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	if len(c.Resources)+len(c.ResourceTemplates) > 0 {
		c.Capabilities.Resources = &mcp.ResourceCapabilities{}
	}
	if len(c.Prompts) > 0 {
		c.Capabilities.Prompts = &mcp.PromptCapabilities{}
	}
}
