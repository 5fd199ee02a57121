package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// eachUses calls fn for every `uses:` of a workflow, an action or a
// snippet of steps: the step's mapping and the value's node (its line
// comment included).
func eachUses(n *yaml.Node, fn func(step, uses *yaml.Node)) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "uses" && n.Content[i+1].Kind == yaml.ScalarNode {
				fn(n, n.Content[i+1])
			}
		}
	}
	for _, c := range n.Content {
		eachUses(c, fn)
	}
}

// value is the node under key in a mapping, or nil.
func value(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// checkoutProblems lists each actions/checkout step of the YAML that does
// not set persist-credentials: false, by line.
func checkoutProblems(src string) ([]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, err
	}
	var out []string
	eachUses(&doc, func(step, uses *yaml.Node) {
		if !strings.HasPrefix(uses.Value, "actions/checkout@") {
			return
		}
		if p := value(value(step, "with"), "persist-credentials"); p == nil || p.Value != "false" {
			out = append(out, fmt.Sprintf("line %d: %s without persist-credentials: false", uses.Line, uses.Value))
		}
	})
	return out, nil
}

var (
	pinnedUses = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$`)
	versionTag = regexp.MustCompile(`^# v[0-9]+\.[0-9]+\.[0-9]+$`)
)

// pinProblems lists each `uses:` of the YAML that is not a local action
// and not pinned by a full commit SHA with its `# vX.Y.Z` version comment.
func pinProblems(src string) ([]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return nil, err
	}
	var out []string
	eachUses(&doc, func(_, uses *yaml.Node) {
		v := uses.Value
		switch {
		case strings.HasPrefix(v, "./"):
		case !pinnedUses.MatchString(v):
			out = append(out, fmt.Sprintf("line %d: %s is not pinned by a full commit SHA", uses.Line, v))
		case !versionTag.MatchString(uses.LineComment):
			out = append(out, fmt.Sprintf("line %d: %s has no `# vX.Y.Z` version comment (has %q)", uses.Line, v, uses.LineComment))
		}
	})
	return out, nil
}

// TestWorkflowCheckers: the two checkers find what they are for.
func TestWorkflowCheckers(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		check     func(string) ([]string, error)
		problems  int
	}{
		{"checkout without with", "steps:\n  - uses: actions/checkout@v4\n", checkoutProblems, 1},
		{"checkout persisting", "steps:\n  - uses: actions/checkout@v4\n    with: {persist-credentials: true}\n", checkoutProblems, 1},
		{"checkout not persisting", "- uses: actions/checkout@v4\n  with:\n    persist-credentials: false\n", checkoutProblems, 0},
		{"checkout, string false", "- uses: actions/checkout@v4\n  with: {persist-credentials: \"false\"}\n", checkoutProblems, 0},
		{"a tag", "- uses: docker/login-action@v3\n", pinProblems, 1},
		{"a short SHA", "- uses: docker/login-action@74a5d14 # v3.4.0\n", pinProblems, 1},
		{"no comment", "- uses: docker/login-action@74a5d142397b4f367a81961eba4e8cd7edddf772\n", pinProblems, 1},
		{"a major comment", "- uses: docker/login-action@74a5d142397b4f367a81961eba4e8cd7edddf772 # v3\n", pinProblems, 1},
		{"pinned", "- uses: docker/login-action@74a5d142397b4f367a81961eba4e8cd7edddf772 # v3.4.0\n", pinProblems, 0},
		{"local", "- uses: ./\n", pinProblems, 0},
	} {
		got, err := tt.check(tt.src)
		if err != nil || len(got) != tt.problems {
			t.Errorf("%s: %q (%v), want %d problems", tt.name, got, err, tt.problems)
		}
	}
}

var yamlBlock = regexp.MustCompile("(?s)```ya?ml\n(.*?)```")

// TestWorkflowPinning holds the workflows to what security guides ask:
// every checkout of the example workflows and of the YAML snippets in the
// README and docs sets persist-credentials: false (the token is not left
// in .git/config for the steps after it); every action the release
// workflow uses is pinned by full commit SHA with a `# vX.Y.Z` comment; and
// the release-gate example runs once per release (one event).
func TestWorkflowPinning(t *testing.T) {
	examples, err := filepath.Glob("../examples/workflows/*.yml")
	if err != nil || len(examples) < 5 {
		t.Fatalf("example workflows: %v %v", examples, err)
	}
	docs, _ := filepath.Glob("*.md")
	snippets := 0
	for _, file := range append(examples, append(docs, "../README.md")...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		blocks := []string{string(data)}
		if strings.HasSuffix(file, ".md") {
			blocks = nil
			for _, m := range yamlBlock.FindAllStringSubmatch(string(data), -1) {
				if strings.Contains(m[1], "actions/checkout@") {
					blocks = append(blocks, m[1])
				}
			}
			snippets += len(blocks)
		}
		for _, b := range blocks {
			problems, err := checkoutProblems(b)
			if err != nil {
				t.Errorf("%s: %v", file, err)
			}
			for _, p := range problems {
				t.Errorf("%s: %s", file, p)
			}
		}
	}
	if snippets == 0 {
		t.Error("no documentation snippet shows a checkout: the README's quick start did")
	}
	release, err := os.ReadFile("../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	problems, err := pinProblems(string(release))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf(".github/workflows/release.yml: %s", p)
	}
	checkReleaseGate(t)
}

// checkReleaseGate: the release-gate example has one trigger, the
// release's publication, so it runs once per release.
func checkReleaseGate(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile("../examples/workflows/mcptest-release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On map[string]struct {
			Types []string `yaml:"types"`
		} `yaml:"on"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.On) != 1 || len(wf.On["release"].Types) != 1 || wf.On["release"].Types[0] != "published" {
		t.Errorf("mcptest-release.yml runs on %v: want one event, release: types: [published]", wf.On)
	}
}
