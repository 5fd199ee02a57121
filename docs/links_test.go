package docs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// pendingPages are pages the documentation index links to that other
// branches are writing (for example "docs/name.md": true). A link to one
// is not an error while the page is missing; once it exists it is checked
// like any other. Remove an entry when its page lands.
var pendingPages = map[string]bool{}

var (
	mdLink     = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpanRE = regexp.MustCompile("`[^`\n]*`")
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
)

// TestLinks checks every relative link of the repository's Markdown files
// (README.md, SECURITY.md, docs/*.md, the examples' READMEs; .ci/ and
// node_modules left out): the file or directory it names exists, and an
// anchor (`page.md#section` or `#section`) names a heading of that page,
// slugged as GitHub slugs it.
func TestLinks(t *testing.T) {
	pages, err := markdownFiles("..")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("found %d Markdown files", len(pages))
	}
	anchors := map[string]map[string]bool{}
	links := 0
	for _, page := range pages {
		data, err := os.ReadFile(filepath.Join("..", page))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range pageLinks(string(data)) {
			links++
			if msg := checkLink(page, l.target, anchors); msg != "" {
				t.Errorf("%s:%d: link %q: %s", page, l.line, l.target, msg)
			}
		}
	}
	if links < 50 {
		t.Errorf("checked %d links: the scan missed them", links)
	}
}

// markdownFiles lists the .md files under root, slash-separated and
// relative to it.
func markdownFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".ci" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out, err
}

// link is one Markdown link: its target and its 1-based line.
type link struct {
	target string
	line   int
}

// pageLinks returns the links of a Markdown page outside code blocks and
// code spans.
func pageLinks(text string) []link {
	var out []link
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpanRE.ReplaceAllString(line, "")
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{target: m[2], line: i + 1})
		}
	}
	return out
}

// checkLink says what is wrong with a link of page (a repository-relative
// path), or "" when nothing is. anchors caches each page's anchors.
func checkLink(page, target string, anchors map[string]map[string]bool) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, frag, _ := strings.Cut(target, "#")
	dest := page
	if file != "" {
		dest = path.Clean(path.Join(path.Dir(page), file))
	}
	if strings.HasPrefix(dest, "../") {
		return "leads out of the repository"
	}
	fi, err := os.Stat(filepath.Join("..", dest))
	if err != nil {
		if pendingPages[dest] {
			return ""
		}
		return fmt.Sprintf("%s does not exist", dest)
	}
	if frag == "" {
		return ""
	}
	if fi.IsDir() || !strings.HasSuffix(dest, ".md") {
		return fmt.Sprintf("an anchor on %s, which is not a Markdown page", dest)
	}
	if anchors[dest] == nil {
		data, err := os.ReadFile(filepath.Join("..", dest))
		if err != nil {
			return err.Error()
		}
		anchors[dest] = pageAnchors(string(data))
	}
	if !anchors[dest][frag] {
		return fmt.Sprintf("%s has no heading whose anchor is #%s", dest, frag)
	}
	return ""
}

// pageAnchors returns the anchors of a Markdown page: each heading's slug
// (a repeated slug gets -1, -2, ... as GitHub numbers them) and each
// `<a id="...">` or `<a name="...">`.
func pageAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		h := strings.TrimLeft(line, "#")
		if len(h) == len(line) || len(line)-len(h) > 6 || !strings.HasPrefix(h, " ") {
			continue
		}
		slug := Slug(h)
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// Slug is GitHub's anchor for a heading's text: the text of its links
// kept and their addresses dropped, lower-cased, every character that is
// not a letter, digit, underscore, hyphen or space removed, spaces turned
// into hyphens.
func Slug(heading string) string {
	heading = mdLink.ReplaceAllString(strings.TrimSpace(heading), "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestSlug holds Slug to GitHub's anchors for headings of these pages.
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"The agent front door (`mcptest mcp-server`)":      "the-agent-front-door-mcptest-mcp-server",
		"Pass^k tool selection (`tool_selection:`)":        "passk-tool-selection-tool_selection",
		"In CI: the GitHub Action":                         "in-ci-the-github-action",
		"Reports for reviewers and CI: HTML, JUnit, SARIF": "reports-for-reviewers-and-ci-html-junit-sarif",
		"`reliability.pass_hat_<k>`: τ-bench's pass^k":     "reliabilitypass_hat_k-τ-benchs-passk",
		"See [the suite](suite.md) first":                  "see-the-suite-first",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

// TestIndex: the README's index links every page of docs/, so a new page
// cannot go unlisted.
func TestIndex(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, index, ok := strings.Cut(string(readme), "\n## Documentation\n")
	if !ok {
		t.Fatal("README.md has no ## Documentation section")
	}
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		if !strings.Contains(index, "](docs/"+page+")") {
			t.Errorf("README.md's index does not link docs/%s", page)
		}
	}
}
