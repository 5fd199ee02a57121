package quality

import "sort"

// Tool is one tools/list entry as the rules read it.
type Tool struct {
	Name        string
	Description string
	// InputSchema and OutputSchema are decoded JSON; nil when absent.
	InputSchema  any
	OutputSchema any
	// Annotations is the annotations value as sent; HasAnnotations says
	// whether the key was present at all.
	Annotations    any
	HasAnnotations bool
	// Examples is the tool's examples value, nil when absent (an examples
	// array on the inputSchema counts too).
	Examples any
}

// FromRaw reads a decoded tools/list entry.
func FromRaw(m map[string]any) Tool {
	t := Tool{InputSchema: m["inputSchema"], OutputSchema: m["outputSchema"], Examples: m["examples"]}
	t.Name, _ = m["name"].(string)
	t.Description, _ = m["description"].(string)
	t.Annotations, t.HasAnnotations = m["annotations"]
	return t
}

// param is one property of the input schema.
type param struct {
	name     string
	schema   map[string]any
	required bool
}

// params lists the input schema's top-level properties in name order.
func (t Tool) params() []param {
	s, _ := t.InputSchema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	req := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, x := range r {
			if n, ok := x.(string); ok {
				req[n] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]param, 0, len(names))
	for _, n := range names {
		ps, _ := props[n].(map[string]any)
		out = append(out, param{name: n, schema: ps, required: req[n]})
	}
	return out
}

func (p param) description() string {
	d, _ := p.schema["description"].(string)
	return d
}

func (p param) types() []string {
	switch v := p.schema["type"].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
