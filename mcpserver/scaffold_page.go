package mcpserver

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptest/mcptest/internal/redact"
	"github.com/mcptest/mcptest/internal/yamlpos"
	"github.com/mcptest/mcptest/live"
)

// toolPage is the part of a catalog's tools one answer covers, before the
// room of the suite has its say.
type toolPage struct {
	// tools are the page as the page cap cuts it.
	tools []*mcp.Tool
	// start is the cursor of the page, total the number of tools the
	// filter keeps.
	start, total int
	// first reports whether the page starts at the first tool: the page
	// that also carries the per-catalog parts (resources, prompts).
	first  bool
	capped bool
	notes  []string
}

// pageTools sorts the named tools by name, keeps those the filter names
// (all of them when it is empty) and cuts the page at cursor: PageSize
// tools, or every one with all.
func pageTools(cat *live.Catalog, filter []string, all bool, cursor int) toolPage {
	var pg toolPage
	var tools []*mcp.Tool
	blank := 0
	for _, tl := range cat.Tools {
		if tl == nil || tl.Name == "" {
			blank++
			continue
		}
		tools = append(tools, tl)
	}
	tools = slicesSorted(tools)
	if blank > 0 {
		pg.notes = append(pg.notes, fmt.Sprintf("%d %s without a name left out: tools/call needs one", blank, plural(blank, "tool was", "tools were")))
	}
	if len(filter) > 0 {
		keep := map[string]bool{}
		for _, n := range filter {
			keep[n] = true
		}
		var sel []*mcp.Tool
		for _, tl := range tools {
			if keep[tl.Name] {
				sel = append(sel, tl)
				delete(keep, tl.Name)
			}
		}
		for _, n := range filter {
			if keep[n] {
				pg.notes = append(pg.notes, fmt.Sprintf("tools filter: the server has no tool %q", n))
			}
		}
		tools = sel
	}
	pg.start, pg.total = min(max(cursor, 0), len(tools)), len(tools)
	end := len(tools)
	if !all && end-pg.start > PageSize {
		end, pg.capped = pg.start+PageSize, true
	}
	pg.tools, pg.first = tools[pg.start:end], pg.start == 0
	return pg
}

// fill writes the block render makes of each tool of the page while it
// fits the room, calling the keep it returns for each block written, adds
// the page's notes and returns the cursor of the next page, if any. A
// block that would not fit even the room the page started with is left
// out with a note; the first block that does not fit what is left ends the
// page there, so every page makes progress.
func (pg toolPage) fill(b *strings.Builder, rm *room, notes *[]string, render func(*mcp.Tool) (block string, keep func())) *int {
	*notes = append(*notes, pg.notes...)
	base := *rm
	end, full := pg.start+len(pg.tools), false
	for i, tl := range pg.tools {
		block, keep := render(tl)
		if rm.take(block) {
			b.WriteString(block)
			keep()
			continue
		}
		if fresh := base; !fresh.take(block) {
			*notes = append(*notes, fmt.Sprintf("%s: its cases alone exceed what one suite may hold (%d KiB, %d values); scaffold it by hand", oneLineName(tl.Name), maxScaffoldBytes>>10, maxScaffoldValues))
			continue
		}
		end, full = pg.start+i, true
		break
	}
	if end == pg.total {
		return nil
	}
	why := fmt.Sprintf("%d per answer; or all: true", PageSize)
	if full {
		why = fmt.Sprintf("the suite reached the size every scaffold stays within: %d KiB, %d values", maxScaffoldBytes>>10, maxScaffoldValues)
	}
	*notes = append(*notes, fmt.Sprintf("catalog truncated: tools %d-%d of %d (%s); pass cursor %d for the next page", pg.start+1, end, pg.total, why, end))
	return &end
}

// The size every scaffold stays within: validate_suite's limit on a draft,
// and 90,000 values (counted by the shared YAML reader, internal/yamlpos, as
// the suite loader counts them), so a scaffold validates as returned and a
// large catalog comes in pages a reviewer can read.
const (
	maxScaffoldBytes  = maxSuite
	maxScaffoldValues = 90_000
)

// room is what a suite has left of that size.
type room struct{ bytes, values int }

// newRoom is the room a suite that starts with header has; a little is
// kept back for the section keys and closing comments.
func newRoom(header string) *room {
	return &room{bytes: maxScaffoldBytes - len(header) - 4<<10, values: maxScaffoldValues - yamlValues(header)}
}

// take reserves a block of YAML and reports whether it fit.
func (r *room) take(block string) bool {
	if len(block) > r.bytes {
		return false
	}
	n := yamlValues(block)
	if n > r.values {
		return false
	}
	r.bytes -= len(block)
	r.values -= n
	return true
}

// yamlValues counts the values a YAML text holds as the suite loader
// reads them (mapping keys are not values, aliases are expanded), with
// the shared YAML reader; text that does not parse counts as too many.
func yamlValues(text string) int {
	root, errs := yamlpos.Parse("", []byte(text), yamlpos.Options{})
	switch {
	case len(errs) > 0:
		return maxScaffoldValues + 1
	case root == nil:
		return 0 // comments only, or nothing
	}
	return yamlpos.Count(root)
}

// writeHeader starts every rendered suite: the schema header, who
// generated it, the banner, and the servers: block declaring the
// introspected target as `target`.
func writeHeader(b *strings.Builder, kind, banner string, t live.Target) {
	b.WriteString(SchemaHeader())
	fmt.Fprintf(b, "#\n# Generated by `mcptest generate %s`. Edit freely.\n", kind)
	for _, line := range strings.Split(banner, "\n") {
		b.WriteString("# " + line + "\n")
	}
	b.WriteString("\nservers:\n  target:\n")
	if t.URL != "" {
		u, left := credentialFree(t.URL)
		env := t.BearerTokenEnv
		if left != "" {
			if env == "" {
				env = ScaffoldTokenEnv
			}
			fmt.Fprintf(b, "    # the url's %s left out: a committed suite names where a credential is, never the credential;\n", left)
			fmt.Fprintf(b, "    # the server gets the token in $%s as its bearer token\n", oneLineName(env))
		}
		fmt.Fprintf(b, "    url: %s\n", q(u))
		if env != "" {
			fmt.Fprintf(b, "    bearer_token_env: %s\n", q(env))
		}
	} else {
		argv := redact.Argv(t.Command)
		if !slices.Equal(argv, t.Command) {
			b.WriteString("    # a secret of the command line is left out (" + redact.Mask + "): give the server its credential from the environment it runs in\n")
		}
		fmt.Fprintf(b, "    command: %s\n", q(argv))
		if len(t.Env) > 0 {
			fmt.Fprintf(b, "    env: %s\n", q(redact.Value(t.Env)))
		}
	}
}

// ScaffoldTokenEnv is the variable a scaffolded suite names as the
// bearer_token_env of a server whose URL carried a credential, when the
// command named none (--bearer-token-env).
const ScaffoldTokenEnv = "MCP_TOKEN"

// credentialFree is u without its credentials: the user-info and every
// query or fragment parameter redact.QueryKey names, and what was left
// out, in words ("" when nothing was). A URL that does not parse is left
// to redact.String.
func credentialFree(raw string) (string, string) {
	u, err := url.Parse(raw)
	if err != nil {
		return redact.String(raw), ""
	}
	var left []string
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			left = append(left, "user and password are")
		} else {
			left = append(left, "user is")
		}
		u.User = nil
	}
	keep := func(part string) string {
		var kept []string
		for _, kv := range strings.Split(part, "&") {
			k, _, _ := strings.Cut(kv, "=")
			if kv != "" && redact.QueryKey(k) {
				if dk, err := url.QueryUnescape(k); err == nil {
					k = dk
				}
				left = append(left, "parameter "+oneLineName(k)+" is")
				continue
			}
			kept = append(kept, kv)
		}
		return strings.Join(kept, "&")
	}
	u.RawQuery = keep(u.RawQuery)
	if u.Fragment != "" {
		u.RawFragment = keep(u.EscapedFragment())
		u.Fragment, _ = url.PathUnescape(u.RawFragment)
	}
	if len(left) == 0 {
		return raw, ""
	}
	return u.String(), strings.Join(left, ", ")
}

// reviewMarker writes `# review before first run` above the cases of a
// tool whose name or annotations look destructive.
func reviewMarker(b *strings.Builder, tl *mcp.Tool, why string) {
	if Classify(tl) == Destructive {
		fmt.Fprintf(b, "  # review before first run: %s looks destructive (annotations or name); %s\n", oneLineName(tl.Name), why)
	}
}

// commentOut turns a tool's tests into YAML comments under a review
// marker: removing the "# " after the indent of each line restores them.
func commentOut(tl *mcp.Tool, tests string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  # review before enabling: %s changes state (annotations or name), so its tests are commented out; uncomment them after review, or generate with --include-writes\n", oneLineName(tl.Name))
	for _, line := range strings.SplitAfter(tests, "\n") {
		if line == "" {
			continue
		}
		b.WriteString("  # " + strings.TrimPrefix(line, "  "))
	}
	return b.String()
}

// nameSet hands out case names, each once: server-supplied text makes up
// the names, so two of them can meet (a duplicated tool, a tool whose name
// ends like another's case). A repeat gets " #2", " #3", ...
type nameSet map[string]bool

func (ns nameSet) take(name string) string {
	// The suite holds the name as JSON writes it: invalid UTF-8 becomes
	// U+FFFD, so two names that differ only there are the same name.
	name = strings.ToValidUTF8(name, "\uFFFD")
	out := name
	for i := 2; ns[out]; i++ {
		out = fmt.Sprintf("%s #%d", name, i)
	}
	ns[out] = true
	return out
}
