// Package ghapitest is a stand-in for the GitHub REST API in tests: an
// httptest server on loopback that checks every request against GitHub's
// published OpenAPI description (npm @octokit/openapi, pinned in
// .ci/node-action/package.json) and answers with realistic payloads for the
// flows of the Action: the repository, compare, workflow runs, artifacts and
// their zip download redirect, pull requests, issue comments and issues.
//
// A request whose method and path no operation describes, an undescribed
// query parameter, a parameter or JSON body that does not validate against
// the operation's schema: each fails the test that owns the server. Its
// answers are GitHub's own example answers from the description with the
// test's values laid over them, and each 2xx answer is itself validated
// against the operation's response schema.
package ghapitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// DescriptionPath is where `npm ci --prefix .ci/node-action` puts the
// description, relative to the repository's root.
const DescriptionPath = ".ci/node-action/node_modules/@octokit/openapi/generated/api.github.com.json"

// Spec is GitHub's REST description, indexed for request validation.
type Spec struct {
	Version string
	ops     map[string][]*operation // by method
	byID    map[string]*operation
	mu      sync.Mutex
	comp    *jsonschema.Compiler
	cache   map[string]*jsonschema.Schema
}

type operation struct {
	ID       string
	method   string
	segs     []string
	literal  int
	params   map[string]*param // "in:name"
	body     string            // pointer to the JSON body schema, "" when none
	bodyReq  bool
	index    int
	template string
	// examples are the description's example answers, by status code.
	examples map[string][]byte
	// responses point at the JSON answer schemas, by status code.
	responses map[string]string
}

type param struct {
	name, in string
	required bool
	typ      string // the schema's type, to read the string value
	schema   string // pointer to its schema
}

var (
	loadOnce sync.Once
	loaded   *Spec
	loadErr  error
)

// Load reads the description once per test binary. It looks at
// $MCPTEST_GITHUB_OPENAPI, then DescriptionPath in the directories above
// the working directory.
func Load() (*Spec, error) {
	loadOnce.Do(func() { loaded, loadErr = load() })
	return loaded, loadErr
}

// Require returns the description, or skips the test with a clear message
// when it is not installed; under CI=true its absence fails the test.
func Require(t testing.TB) *Spec {
	t.Helper()
	s, err := Load()
	if err == nil {
		return s
	}
	msg := fmt.Sprintf("GitHub's OpenAPI description is not available (%v): run `npm ci --prefix .ci/node-action` (as .ci/run does)", err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return nil
}

func locate() (string, error) {
	if p := os.Getenv("MCPTEST_GITHUB_OPENAPI"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, DescriptionPath)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return "", fmt.Errorf("%s not found", filepath.Join(dir, DescriptionPath))
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("%s not found above the working directory", DescriptionPath)
		}
		dir = up
	}
}

func load() (*Spec, error) {
	file, err := locate()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	s := &Spec{ops: map[string][]*operation{}, byID: map[string]*operation{}, cache: map[string]*jsonschema.Schema{}}
	if info, ok := doc["info"].(map[string]any); ok {
		s.Version, _ = info["version"].(string)
	}
	components, _ := doc["components"].(map[string]any)
	nullable(components)
	d := describer{components: components}
	paths, _ := doc["paths"].(map[string]any)
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, tmpl := range keys {
		item, _ := paths[tmpl].(map[string]any)
		shared, _ := item["parameters"].([]any)
		for method, v := range item {
			o, ok := v.(map[string]any)
			if !ok || method == "parameters" {
				continue
			}
			op := d.operation(tmpl, method, o, shared)
			s.byID[op.ID] = op
			s.ops[op.method] = append(s.ops[op.method], op)
		}
	}
	res, err := json.Marshal(map[string]any{"components": components, "x-ops": d.xops})
	if err != nil {
		return nil, err
	}
	s.comp = jsonschema.NewCompiler()
	s.comp.Draft = jsonschema.Draft4 // OpenAPI 3.0 schemas: boolean exclusive bounds, nullable
	if err := s.comp.AddResource("mem://github/api.json", bytes.NewReader(res)); err != nil {
		return nil, err
	}
	return s, nil
}

// describer reads the operations of an OpenAPI description. Each
// operation's parameter, body and answer schemas go to xops, under
// #/x-ops/<index>, so one compiled document holds them all with the
// components they refer to.
type describer struct {
	components map[string]any
	xops       []any
}

// resolve follows a $ref into the components.
func (d *describer) resolve(v any) map[string]any {
	m, _ := v.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		parts := strings.Split(strings.TrimPrefix(ref, "#/components/"), "/")
		if len(parts) == 2 {
			sect, _ := d.components[parts[0]].(map[string]any)
			m, _ = sect[parts[1]].(map[string]any)
		}
	}
	return m
}

// operation reads one operation of the path template tmpl; shared are the
// path's own parameters.
func (d *describer) operation(tmpl, method string, o map[string]any, shared []any) *operation {
	nullable(o)
	op := &operation{method: strings.ToUpper(method), template: tmpl, params: map[string]*param{}, index: len(d.xops)}
	op.ID, _ = o["operationId"].(string)
	op.segs = strings.Split(strings.Trim(tmpl, "/"), "/")
	for _, sg := range op.segs {
		if !strings.HasPrefix(sg, "{") {
			op.literal++
		}
	}
	list, _ := o["parameters"].([]any)
	x := map[string]any{"params": d.params(op, append(append([]any{}, shared...), list...))}
	if body := d.body(op, o["requestBody"]); body != nil {
		x["body"] = body
	}
	x["responses"] = d.responses(op, o["responses"])
	d.xops = append(d.xops, x)
	return op
}

// params reads an operation's parameters into op and returns their
// schemas by "in:name".
func (d *describer) params(op *operation, list []any) map[string]any {
	schemas := map[string]any{}
	for _, pv := range list {
		pm := d.resolve(pv)
		if pm == nil {
			continue
		}
		p := &param{}
		p.name, _ = pm["name"].(string)
		p.in, _ = pm["in"].(string)
		p.required, _ = pm["required"].(bool)
		sch, _ := pm["schema"].(map[string]any)
		if sch != nil {
			if r := d.resolve(sch); r != nil {
				sch = r
			}
			p.typ = typeOf(sch)
			key := p.in + ":" + p.name
			schemas[key] = sch
			p.schema = fmt.Sprintf("#/x-ops/%d/params/%s", op.index, escapePointer(key))
		}
		op.params[p.in+":"+p.name] = p
	}
	return schemas
}

// body reads an operation's request body into op and returns its JSON
// schema, nil when there is none.
func (d *describer) body(op *operation, v any) any {
	rb := d.resolve(v)
	if rb == nil {
		return nil
	}
	op.bodyReq, _ = rb["required"].(bool)
	content, _ := rb["content"].(map[string]any)
	js, ok := content["application/json"].(map[string]any)
	if !ok {
		op.body = "-" // a body of another media type: not ours
		return nil
	}
	op.body = fmt.Sprintf("#/x-ops/%d/body", op.index)
	return js["schema"]
}

// responses reads an operation's answers into op (their examples and
// schema pointers, by status code) and returns their JSON schemas.
func (d *describer) responses(op *operation, v any) map[string]any {
	op.examples = map[string][]byte{}
	op.responses = map[string]string{}
	rschemas := map[string]any{}
	responses, _ := v.(map[string]any)
	for code, rv := range responses {
		rm := d.resolve(rv)
		content, _ := rm["content"].(map[string]any)
		js, _ := content["application/json"].(map[string]any)
		if js["schema"] != nil {
			rschemas[code] = js["schema"]
			op.responses[code] = fmt.Sprintf("#/x-ops/%d/responses/%s", op.index, code)
		}
		exs, _ := js["examples"].(map[string]any)
		for _, ev := range exs {
			if em := d.resolve(ev); em != nil && em["value"] != nil {
				op.examples[code], _ = json.Marshal(em["value"])
				break
			}
		}
	}
	return rschemas
}

// nullable rewrites OpenAPI 3.0's `nullable: true` into JSON Schema's
// type lists, so a JSON Schema validator reads it.
func nullable(v any) {
	switch x := v.(type) {
	case map[string]any:
		if n, _ := x["nullable"].(bool); n {
			if t, ok := x["type"].(string); ok {
				x["type"] = []any{t, "null"}
			}
			if e, ok := x["enum"].([]any); ok {
				x["enum"] = append(e, nil)
			}
		}
		for _, c := range x {
			nullable(c)
		}
	case []any:
		for _, c := range x {
			nullable(c)
		}
	}
}

func typeOf(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x != "null" {
				if str, ok := x.(string); ok {
					return str
				}
			}
		}
	}
	return "string"
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func (s *Spec) schema(ptr string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.cache[ptr]; ok {
		return sch, nil
	}
	sch, err := s.comp.Compile("mem://github/api.json" + ptr)
	if err != nil {
		return nil, err
	}
	s.cache[ptr] = sch
	return sch, nil
}

// Match resolves a method and path to its operation and path parameters.
// Among several templates the most literal one wins (/issues/comments/{id}
// over /issues/{number}/comments).
func (s *Spec) Match(method, path string) (*operation, map[string]string) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var best *operation
	var bestVars map[string]string
	for _, op := range s.ops[method] {
		if len(op.segs) != len(segs) {
			continue
		}
		vars := map[string]string{}
		ok := true
		for i, sg := range op.segs {
			if strings.HasPrefix(sg, "{") && strings.HasSuffix(sg, "}") {
				v, err := url.PathUnescape(segs[i])
				if err != nil || v == "" {
					ok = false
					break
				}
				vars[sg[1:len(sg)-1]] = v
				continue
			}
			if sg != segs[i] {
				ok = false
				break
			}
		}
		if ok && (best == nil || op.literal > best.literal) {
			best, bestVars = op, vars
		}
	}
	return best, bestVars
}

// Check validates a request: its operation, path and query parameters and
// JSON body. It returns the operation's id, or an error saying what
// GitHub's description does not allow.
func (s *Spec) Check(method, path string, query url.Values, body []byte) (string, map[string]string, error) {
	op, vars := s.Match(method, path)
	if op == nil {
		return "", nil, fmt.Errorf("%s %s: no operation of GitHub's REST description has this method and path", method, path)
	}
	where := fmt.Sprintf("%s %s (%s)", method, op.template, op.ID)
	for name, v := range vars {
		p := op.params["path:"+name]
		if p == nil {
			return "", nil, fmt.Errorf("%s: path parameter %q is not described", where, name)
		}
		if err := s.checkValue(p, []string{v}); err != nil {
			return "", nil, fmt.Errorf("%s: path parameter %s=%q: %v", where, name, v, err)
		}
	}
	for name, vs := range query {
		p := op.params["query:"+name]
		if p == nil {
			return "", nil, fmt.Errorf("%s: query parameter %q is not described", where, name)
		}
		if err := s.checkValue(p, vs); err != nil {
			return "", nil, fmt.Errorf("%s: query parameter %s=%q: %v", where, name, vs, err)
		}
	}
	for key, p := range op.params {
		if p.in == "query" && p.required && query.Get(p.name) == "" {
			return "", nil, fmt.Errorf("%s: required query parameter %q is missing (%s)", where, p.name, key)
		}
	}
	switch {
	case op.body == "" && len(bytes.TrimSpace(body)) > 0:
		return "", nil, fmt.Errorf("%s: takes no request body, got %d bytes", where, len(body))
	case op.body != "" && op.body != "-" && len(bytes.TrimSpace(body)) == 0 && op.bodyReq:
		return "", nil, fmt.Errorf("%s: the JSON request body is required", where)
	case op.body != "" && op.body != "-" && len(bytes.TrimSpace(body)) > 0:
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return "", nil, fmt.Errorf("%s: the request body is not JSON: %v", where, err)
		}
		sch, err := s.schema(op.body)
		if err != nil {
			return "", nil, fmt.Errorf("%s: compile the body schema: %v", where, err)
		}
		if err := sch.Validate(v); err != nil {
			return "", nil, fmt.Errorf("%s: the request body does not match the description: %v", where, err)
		}
	}
	return op.ID, vars, nil
}

func (s *Spec) checkValue(p *param, vs []string) error {
	if p.schema == "" {
		return nil
	}
	sch, err := s.schema(p.schema)
	if err != nil {
		return fmt.Errorf("compile: %v", err)
	}
	var v any
	switch p.typ {
	case "array":
		var items []any
		for _, x := range vs {
			for _, y := range strings.Split(x, ",") {
				items = append(items, y)
			}
		}
		v = items
	default:
		if len(vs) != 1 {
			return fmt.Errorf("given %d times", len(vs))
		}
		v = vs[0]
		switch p.typ {
		case "integer":
			n, err := strconv.ParseInt(vs[0], 10, 64)
			if err != nil {
				return fmt.Errorf("not an integer")
			}
			v = n
		case "number":
			f, err := strconv.ParseFloat(vs[0], 64)
			if err != nil {
				return fmt.Errorf("not a number")
			}
			v = f
		case "boolean":
			b, err := strconv.ParseBool(vs[0])
			if err != nil {
				return fmt.Errorf("not a boolean")
			}
			v = b
		}
	}
	if n, ok := v.(int64); ok {
		v = json.Number(strconv.FormatInt(n, 10))
	}
	return sch.Validate(v)
}

// Example returns a fresh copy of the description's example answer of an
// operation for a status code ("200"), or nil.
func (s *Spec) Example(opID, status string) any {
	op := s.byID[opID]
	if op == nil || op.examples[status] == nil {
		return nil
	}
	var v any
	_ = json.Unmarshal(op.examples[status], &v)
	return v
}

// CheckResponse validates an answer of an operation against the
// description's schema for its status code.
func (s *Spec) CheckResponse(opID string, status int, body []byte) error {
	op := s.byID[opID]
	if op == nil {
		return fmt.Errorf("unknown operation %s", opID)
	}
	ptr := op.responses[strconv.Itoa(status)]
	if ptr == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	sch, err := s.schema(ptr)
	if err != nil {
		return fmt.Errorf("compile the %d answer schema of %s: %v", status, opID, err)
	}
	return sch.Validate(v)
}
