package yamlpos

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// sameListNodes fails unless ListNodes, where it cuts text, hands over
// under key the item trees the whole parse has there (kind, style, tag,
// value, anchor, line and column of every node, an alias naming the
// same place), and a root whose other members are the whole parse's; it
// reports whether it cut.
func sameListNodes(t testing.TB, text []byte, key string) bool {
	t.Helper()
	var items []string
	root, ok := ListNodes(text, key, func(i int, n *yaml.Node) bool {
		if i != len(items) {
			t.Fatalf("item %d handed after %d", i, len(items))
		}
		items = append(items, nodeText(n))
		return true
	})
	if !ok {
		return false
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		t.Fatalf("ListNodes cut a text the whole parse refuses (%v):\n%s", err, text)
	}
	whole := doc.Content[0]
	var list *yaml.Node
	for i := 0; i+1 < len(whole.Content); i += 2 {
		k, v := whole.Content[i], whole.Content[i+1]
		if k.Value == key && v.Kind == yaml.SequenceNode && list == nil {
			// The list cut (a key repeated is the caller's to refuse).
			list = v
			if root.Content[i].Value != key || root.Content[i+1].Tag != "!!null" {
				t.Fatalf("the root's %q is %s, want the blank null", key, nodeText(root.Content[i+1]))
			}
			continue
		}
		if g, w := nodeText(root.Content[i])+nodeText(root.Content[i+1]), nodeText(k)+nodeText(v); g != w {
			t.Fatalf("root member %d:\n%s\nwant\n%s", i/2, g, w)
		}
	}
	if list == nil || len(list.Content) != len(items) {
		t.Fatalf("%d items handed, the whole parse has %v", len(items), list)
	}
	for i, n := range list.Content {
		if w := nodeText(n); items[i] != w {
			t.Fatalf("item %d:\n%s\nwant\n%s\ntext:\n%s", i, items[i], w, text)
		}
	}
	return true
}

// nodeText writes what sameListNodes compares of a tree.
func nodeText(n *yaml.Node) string {
	var b strings.Builder
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		fmt.Fprintf(&b, "%s%d %d %q %q &%q %d:%d", strings.Repeat(" ", depth), n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.Line, n.Column)
		if n.Alias != nil {
			fmt.Fprintf(&b, " *%d:%d", n.Alias.Line, n.Alias.Column)
		}
		b.WriteByte('\n')
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// listNodeSeeds are texts at the edges of the cut.
var listNodeSeeds = []string{
	"tools:\n  - \"a\n  - b\"\n",
	"tools:\n- |\n - x\n- [a,\n - b]\nz: 1\n",
	"tools:\n  - &a 1\n  - *a\nb:\n  - 2\n",
	"tools:\r\n  - a: 1\r\n  - b\r\n",
	"tools:\n  - name:\n  - ? x\n  -\n  - a:\n\n  # c\n  - b: \n# d\nz: 1\nl:\n- k:\n-",
	"# c\ntools: # l\n  - name: a # n\n    prompt: |\n      - x\n     # y\n  - name: 'b\n\n    c'\n    expect: {a: [1,\n      2]}\nagents:\n- {name: x}\n",
	"tools:\n- name: a\n  inputSchema: &s {type: object}\n- name: b\n  inputSchema: *s\n",
	"tools:\n- name: a\n  d: 2024-01-01\n  e: !!binary aGk=\n  f: !x y\n- name: b\n  inputSchema:\n    properties:\n      q: {type: string}\n",
	"tools:\n- name: a\ntools:\n- name: b\n",
	"serverInfo: {name: s}\ntools:\n- name: a\n  description:\n- name: b\n  description: >\n    folded\n    text\nresources:\n- uri: x\n",
}

// TestListNodes: the seeds and the repository's YAML files, cut by
// ListNodes under tools: and tests:, give the whole parse's trees.
func TestListNodes(t *testing.T) {
	cut := 0
	texts := map[string][]byte{}
	for i, s := range listNodeSeeds {
		texts[fmt.Sprintf("seed %d", i)] = []byte(s)
	}
	for _, file := range corpusFiles() {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		texts[file] = data
	}
	for name, text := range texts {
		for _, key := range []string{"tools", "tests"} {
			t.Run(name+"/"+key, func(t *testing.T) {
				if sameListNodes(t, text, key) {
					cut++
				}
			})
		}
	}
	t.Logf("%d of %d texts cut", cut, 2*len(texts))
	if cut < 10 {
		t.Errorf("only %d texts were cut", cut)
	}
}

func FuzzListNodes(f *testing.F) {
	for _, s := range listNodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameListNodes(t, data, "tools")
	})
}
