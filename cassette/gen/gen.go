package gen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcptest/mcptest/cassette"
)

// airline is the server name the τ-bench airline tools are served under.
const airline = "airline"

// DefaultSeed is the seed the benchmarks use.
const DefaultSeed uint64 = 20260101

// general are the servers an assistant has besides the ones its task needs:
// search, fetch, files and a clock.
var general = []string{"duckduckgo-search", "bing-cn-mcp", "fetch", "filesystem", "wikipedia", "time"}

// Restricted lists tools the generator never calls: the suite declares them
// restricted, so tool_edges passes while still checking every call.
var Restricted = []string{"filesystem.move_file", "git.git_reset", "git.git_checkout", "git.git_init"}

// Class is an equal-function set of the generated suite: a name and its
// members' qualified ids, server.tool.
type Class struct {
	Name    string
	Members []string
}

// Classes are the equal-function sets the suite declares over the
// generated tools: tools that find, tools that read one thing, tools that
// write. Every other call is a false positive of Selection F1.
var Classes = []Class{
	{"search", []string{"duckduckgo-search.duckduckgo_web_search", "bing-cn-mcp.bing_search", "wikipedia.search_wikipedia",
		"hackernews.search", "arxiv-mcp-server.search_papers", "mcp-simple-arxiv.search_papers", "airbnb.airbnb_search",
		"met-museum.search-museum-objects", "filesystem.search_files", "airline.search_direct_flight", "airline.search_onestop_flight"}},
	{"read", []string{"fetch.fetch", "bing-cn-mcp.fetch_webpage", "wikipedia.get_article", "mcp-deepwiki.deepwiki_fetch",
		"arxiv-mcp-server.read_paper", "mcp-simple-arxiv.get_paper_data", "youtube-transcript.get_transcript", "filesystem.read_file",
		"text-editor.get_text_file_contents", "airline.get_user_details", "airline.get_reservation_details"}},
	{"write", []string{"filesystem.write_file", "filesystem.edit_file", "text-editor.edit_text_file_contents",
		"mindmap.convert_markdown_to_mindmap", "airline.book_reservation", "airline.update_reservation_flights", "airline.cancel_reservation"}},
}

// models are the recorders' model versions, with their provider and price
// in micro-dollars per input and per output token.
var models = []struct {
	model, provider string
	in, out         int64
}{
	{"claude-sonnet-4-5-20250929", "anthropic", 3, 15},
	{"claude-sonnet-4-20250514", "anthropic", 3, 15},
	{"gpt-4o-2024-08-06", "openai", 2, 10}, // $2.50/Mtok input, rounded down
	{"gpt-4.1-2025-04-14", "openai", 2, 8},
}

// Cassette returns the i-th cassette of the set generated from seed, as
// the file bytes: a v1 cassette, indented with two spaces, ending in a
// newline. The same seed and i always give the same bytes, and cassette i
// does not depend on how many others are generated, so the first 500 of
// a 2,000 set are the 500 set.
func Cassette(seed uint64, i int) []byte {
	g := &generator{c: data(), rng: rand.New(rand.NewPCG(seed, uint64(i)))}
	doc := g.cassette(i)
	data, err := doc.Encode()
	if err != nil {
		panic("cassette/gen: encode: " + err.Error()) // only maps, slices and strings: cannot fail
	}
	return data
}

// generator builds one cassette.
type generator struct {
	c   *corpus
	rng *rand.Rand
	// tools are the qualified ids the agent may call, catalog order.
	tools []string
	// context is the size in bytes of the conversation so far, for tokens.
	context int
	// failing makes every run of the cassette call a restricted tool
	// (FailingCassette), and gives it failingRuns runs.
	failing bool
}

func (g *generator) cassette(i int) *cassette.File {
	rng := g.rng
	t := g.c.tasks[rng.IntN(len(g.c.tasks))]
	m := models[rng.IntN(len(models))]
	base := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	at := base.Add(time.Duration(i)*37*time.Minute + time.Duration(rng.IntN(1800))*time.Second)

	servers := append([]string(nil), t.Servers...)
	if !t.Airline {
		if extra := general[rng.IntN(len(general))]; !slices.Contains(servers, extra) {
			servers = append(servers, extra)
		}
	}
	if g.failing && !slices.Contains(servers, restrictedServer) {
		servers = append(servers, restrictedServer)
	}
	sort.Strings(servers)
	doc := &cassette.File{
		Version: 1, Agent: t.Agent, Model: m.model, Provider: m.provider,
		RecordedAt: at.Format(time.RFC3339), Prompt: t.Prompt,
		Catalog: map[string]cassette.FileServer{},
	}
	catalogBytes := 0
	for _, name := range servers {
		s := g.c.servers[name]
		var tools []any
		for _, tl := range s.Tools {
			tools = append(tools, tl.Raw)
			catalogBytes += len(tl.Raw)
			if !slices.Contains(Restricted, name+"."+tl.Name) {
				g.tools = append(g.tools, name+"."+tl.Name)
			}
		}
		doc.Catalog[name] = cassette.FileServer{Tools: tools}
	}
	runs := 1 + min(rng.IntN(3), rng.IntN(3))
	if g.failing {
		runs = failingRuns
	}
	for range runs {
		g.context = catalogBytes + len(t.Prompt) + 2000 // the system prompt
		r := g.run(t, m.in, m.out)
		if g.failing {
			g.restrictedCall(&r)
		}
		doc.Runs = append(doc.Runs, r)
	}
	return doc
}

// run generates one run of the task: 2 to 6 turns of 1 to 5 calls (the
// low counts likelier, as in recorded traces), the task's real calls
// first, in order.
func (g *generator) run(t task, inPrice, outPrice int64) cassette.FileRun {
	rng := g.rng
	var r cassette.FileRun
	var in, out int64
	// One run in five is a multi-agent run: a planner hands the work to a
	// worker, which makes the calls.
	worker := ""
	if rng.IntN(5) == 0 {
		worker = "researcher"
		if t.Airline {
			worker = "booking-agent"
		}
		r.Delegations = append(r.Delegations, cassette.FileDelegation{From: "planner", To: worker})
		if rng.IntN(3) == 0 {
			r.Delegations = append(r.Delegations, cassette.FileDelegation{From: worker, To: "planner"})
		}
	}
	backbone := t.Steps
	turns := 2 + min(rng.IntN(5), rng.IntN(5))
	for range turns {
		var turn cassette.FileTurn
		n := 1 + min(rng.IntN(5), rng.IntN(5))
		for len(turn.Calls) < n {
			var s step
			if len(backbone) > 0 {
				s, backbone = backbone[0], backbone[1:]
			} else {
				s = g.pick(t)
			}
			call := g.call(s, worker)
			turn.Calls = append(turn.Calls, call)
			argBytes := jsonSize(call.Arguments)
			in += int64(g.context / 4)
			out += int64(argBytes/4 + 20 + rng.IntN(120))
			g.context += argBytes + jsonSize(call.Result)
			// A failed call is retried once with corrected arguments.
			if call.IsError && len(turn.Calls) < n {
				retry := g.call(step{Server: call.Server, Tool: call.Tool}, worker)
				retry.IsError, retry.Result = false, g.result(call.Server, call.Tool, retry.Arguments)
				turn.Calls = append(turn.Calls, retry)
				g.context += jsonSize(retry.Arguments) + jsonSize(retry.Result)
			}
		}
		turn.FinalResponse = g.finalResponse(turn.Calls)
		in += int64(g.context / 4)
		out += int64(len(turn.FinalResponse) / 4)
		g.context += len(turn.FinalResponse) + 200 + rng.IntN(400) // and the next user message
		r.Turns = append(r.Turns, turn)
	}
	cost := in*inPrice + out*outPrice
	r.Tokens, r.CostMicros = &cassette.FileTokens{Input: in, Output: out, Total: in + out}, &cost
	return r
}

// pick chooses a call after the task's own: mostly the task's servers,
// else search and fetch as an assistant does between steps.
func (g *generator) pick(t task) step {
	rng := g.rng
	if len(t.Steps) > 0 && rng.IntN(3) == 0 {
		s := t.Steps[rng.IntN(len(t.Steps))]
		return step{Server: s.Server, Tool: s.Tool, Args: s.Args}
	}
	id := g.tools[rng.IntN(len(g.tools))]
	srv, name, _ := strings.Cut(id, ".")
	return step{Server: srv, Tool: name}
}

// call makes one call of step s: its arguments (the recorded ones when
// known, else real example arguments or values drawn from the schema), its
// result, and one call in sixteen failing with a real error text.
func (g *generator) call(s step, worker string) cassette.FileCall {
	rng := g.rng
	args := s.Args
	if args == nil {
		args = g.arguments(s.Server, s.Tool)
	}
	c := cassette.FileCall{Server: s.Server, Tool: s.Tool, Arguments: args, Agent: worker}
	if rng.IntN(16) == 0 {
		c.IsError = true
		c.Result = map[string]any{
			"content": []any{textContent{"text", g.c.errors[rng.IntN(len(g.c.errors))]}},
			"isError": true,
		}
		c.DurationMS = float64(5 + rng.IntN(400))
		return c
	}
	c.Result = g.result(s.Server, s.Tool, args)
	// Tool latencies are long-tailed: most calls take tens to hundreds of
	// milliseconds, a few (fetches, searches) seconds.
	c.DurationMS = float64(int64(20 * (1 + rng.ExpFloat64()*8)))
	return c
}

func (g *generator) arguments(srv, name string) any {
	rng := g.rng
	if ex := g.c.examples[srv+"."+name]; len(ex) > 0 && rng.IntN(2) == 0 {
		return ex[rng.IntN(len(ex))]
	}
	t := g.c.tool(srv, name)
	v := g.value("", t.InputSchema, 0)
	if v == nil {
		return map[string]any{}
	}
	return v
}

func (g *generator) finalResponse(calls []cassette.FileCall) string {
	rng := g.rng
	text := g.c.chain.paragraph(rng, 80+rng.IntN(500))
	var sources []string
	for _, c := range calls {
		if c.IsError {
			continue
		}
		if m, ok := c.Arguments.(map[string]any); ok {
			if u, ok := m["url"].(string); ok {
				sources = append(sources, u)
			}
		}
	}
	if len(sources) > 0 {
		text += "\n\nSources:\n- " + strings.Join(sources, "\n- ")
	}
	return text
}

// jsonSize is the encoded size of v, which the token counts follow.
func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// fileName is the name of cassette i in the directory Write fills.
func fileName(i int) string {
	return fmt.Sprintf("cassette-%06d.json", i)
}
